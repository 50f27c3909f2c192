#!/usr/bin/env python3
"""The share benchmark driver. Run it through bench/run.sh, which installs and builds what it needs.

Measures, side by side on loopback in one run: the physical limit (a minimal TLS 1.3 stream with
OpenSSL, plain disk writes, `openssl speed`), the tools people use today (scp, rsync over an sshd
started here, magic-wormhole with its own mailbox and transit relay), and share (release build,
`share daemon` + `share send --to 127.0.0.1:PORT`, and by name through a private Avahi). Prints one
table; see bench/README.md.

Every process it starts runs in its own session and is killed by its process-group id when the
run ends (normally, on error, or on SIGINT/SIGTERM/SIGHUP); the scratch folder is removed. As root
the whole run happens inside the bench's own network namespace (scripts/netns-hosts.sh up-lo: lo
only, with its own D-Bus and Avahi on lo), so no tool can reach anything but loopback.

The parts, by concern (bench/benchlib/): options (the command line), common, procs (processes),
measure (quietness, RSS sampling, medians), hosts (network namespaces through
scripts/netns-hosts.sh), context (one run's state), workloads (what is sent), tools (reference,
disk, scp/rsync, wormhole), share (homes, daemons, one send), scenarios (daemon start, idle
memory, openssl speed), discovery (by name: visibility, a never-seen name), scale (many senders,
many receivers, a big Inbox), report (the table) and targets (the goals, MET or MISS).
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from benchlib import discovery, scale, scenarios
from benchlib.common import BenchError, log, rmtree
from benchlib.context import Context
from benchlib.hosts import NetnsHosts, in_bench_netns
from benchlib.measure import cpu_busy
from benchlib.options import parse_args
from benchlib.procs import REGISTRY
from benchlib.report import Report
from benchlib.share import Share
from benchlib.tools import Disk, Reference, Ssh, Wormhole
from benchlib.workloads import make_workloads, plan_rows


class Bench:
    """One run: prepares the tools, measures every workload's rows interleaved, then share alone."""

    def __init__(self, args):
        self.ctx = Context(args)
        self.ref, self.disk, self.ssh = Reference(self.ctx), Disk(self.ctx), Ssh(self.ctx)
        self.wormhole, self.share = Wormhole(self.ctx), Share(self.ctx)
        self.workloads = []

    def prepare(self):
        a = self.ctx.args
        self.ctx.describe_machine()
        self.workloads = make_workloads(a, self.ctx.src)
        tools = set(a.tools)
        if "ref" in tools or "tiny" in a.workloads:
            self.ref.prepare()
        if tools & {"scp", "rsync", "rsync-fsync"}:
            self.ssh.prepare()
        if "wormhole" in tools:
            self.wormhole.prepare()
        if "share" in tools:
            self.share.prepare()
            for w in self.workloads:
                if w.key == "mixed" and "share" not in self.ctx.unavailable:
                    self.ctx.results.setdefault("screened", {})[w.key] = self.share.screen(w)

    def measuring(self, rid):
        """The function that measures one run of row `rid`: (workload, destination) -> figures."""
        return {
            "ref-null": lambda w, d: self.ref.measure(w, d, "null"),
            "ref-file": lambda w, d: self.ref.measure(w, d, "file"),
            "ref-direct": lambda w, d: self.ref.measure(w, d, "direct"),
            "ref-sha": lambda w, d: self.ref.measure(w, d, "sha"),
            "disk": lambda w, d: self.disk.measure(w, d, "none"),
            "disk-fsync": lambda w, d: self.disk.measure(w, d, "fsync"),
            "disk-direct": lambda w, d: self.disk.measure(w, d, "direct"),
            "scp": self.ssh.scp,
            "rsync": self.ssh.rsync,
            "rsync-fsync": self.ssh.rsync_fsync,
            "wormhole": self.wormhole.measure,
            "share": self.share.measure,
            "share-name": self.share.measure_by_name,
        }[rid]

    def run(self):
        for w in self.workloads:
            self.run_workload(w)
        a, ctx = self.ctx.args, self.ctx
        share_ok = "share" in a.tools and "share" not in ctx.unavailable
        for key, measure in (("start", scenarios.measure_start), ("idle", scenarios.measure_idle),
                             ("newname", discovery.measure_new_name), ("visible", discovery.measure_visible),
                             ("senders", scale.measure_senders), ("fanout", scale.measure_fanout), ("inbox", scale.measure_inbox)):
            if key in a.workloads and share_ok:
                measure(ctx, self.share)
        if "speed" in a.workloads:
            scenarios.measure_speed(ctx)

    def run_workload(self, w):
        ctx = self.ctx
        rows = plan_rows(w, ctx.args.tools)
        res = ctx.results.setdefault(w.key, {})
        log(f"== {w.label}: {w.runs} run(s) of {', '.join(r[0] for r in rows)}")
        for i in range(w.runs):
            # Interleaved (run i of every tool, then run i+1) and rotated, so that no tool
            # always follows the same one: what the previous tool left behind (freed page
            # cache the hypervisor has to back again, deleted inodes) moves around.
            k = i % len(rows) if ctx.args.order == "rotate" else 0
            for rid, tool in rows[k:] + rows[:k]:
                entry = res.setdefault(rid, {"runs": [], "error": None})
                if tool in ctx.unavailable or entry["error"]:
                    continue
                ctx.settle(w)
                dest = ctx.fresh_dest()
                ctx.quiet()
                try:
                    r = self.measure_one(w, rid, dest)
                    entry["runs"].append(r)
                    log(f"   {w.key} run {i + 1}/{w.runs} {rid:<11} {r['wall']:.3f} s")
                except (BenchError, OSError, subprocess.SubprocessError) as e:
                    entry["error"] = str(e)
                    log(f"   {w.key} run {i + 1}/{w.runs} {rid:<11} FAILED: {e}")
        rmtree(ctx.dest)

    def measure_one(self, w, rid, dest):
        """One run of one row, and the CPU the rest of the machine used meanwhile."""
        b0, t0 = cpu_busy(), time.monotonic()
        r = self.measuring(rid)(w, dest)
        span, busy = time.monotonic() - t0, cpu_busy() - b0
        ours = r["send_cpu"] + r.get("recv_cpu", 0.0)
        load = self.ctx.load.setdefault(w.key, [0.0, 0.0])
        load[0] += max(0.0, busy - ours)
        load[1] += span * (os.cpu_count() or 1)
        return r

    def table(self):
        return Report(self.ctx, self.workloads, self.wormhole.direct).table()

    def write(self, table):
        a = self.ctx.args
        if a.out:
            with open(a.out, "w") as f:
                f.write(table + "\n")
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"info": self.ctx.info, "results": self.ctx.results, "unavailable": self.ctx.unavailable,
                           "args": dict(vars(a))}, f, indent=1, default=str)

    def cleanup(self):
        REGISTRY.kill_all()
        self.ctx.unmount_loop()


def run_in_own_netns():
    """Makes the bench's own namespace with scripts/netns-hosts.sh (PREFIX-lo: lo only, its own
    bus and Avahi on lo), runs this driver again inside it, and removes every host of the prefix
    when that ends, however it ends. The prefix is bench/run.sh's (its cleanup is the backstop)."""
    hosts = NetnsHosts(os.environ.get("SHARE_BENCH_PREFIX") or f"share-bench{os.getpid()}")
    try:
        lo = hosts.up_lo()
    except (BenchError, subprocess.SubprocessError) as e:
        log(f"error: the bench's own namespace: {e}")
        hosts.down()
        return 1
    env = dict(lo.env(), SHARE_BENCH_NETNS=lo.name, SHARE_NETNS_PREFIX=hosts.prefix)
    sys.stdout.flush()
    # Its own session: a Ctrl-C on the terminal reaches it once, forwarded from here.
    child = subprocess.Popen(lo.prefix() + [sys.executable, os.path.abspath(__file__), *sys.argv[1:]], env=env,
                             start_new_session=True)

    def forward(signum, _frame):
        try:
            child.send_signal(signum)
        except ProcessLookupError:
            pass

    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(s, forward)
    try:
        return child.wait()
    finally:
        hosts.down()


def main():
    args = parse_args()
    # Everything inside the bench's own network namespace (lo only, Avahi on lo), when we can make one.
    if args.netns and not in_bench_netns():
        if os.geteuid() == 0:
            return run_in_own_netns()
        log("cannot make a network namespace (needs root); running on the host's loopback")

    own_scratch = args.scratch is None
    if own_scratch:
        args.scratch = tempfile.mkdtemp(prefix="share-bench.", dir=args.tmp)
    os.makedirs(args.scratch, exist_ok=True)

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(s, on_signal)

    bench = Bench(args)
    code = 0
    try:
        bench.prepare()
        bench.run()
        table = bench.table()
        print(table, flush=True)
        bench.write(table)
    except KeyboardInterrupt as e:
        log(f"interrupted ({e}); cleaning up")
        code = 130
    except BenchError as e:
        log(f"error: {e}")
        code = 1
    finally:
        bench.cleanup()
        if not args.keep:
            rmtree(args.scratch)
        elif own_scratch:
            log(f"kept {args.scratch}")
    return code


if __name__ == "__main__":
    sys.exit(main())
