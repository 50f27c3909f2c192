"""share itself: homes (the sender's; a receiving template that trusts it), daemons started and
stopped under /usr/bin/time, and one measured send by HOST:PORT or by name."""

import json
import os
import shutil
import signal
import subprocess
import time

from .common import HERE, BenchError, run_quiet, tree_bytes
from .hosts import Host, in_bench_netns
from .measure import MemorySampler, row
from .procs import Timed, wait_for_file_line, wait_for_line


class Share:
    """The share binary under test, its homes and its daemons."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.lo = None  # the Avahi on lo of the bench's own namespace (by-name rows)
        self.env = None  # environment of every share process: which D-Bus (so which Avahi) it sees

    def prepare(self):
        share = self.ctx.args.share
        if not os.access(share, os.X_OK):
            self.ctx.unavailable["share"] = f"{share} is not built"
            return
        root = os.path.join(self.ctx.scratch, "share")
        os.makedirs(root, exist_ok=True)
        self.root = root
        # No share process the bench starts may reach the machine's own system bus (and through
        # it the machine's Avahi, where other programs' tests look for peers): each gets either
        # the bench's private bus or one that does not exist (then the daemon says it cannot
        # advertise, retries with backoff, and receives all the same).
        self.env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={root}/no-bus.sock")
        if in_bench_netns():
            # The bench runs in PREFIX-lo, whose Avahi (on lo) scripts/netns-hosts.sh started.
            self.lo = Host(os.environ["SHARE_BENCH_NETNS"], os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
            self.env = self.lo.env()
        else:
            self.ctx.unavailable["share-name"] = "needs root: a private Avahi in the bench's own network namespace"
        self.sender_home = os.path.join(root, "sender")
        self.template = os.path.join(root, "receiver-template")
        self.sender_id = self.make_home(self.sender_home)
        self.make_home(self.template, trusting=self.sender_id)
        self.warm_cut_database()
        self.name = "share-bench-recv"
        self.ctx.notes["share"] = "durable (fdatasync/syncfs) before the Receipt; receiver CPU/RSS include daemon start"

    def warm_cut_database(self):
        """A daemon that has judged content keeps libmagic's cut database in its home
        (config/cache/magic-mime.cut), built once per system database. One daemon judges one
        file here and the template gets its file, so the measured daemons are everyday ones,
        not the first one a home ever started."""
        share = self.ctx.args.share
        warm = os.path.join(self.root, "warm-receiver")
        if not os.path.isdir(warm):
            self.make_home(warm, trusting=self.sender_id)
        sample = os.path.join(self.root, "warm-sample.bin")
        with open(sample, "wb") as f:
            f.write(os.urandom(4096))
        daemon, port, _ready = self.start_daemon(warm, "warm")
        try:
            r = run_quiet([share, "--home", self.sender_home, "send", sample, "--to", f"127.0.0.1:{port}", "--quiet"], env=self.env)
        finally:
            self.stop_daemon(daemon)
        cut = os.path.join(warm, "cache", "magic-mime.cut")
        if r.returncode != 0 or not os.path.exists(cut):
            raise BenchError(f"a daemon that judged a file left no cut magic database: {r.stdout[-300:]}")
        os.makedirs(os.path.join(self.template, "cache"), exist_ok=True)
        shutil.copy(cut, os.path.join(self.template, "cache", "magic-mime.cut"))

    def make_home(self, home, trusting=None):
        """A share home with its identity made; a receiver's also trusts `trusting` (so its asks
        go ahead without `share accept`: the consent gate never waits in a measurement) and takes
        any content (bench/receiver-declarations.plist: random bytes are `public.data`, which the
        default declarations refuse). Returns the home's device ID."""
        share = self.ctx.args.share
        device = self.device_id(home)
        if trusting:
            r = run_quiet([share, "--home", home, "trust", "add", trusting, "--name", "bench-sender"], env=self.env)
            if r.returncode != 0:
                raise BenchError(f"share trust add failed: {r.stdout}")
            shutil.copy(os.path.join(HERE, "receiver-declarations.plist"), os.path.join(home, "Declarations.plist"))
            r = run_quiet([share, "--home", home, "types", "--json"], env=self.env)
            if r.returncode != 0 or "public.data" not in r.stdout:
                raise BenchError(f"share types does not take bench/receiver-declarations.plist: {r.stdout[-300:]}")
        return device

    def device_id(self, home):
        """The home's device ID (`share id --json`; makes the identity if the home has none)."""
        r = run_quiet([self.ctx.args.share, "--home", home, "id", "--json"], env=self.env)
        if r.returncode != 0:
            raise BenchError(f"share id failed: {r.stdout}")
        try:
            return json.loads(r.stdout.strip().splitlines()[-1])["id"]
        except (ValueError, KeyError, IndexError):
            raise BenchError(f"share id --json: unexpected output {r.stdout[-300:]!r}")

    # -- one measurement per tool ------------------------------------------------------------

    def start_daemon(self, home, tag, extra=("--host", "127.0.0.1"), host=None):
        """A fresh `share daemon` under time -v (on `host`: a Host, default the bench's own
        namespace); returns (Timed, port, seconds from spawn to the listening line)."""
        prefix, env = (host.prefix(), host.env()) if host else ([], self.env)
        t = Timed(self.ctx.logname(f"share-daemon-{tag}"), prefix + [self.ctx.args.share, "--home", home, "daemon", "--port", "0", *extra],
                  self.ctx.logs, stdout=subprocess.PIPE, env=env)
        m = wait_for_line(t.proc.stdout, r"listening on port (\d+)", 15, "share daemon")
        ready = time.monotonic() - t.started
        return t, m.group(1).decode(), ready

    @staticmethod
    def wait_advertised(daemon, name):
        """Waits for the daemon's `advertised as NAME` line; returns its own "ms after start"."""
        m = wait_for_file_line(daemon.err_file, r"advertised as (.+?) on _share\._tcp \((\d+) ms after start\)", 20,
                               "share daemon (advertising)", daemon.proc)
        if m.group(1).decode() != name:
            raise BenchError(f"the daemon is advertised as {m.group(1).decode()!r}, not {name!r} (a stale record holds the name)")
        return int(m.group(2)) / 1e3

    def stop_daemon(self, d):
        """SIGTERM, repeated if it does not exit within 0.5 s (share once lost a SIGTERM that
        arrived right after its `listening` line); counted in self.ctx.lost_sigterms."""
        for attempt in range(40):
            d.signal_child(signal.SIGTERM)
            try:
                rc = d.proc.wait(timeout=0.5)
                break
            except subprocess.TimeoutExpired:
                self.ctx.lost_sigterms += 1
        rc = d.wait(30)
        if rc != 0:
            raise BenchError(f"share daemon exited {rc} on SIGTERM: {d.stderr_tail()}")

    def screen(self, w):
        """Leaves out of a folder workload the files share refuses (a trial send to a fresh
        daemon, its `--json` refusals), so that every tool sends the same files; returns
        [(name, reason)] for the table. Refusals of real files are share's to fix (README)."""
        home = os.path.join(self.root, "screen")
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(self.template, home, symlinks=True)
        daemon, port, _ready = self.start_daemon(home, "screen")
        try:
            r = subprocess.run([self.ctx.args.share, "--home", self.sender_home, "send", *w.paths, "--to", f"127.0.0.1:{port}", "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env, timeout=self.ctx.args.timeout)
        finally:
            self.stop_daemon(daemon)
        refused = []
        for line in r.stdout.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "refused":
                refused.append((event.get("item", "?"), event.get("reason", "?")))
        if r.returncode not in (0, 3) or (r.returncode == 3) != bool(refused):
            raise BenchError(f"screening {w.label}: share send exited {r.returncode}: {r.stderr[-300:]!r}")
        names = {name for name, _ in refused}
        for p in [p for p in w.paths if os.path.basename(p) in names]:
            os.unlink(p)
        w.drop(names)
        shutil.rmtree(home, ignore_errors=True)
        return refused

    def measure(self, w, dest):
        """One send of the workload by HOST:PORT to a fresh daemon; the memory of both sides is
        sampled throughout (anonymous and file-backed apart)."""
        home = os.path.join(dest, "home")
        shutil.copytree(self.template, home, symlinks=True)
        daemon, port, ready = self.start_daemon(home, "recv")
        sampler = MemorySampler()
        try:
            sampler.watch("recv", daemon.child_pid())
            argv = [self.ctx.args.share, "--home", self.sender_home, "send", *w.paths, "--to", f"127.0.0.1:{port}", "--quiet"]
            t0 = time.monotonic()
            p = Timed(self.ctx.logname("share-send"), argv, self.ctx.logs, env=self.env)
            sampler.watch("send", p.child_pid())
            rc = p.wait(self.ctx.args.timeout)
            wall = p.ended - t0
        finally:
            peaks = sampler.stop()
            self.stop_daemon(daemon)
        if rc:
            raise BenchError(f"share send exited {rc}: {p.stderr_tail()} / daemon: {daemon.stderr_tail()}")
        self.ctx.check_dest(w, os.path.join(home, "Documents", "Inbox"), "share")
        r = row(wall, p, daemon)
        r["ready"] = ready
        for side, short in (("send", "send"), ("recv", "recv")):
            for kind in ("anon", "file"):
                if kind in peaks.get(side, {}):
                    r[f"{short}_{kind}"] = peaks[side][kind]
        return r

    def measure_by_name(self, w, dest):
        """1 KiB by name: `share send FILE --to NAME` through the private Avahi on lo, after a
        first send by name to the same daemon (so this home knows the name's ID and Avahi's cache
        holds the service: the sender stops browsing as soon as the cache answers)."""
        home = os.path.join(dest, "home")
        shutil.copytree(self.template, home, symlinks=True)
        daemon, _port, ready = self.start_daemon(home, "name", extra=("--host", "127.0.0.1", "--name", self.name))
        try:
            self.wait_advertised(daemon, self.name)
            argv = [self.ctx.args.share, "--home", self.sender_home, "send", *w.paths, "--to", self.name, "--quiet"]
            first = Timed(self.ctx.logname("share-send-name-first"), argv, self.ctx.logs, env=self.env)
            if first.wait(60):
                raise BenchError(f"first share send by name failed: {first.stderr_tail()} / daemon: {daemon.stderr_tail()}")
            t0 = time.monotonic()
            p = Timed(self.ctx.logname("share-send-name"), argv, self.ctx.logs, env=self.env)
            rc = p.wait(self.ctx.args.timeout)
            wall = p.ended - t0
        finally:
            self.stop_daemon(daemon)
        if rc:
            raise BenchError(f"share send --to {self.name} exited {rc}: {p.stderr_tail()} / daemon: {daemon.stderr_tail()}")
        files, _ = tree_bytes(os.path.join(home, "Documents", "Inbox"))
        if files != 2:
            raise BenchError(f"share by name: {files} items in the Inbox, expected 2 (the first send and the measured one)")
        r = row(wall, p, daemon)
        r["ready"] = ready
        r["first"] = first.ended - first.started
        return r

