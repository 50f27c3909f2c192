"""share found by name: daemon start to visible on another host (with sends by name across the
link), and the first send to a name never seen before over the loopback Avahi."""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
import time

from .common import KiB, BenchError, log, rmtree, tree_bytes
from .hosts import NetnsHosts, in_bench_netns
from .procs import Timed, spawn
from .workloads import make_file


def make_hosts(count):
    """`count` test hosts on one link, from scripts/netns-hosts.sh under the bench's prefix
    (PREFIX-a 198.18.0.1, PREFIX-b 198.18.0.2, ...), each with its own bus and Avahi."""
    if not in_bench_netns():
        raise BenchError("needs root: the bench's own network namespaces")
    return NetnsHosts(os.environ["SHARE_NETNS_PREFIX"]).up(count)


def tiny_file(ctx):
    path = os.path.join(ctx.src, "tiny.bin")
    make_file(path, KiB)
    return path


def peer_line_is(raw, name, port):
    """Whether one `share peers --json` line is the peer advertised as `name` (at `port`)."""
    try:
        peer = json.loads(raw)
    except ValueError:
        return False
    if not isinstance(peer, dict) or (peer.get("name") != name and name not in (peer.get("aliases") or [])):
        return False
    return port is None or any(a.get("port") == port for a in peer.get("addresses") or [])


def measure_visible(ctx, share):
    """Daemon start on host A to visible on host B, and 1 KiB by name from B to A across the
    veth. Every run starts a daemon with a fresh home and a fresh name on A (so no record of an
    earlier run can answer). Runs alternate between two ways of looking from B, never both at
    once (a browser already running on B makes Avahi answer another at once, which would
    flatter the second):
      watch: `share peers --watch --json` browses on B from 1.5 s before the daemon's spawn;
             the time is when it prints the peer;
      poll:  `share peers --json` runs on B back to back from the spawn on (each run lasts
             until Avahi's "all for now"); the time is when the first run that lists it ends.
             Then B sends 1 KiB by name: once with the name new to B's home (it waits for
             Avahi's "all for now"), then 3 times known, Avahi's cache warm."""
    runs = ctx.args.visible_runs
    log(f"== share daemon start → visible on another host: {runs} runs each of watch and poll, and 1 KiB by name across the veth")
    res = ctx.results.setdefault("visible", {"watch": [], "poll": [], "registered": [], "first_send": [], "warm_send": [],
                                             "send_cpu": [], "send_rss": [], "error": None})
    try:
        host_a, host_b = make_hosts(2)
    except BenchError as e:
        res["error"] = str(e)
        log(f"   hosts A and B: FAILED: {e}")
        return
    home_b = os.path.join(share.root, "visible-b")
    b_id = share.make_home(home_b)
    for i in range(2 * runs):
        mode = "watch" if i % 2 == 0 else "poll"
        name = f"share-bench-a{i + 1}"
        home_a = os.path.join(share.root, f"visible-a{i + 1}")
        share.make_home(home_a, trusting=b_id)
        ctx.quiet()
        run = VisibleRun(ctx, share, host_a, host_b, home_a, home_b, name)
        try:
            visible = run.watch() if mode == "watch" else run.poll()
            sends = run.send_across() if mode == "poll" else []
            registered = share.wait_advertised(run.daemon, name)
        except (BenchError, OSError, subprocess.SubprocessError) as e:
            res["error"] = str(e)
            log(f"   visible run {i + 1}/{2 * runs} ({mode}) FAILED: {e}")
            return
        finally:
            run.stop()
        res[mode].append(visible)
        res["registered"].append(registered)
        msg = f"   visible run {i + 1}/{2 * runs} ({mode}): {visible:.3f} s (advertised at {registered:.3f} s)"
        if sends:
            res["first_send"].append(sends[0][0])
            for wall, p in sends[1:]:
                res["warm_send"].append(wall)
                cpu, rss, _ = p.usage()
                res["send_cpu"].append(cpu)
                res["send_rss"].append(rss)
            msg += f"; by name B → A: first {sends[0][0] * 1e3:.0f} ms, then {', '.join(f'{x * 1e3:.0f}' for x, _ in sends[1:])} ms"
        log(msg)


class VisibleRun:
    """One run of `measure_visible`: a fresh daemon called `name` on host A, looked for from B."""

    def __init__(self, ctx, share, host_a, host_b, home_a, home_b, name):
        self.ctx, self.share, self.host_a, self.host_b = ctx, share, host_a, host_b
        self.home_a, self.home_b, self.name = home_a, home_b, name
        self.daemon, self.watcher = None, None

    def on_b(self, *argv):
        return self.host_b.prefix() + [self.ctx.args.share, "--home", self.home_b, *argv]

    def start_daemon(self):
        self.daemon, port, _ready = self.share.start_daemon(self.home_a, "visible", extra=("--name", self.name), host=self.host_a)
        return int(port)

    def watch(self):
        """B browses first; a reader thread stamps each line as it arrives."""
        self.watcher = spawn(self.on_b("peers", "--watch", "--json"), stdout=subprocess.PIPE, env=self.host_b.env())
        lines, arrived = [], threading.Event()

        def read():
            for raw in self.watcher.stdout:
                lines.append((time.monotonic(), raw))
                arrived.set()

        threading.Thread(target=read, daemon=True).start()
        time.sleep(1.5)
        port = self.start_daemon()
        t0, seen = self.daemon.started, None
        deadline = time.monotonic() + 30
        while seen is None and time.monotonic() < deadline:
            arrived.wait(0.2)
            arrived.clear()
            seen = next((t for t, raw in list(lines) if peer_line_is(raw, self.name, port)), None)
        if seen is None:
            raise BenchError(f"{self.name} (port {port}) did not appear in share peers --watch on host B within 30 s")
        return seen - t0

    def poll(self):
        """`share peers --json` on B back to back from just before the daemon's spawn on."""
        polled = []

        def poll(t_start):
            while time.monotonic() - t_start < 30:
                r = subprocess.run(self.on_b("peers", "--json", "--timeout", "5"), stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, env=self.host_b.env())
                if any(peer_line_is(raw, self.name, None) for raw in r.stdout.splitlines()):
                    polled.append(time.monotonic() - t_start)
                    return

        poller = threading.Thread(target=poll, args=(time.monotonic(),), daemon=True)
        poller.start()  # a few ms before the daemon's spawn: counted against it
        self.start_daemon()
        poller.join(35)
        if not polled:
            raise BenchError(f"{self.name} was not listed by share peers (polled) on host B within 30 s")
        return polled[0]

    def send_across(self):
        """1 KiB by name from B: first with the name new to B's home, then 3 times known."""
        sends = []
        argv = self.on_b("send", tiny_file(self.ctx), "--to", self.name, "--quiet")
        for k in range(4):
            p = Timed(self.ctx.logname(f"share-send-across-{k}"), argv, self.ctx.logs, env=self.host_b.env())
            if p.wait(60):
                raise BenchError(f"share send --to {self.name} on host B failed: {p.stderr_tail()} / daemon: {self.daemon.stderr_tail()}")
            sends.append((p.ended - p.started, p))
        files, _ = tree_bytes(os.path.join(self.home_a, "Documents", "Inbox"))
        if files != 4:
            raise BenchError(f"host A's Inbox holds {files} items, expected 4")
        return sends

    def stop(self):
        if self.watcher is not None:
            try:
                os.killpg(self.watcher.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            self.watcher.wait(10)
        if self.daemon is not None:
            self.share.stop_daemon(self.daemon)


def measure_new_name(ctx, share):
    """The first send to a name never seen before, over the loopback Avahi of the bench's own
    namespace: each run a fresh daemon with a fresh name (no record of it anywhere: not in
    Avahi's cache, not in the sending home, which is a fresh copy of the sender's), and once it is
    advertised, `share send tiny.bin --to NAME`, timed from spawn to exit."""
    runs = ctx.args.tiny_runs
    log(f"== first send to a name never seen before: {runs} runs")
    res = ctx.results.setdefault("newname", {"runs": [], "error": None})
    if share.lo is None:
        res["error"] = ctx.unavailable.get("share-name", "no Avahi")
        return
    for i in range(runs):
        name = f"share-bench-new{i + 1}"
        home = os.path.join(share.root, f"new-recv-{i}")
        sender = os.path.join(share.root, f"new-send-{i}")
        rmtree(home)
        rmtree(sender)
        shutil.copytree(share.template, home, symlinks=True)
        shutil.copytree(share.sender_home, sender, symlinks=True)
        # The receiver's home is a copy (its identity included): a sender that remembered or
        # trusted that identity under the receiver's usual name would rightly refuse a record
        # claiming it under a new one. Never seen before means nothing known of it at all.
        for known in ("known_peers.json", "trust.json"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(sender, known))
        ctx.quiet()
        daemon, _port, _ready = share.start_daemon(home, "new", extra=("--host", "127.0.0.1", "--name", name))
        try:
            share.wait_advertised(daemon, name)
            p = Timed(ctx.logname("share-send-new"), [ctx.args.share, "--home", sender, "send", tiny_file(ctx), "--to", name, "--quiet"],
                      ctx.logs, env=share.env)
            rc = p.wait(60)
        finally:
            share.stop_daemon(daemon)
        if rc:
            res["error"] = f"share send --to {name} exited {rc}: {p.stderr_tail()}"
            log(f"   new name run {i + 1}/{runs} FAILED: {res['error']}")
            return
        cpu, rss, _ = p.usage()
        res["runs"].append({"wall": p.ended - p.started, "send_cpu": cpu, "send_rss": rss})
        log(f"   new name run {i + 1}/{runs}: {(p.ended - p.started) * 1e3:.0f} ms")
        rmtree(home)
        rmtree(sender)
