"""Measurements of share alone, beyond one send: daemon start, the idle daemon's memory, and
`openssl speed` for the primitives in use. (Discovery: discovery.py; many peers: scale.py.)"""

import os
import re
import shutil
import time

from .common import log, rmtree, run_quiet
from .measure import memory


def measure_start(ctx, share):
    """Daemon spawn to its `listening` line, identity already made (as on every start but the first)."""
    log(f"== share daemon start: {ctx.args.tiny_runs} spawns")
    times, first = [], []
    for i in range(ctx.args.tiny_runs):
        home = os.path.join(ctx.scratch, "share", f"start-{i}")
        rmtree(home)
        shutil.copytree(share.template, home, symlinks=True)
        d, _port, ready = share.start_daemon(home, "start")
        share.stop_daemon(d)
        times.append(ready)
        rmtree(home)
    for i in range(min(3, ctx.args.tiny_runs)):  # the very first start also makes the identity
        home = os.path.join(ctx.scratch, "share", f"first-{i}")
        rmtree(home)
        d, _port, ready = share.start_daemon(home, "first")
        share.stop_daemon(d)
        first.append(ready)
        rmtree(home)
    ctx.results["start"] = {"warm": times, "first": first}

def measure_speed(ctx):
    log("== openssl speed")
    out = {}
    for alg in ("aes-128-gcm", "chacha20-poly1305", "sha256"):
        r = run_quiet(["openssl", "speed", "-seconds", "1", "-bytes", "16384", "-mr", "-evp", alg], timeout=60)
        m = re.search(r"^\+F:\d+:[^:]+:([\d.]+)", r.stdout, re.M)
        out[alg] = float(m.group(1)) if m else None
    r = run_quiet(["openssl", "speed", "-seconds", "1", "-mr", "ed25519"], timeout=60)
    m = re.search(r"^\+F6:\d+:\d+:Ed25519:([\d.]+):([\d.]+)", r.stdout, re.M)
    out["ed25519"] = (float(m.group(1)), float(m.group(2))) if m else None
    ctx.results["speed"] = out

# -- the table ---------------------------------------------------------------------------


def measure_idle(ctx, share):
    """The idle daemon's memory: a fresh daemon (advertising on the bench's Avahi when there is
    one, as a real one would), 2 s after it listens (and is advertised), nothing sent to it."""
    runs = 3
    log(f"== idle daemon memory: {runs} runs")
    res = ctx.results.setdefault("idle", {"runs": [], "error": None})
    for i in range(runs):
        home = os.path.join(ctx.scratch, "share", f"idle-{i}")
        rmtree(home)
        shutil.copytree(share.template, home, symlinks=True)
        name = f"share-bench-idle{i + 1}"
        d, _port, _ready = share.start_daemon(home, "idle", extra=("--host", "127.0.0.1", "--name", name))
        try:
            if share.lo is not None:
                share.wait_advertised(d, name)
            time.sleep(2)
            m = memory(d.child_pid())
        finally:
            share.stop_daemon(d)
        rmtree(home)
        if m is None or "anon" not in m:
            res["error"] = "could not read the daemon's /proc/PID/status"
            return
        res["runs"].append(m)
        log(f"   idle run {i + 1}/{runs}: RSS {m['rss'] / 2**20:.1f} MiB (anon {m['anon'] / 2**20:.1f}, file {m['file'] / 2**20:.1f})")
