"""share at scale: many senders at once to one daemon, one send to several receivers on their own
network-namespace hosts, and an Inbox of many items (`share inbox list`, daemon start)."""

import json
import os
import shutil
import statistics
import subprocess
import time

from .common import MiB, BenchError, log, rmtree, run_quiet, tree_bytes
from .discovery import make_hosts
from .measure import MemorySampler
from .procs import Timed
from .workloads import make_file


def item_files(ctx):
    """The items of one sender in the scale workloads: --sender-items files of 1 MiB of random bytes."""
    folder = os.path.join(ctx.src, "sender-items")
    os.makedirs(folder, exist_ok=True)
    paths = [os.path.join(folder, f"item{i:02d}.bin") for i in range(1, ctx.args.sender_items + 1)]
    for p in paths:
        make_file(p, MiB)
    return paths


def fresh_receiver(share, tag):
    home = os.path.join(share.root, tag)
    rmtree(home)
    shutil.copytree(share.template, home, symlinks=True)
    return home


def measure_senders(ctx, share):
    """--senders senders at once (each its own device, trusted by the receiver), each sending
    --sender-items × 1 MiB by HOST:PORT to one fresh daemon, against one sender alone doing the
    same (median of --runs). Counts the senders that completed (exit 0), those turned away at
    the door (over the cap of connections still starting from one address) that came back
    after a pause, those that gave up on a receiver still busy, the sends that failed, and
    samples the daemon's memory."""
    n, runs = ctx.args.senders, ctx.args.runs
    res = ctx.results.setdefault("senders", {"error": None})
    paths = item_files(ctx)
    nbytes = len(paths) * MiB
    res["label"] = f"{len(paths)} × 1 MiB"
    log(f"== {n} senders at once, each {res['label']}; and one alone ({runs} run(s))")
    homes = []
    for i in range(n):
        home = os.path.join(share.root, f"many-sender-{i}")
        if not os.path.isdir(home):
            share.make_home(home)
        homes.append(home)
    ids = [share.device_id(h) for h in homes]
    try:
        walls = []
        for _ in range(runs):
            ctx.quiet()
            walls.append(one_sender(ctx, share, homes[0], ids[:1], paths)["wall"])
        wall = statistics.median(walls)
        res["one"] = {"wall": wall, "mbs": nbytes / wall / 1e6}
        ctx.quiet()
        many = many_senders(ctx, share, homes, ids, paths)
    except (BenchError, OSError, subprocess.SubprocessError) as e:
        res["error"] = str(e)
        log(f"   senders FAILED: {e}")
        return
    res["many"] = many
    log(f"   one sender {res['one']['mbs']:.0f} MB/s; {n} at once {many['mbs']:.0f} MB/s aggregate, "
        f"{many['completed']}/{n} completed, {many['turned_away']} turned away and came back, {many['refused']} gave up busy, daemon RSS {many['recv_rss'] / MiB:.1f} MiB")


def trusting_daemon(ctx, share, tag, ids):
    home = fresh_receiver(share, tag)
    for device in ids:
        r = run_quiet([ctx.args.share, "--home", home, "trust", "add", device, "--name", f"bench-{device[:8]}"], env=share.env)
        if r.returncode:
            raise BenchError(f"share trust add: {r.stdout[-300:]}")
    return home


def one_sender(ctx, share, home, ids, paths):
    recv = trusting_daemon(ctx, share, "one-recv", ids)
    daemon, port, _ready = share.start_daemon(recv, "one")
    try:
        p = Timed(ctx.logname("share-send-one"), [ctx.args.share, "--home", home, "send", *paths, "--to", f"127.0.0.1:{port}", "--quiet"],
                  ctx.logs, env=share.env)
        rc = p.wait(ctx.args.timeout)
    finally:
        share.stop_daemon(daemon)
    if rc:
        raise BenchError(f"one sender: share send exited {rc}: {p.stderr_tail()}")
    return {"wall": p.ended - p.started}


def many_senders(ctx, share, homes, ids, paths):
    recv = trusting_daemon(ctx, share, "many-recv", ids)
    daemon, port, _ready = share.start_daemon(recv, "many")
    sampler = MemorySampler()
    sampler.watch("recv", daemon.child_pid())
    procs = []
    try:
        t0 = time.monotonic()
        events = []
        for i, home in enumerate(homes):
            # --json: each pause before coming back to a receiver that turned the connection
            # away is a `busy` event.
            name = ctx.logname(f"share-send-many-{i}")
            events.append(os.path.join(ctx.logs, f"{name}.jsonl"))
            argv = [ctx.args.share, "--home", home, "send", *paths, "--to", f"127.0.0.1:{port}", "--json"]
            with open(events[-1], "wb") as out:
                procs.append(Timed(name, argv, ctx.logs, stdout=out, env=share.env))
        codes = [p.wait(ctx.args.timeout) for p in procs]
        wall = max(p.ended for p in procs) - t0
    finally:
        peaks = sampler.stop().get("recv", {})
        share.stop_daemon(daemon)
    _cpu, rss, _sys = daemon.usage()
    pauses = [busy_events(path) for path in events]
    files, stored = tree_bytes(os.path.join(recv, "Documents", "Inbox"))
    errors = [f"sender {i}: exit {rc}: {p.stderr_tail(300)}" for i, (p, rc) in enumerate(zip(procs, codes)) if rc]
    busy = sum(1 for path, rc in zip(events, codes) if rc and gave_up_busy(path))
    return {"senders": len(homes), "wall": wall, "mbs": stored / wall / 1e6, "completed": codes.count(0), "failed": len(errors),
            "refused": busy, "turned_away": sum(1 for n in pauses if n), "pauses": sum(pauses), "stored_files": files,
            "recv_rss": rss, "recv_anon": peaks.get("anon"), "recv_file": peaks.get("file"), "errors": errors[:5]}


def gave_up_busy(path):
    """Whether a sender's last `failed` event says the receiver was still busy."""
    failed = None
    try:
        with open(path, errors="replace") as f:
            for line in f:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if event.get("event") == "failed":
                    failed = event
    except OSError:
        return False
    return failed is not None and "busy" in json.dumps(failed)


def busy_events(path):
    """How many times a sender paused for a receiver that turned it away (its `busy` events)."""
    try:
        with open(path, errors="replace") as f:
            return sum(1 for line in f if '"event":"busy"' in line.replace(" ", ""))
    except OSError:
        return 0


def measure_fanout(ctx, share):
    """One `share send` to --fanout receivers at once, each a daemon on its own test host
    (scripts/netns-hosts.sh: one link, a bridge), the sender on one more; by HOST:PORT, so the
    figure is the transfer, not discovery. Against the same send to one of them alone."""
    n = ctx.args.fanout
    res = ctx.results.setdefault("fanout", {"error": None, "receivers": n})
    paths = item_files(ctx)
    res["label"] = f"{len(paths)} × 1 MiB"
    log(f"== one send of {res['label']} to {n} receivers on {n} hosts at once")
    daemons = []
    try:
        hosts = make_hosts(n + 1)
        sender, receivers = hosts[0], hosts[1:]
        targets, homes = [], []
        for i, host in enumerate(receivers):
            home = fresh_receiver(share, f"fanout-{i}")
            # A device of its own: copies of one identity are one receiver to `share send`,
            # which sends to a device ID once however many --to lead to it.
            rmtree(os.path.join(home, "identity"))
            d, port, _ready = share.start_daemon(home, f"fanout-{i}", extra=("--host", host.addr, "--name", f"share-bench-r{i + 1}"), host=host)
            daemons.append(d)
            targets += ["--to", f"{host.addr}:{port}"]
            homes.append(home)
        ctx.quiet()
        one = send_from(ctx, share, sender, paths, targets[:2], "one")
        ctx.quiet()
        p = send_from(ctx, share, sender, paths, targets, "all")
    except (BenchError, OSError, subprocess.SubprocessError) as e:
        res["error"] = str(e)
        log(f"   fan-out FAILED: {e}")
        return
    finally:
        for d in daemons:
            share.stop_daemon(d)
    # Receiver 1 got the items twice (alone, then with the others); every other one once.
    counts = [tree_bytes(os.path.join(h, "Documents", "Inbox"))[0] for h in homes]
    stored = sum(1 for i, c in enumerate(counts) if c >= len(paths) * (2 if i == 0 else 1))
    cpu, rss, _ = p.usage()
    res.update(one=one.ended - one.started, all=p.ended - p.started, stored=stored, send_cpu=cpu, send_rss=rss)
    log(f"   to 1: {res['one']:.2f} s; to {n}: {res['all']:.2f} s, {stored}/{n} stored everything")


def send_from(ctx, share, host, paths, targets, tag):
    p = Timed(ctx.logname(f"share-send-fanout-{tag}"), host.prefix() + [ctx.args.share, "--home", share.sender_home, "send", *paths, *targets,
              "--quiet"], ctx.logs, env=host.env())
    rc = p.wait(ctx.args.timeout)
    if rc:
        raise BenchError(f"share send to {len(targets) // 2} receiver(s) exited {rc}: {p.stderr_tail()}")
    return p


def measure_inbox(ctx, share):
    """An Inbox of --inbox-items items, filled by real sends, then `share inbox list` timed
    (median of 3), and the daemon's start to listening with that Inbox against a fresh one
    (medians of --tiny-runs each, interleaved)."""
    n = ctx.args.inbox_items
    res = ctx.results.setdefault("inbox", {"error": None, "items": n})
    log(f"== an Inbox of {n:,} items: filling it by real sends")
    try:
        home, sends, build = fill_inbox(ctx, share, n)
        res.update(sends=sends, build=build)
        res["list"] = []
        for i in range(3):
            ctx.quiet()
            t0 = time.monotonic()
            r = subprocess.run([ctx.args.share, "--home", home, "inbox", "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=share.env)
            res["list"].append(time.monotonic() - t0)
            listed = r.stdout.count(b"\n")
            if r.returncode or listed < n:
                raise BenchError(f"share inbox list exited {r.returncode} with {listed} lines for {n} items: {r.stderr[-300:]!r}")
        res["start_full"], res["start_empty"] = [], []
        for i in range(ctx.args.tiny_runs):
            for key, h in (("start_full", home), ("start_empty", fresh_receiver(share, "inbox-empty"))):
                ctx.quiet()
                d, _port, ready = share.start_daemon(h, "inbox-start")
                share.stop_daemon(d)
                res[key].append(ready)
    except (BenchError, OSError, subprocess.SubprocessError) as e:
        res["error"] = str(e)
        log(f"   big Inbox FAILED: {e}")
        return
    log(f"   inbox list {statistics.median(res['list']):.2f} s; daemon start {statistics.median(res['start_full']) * 1e3:.1f} ms "
        f"(empty: {statistics.median(res['start_empty']) * 1e3:.1f} ms)")


def fill_inbox(ctx, share, n, per_send=10000):
    """A receiving home whose Inbox holds `n` items, sent by `share send` in batches (relative
    paths: the argument list stays under the kernel's limit). Small text files: the receiver
    recognises text without libmagic, so filling it is quick."""
    folder = os.path.join(ctx.src, "inbox-items")
    os.makedirs(folder, exist_ok=True)
    names = [f"n{i:06d}.txt" for i in range(1, n + 1)]
    for name in names:
        with open(os.path.join(folder, name), "w") as f:
            f.write(f"item {name}\n")
    home = fresh_receiver(share, "inbox-big")
    daemon, port, _ready = share.start_daemon(home, "inbox-fill")
    t0, sends = time.monotonic(), 0
    try:
        for k in range(0, n, per_send):
            r = subprocess.run([ctx.args.share, "--home", share.sender_home, "send", *names[k:k + per_send], "--to", f"127.0.0.1:{port}", "--quiet"],
                               cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=share.env, timeout=ctx.args.timeout)
            sends += 1
            if r.returncode:
                raise BenchError(f"filling the Inbox: share send exited {r.returncode}: {r.stdout[-300:]!r}")
    finally:
        share.stop_daemon(daemon)
    return home, sends, time.monotonic() - t0
