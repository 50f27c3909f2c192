"""The command line: every option of bench/run.sh, and the defaults --quick changes."""

import argparse
import os

from .common import GiB, HERE, KiB, MiB, REPO, parse_size

ALL_TOOLS = ["ref", "disk", "scp", "rsync", "wormhole", "share"]
EXTRA_TOOLS = ["rsync-fsync"]  # not in the default set
ALL_WORKLOADS = ["big", "mid", "small", "mixed", "photos", "tiny", "start", "idle", "newname", "visible", "senders", "fanout",
                 "inbox", "speed"]


def parse_args():
    p = argparse.ArgumentParser(prog="bench/run.sh", description="share benchmark: limit, peers and share, side by side on loopback.")
    p.add_argument("--quick", action="store_true", help="a short run: 256 MiB instead of 2 GiB, 1,000 small files, 500 mixed, 50 photos, 10 senders, an Inbox of 10,000; 1 run each, 5 for 1 KiB")
    p.add_argument("--runs", type=int, help="runs per figure (default 3; --quick 1)")
    p.add_argument("--tiny-runs", type=int, help="runs for the 1 KiB end-to-end and daemon start (default 10; --quick 5)")
    p.add_argument("--visible-runs", type=int, help="runs of daemon start → visible on another host (default 5; --quick 3)")
    p.add_argument("--big", type=parse_size, help="size of the big file (default 2G; --quick 256M)")
    p.add_argument("--mid", type=parse_size, default=64 * MiB, help="size of the mid file (default 64M)")
    p.add_argument("--small-count", type=int, help="number of small files (default 5000; --quick 1000)")
    p.add_argument("--small-size", type=parse_size, default=4 * KiB, help="size of each small file (default 4K)")
    p.add_argument("--mixed-count", type=int, help="number of real files from /usr/share in the mixed folder (default 3000; --quick 500)")
    p.add_argument("--photos", type=int, help="number of JPEGs (2-5 MB) in the photo folder (default 500; --quick 50)")
    p.add_argument("--senders", type=int, help="senders at once to one daemon (default 50; --quick 10)")
    p.add_argument("--sender-items", type=int, default=20, help="items of 1 MiB each of those senders sends (default 20)")
    p.add_argument("--fanout", type=int, default=8, help="receivers of one send, each on its own network-namespace host (default 8)")
    p.add_argument("--inbox-items", type=int, help="items in the big Inbox (default 100000; --quick 10000)")
    p.add_argument("--tools", default=",".join(ALL_TOOLS), help=f"comma-separated, from: {','.join(ALL_TOOLS + EXTRA_TOOLS)} (default: all but rsync-fsync)")
    p.add_argument("--workloads", default=",".join(ALL_WORKLOADS), help=f"comma-separated, from: {','.join(ALL_WORKLOADS)} (default: all)")
    p.add_argument("--order", choices=["rotate", "fixed"], default="rotate", help="tool order within each round: rotated by one each run (default) or always the table's order")
    p.add_argument("--timeout", type=float, default=900, help="seconds one transfer may take (default 900)")
    p.add_argument("--quiet-wait", type=float, default=120, help="before each measurement, wait up to this many seconds for other processes to leave the machine under 15%% busy (default 120; 0: don't wait)")
    p.add_argument("--no-netns", dest="netns", action="store_false", help="do not enter a fresh network namespace (loopback addresses are still the only targets)")
    p.add_argument("--keep", action="store_true", help="keep the scratch folder (logs, /usr/bin/time reports)")
    p.add_argument("--json", help="also write the raw per-run figures here")
    p.add_argument("--out", help="also write the table here")
    p.add_argument("--scratch", help=argparse.SUPPRESS)
    p.add_argument("--fs", choices=["scratch", "loop"], default="scratch", help="where receivers write: the scratch folder's own file system (default), or a fresh ext4 with a journal on a loop device (root; see README)")
    p.add_argument("--tmp", default=os.environ.get("TMPDIR", "/tmp"), help="where the scratch folder goes (default $TMPDIR or /tmp); must be a real disk for fsync figures to mean anything")
    p.add_argument("--share", default=os.path.join(REPO, ".build", "release", "share"), help=argparse.SUPPRESS)
    p.add_argument("--tls-ref", default=os.path.join(HERE, "bin", "tls_ref"), help=argparse.SUPPRESS)
    p.add_argument("--venv", default=os.path.join(HERE, ".venv"), help=argparse.SUPPRESS)
    args = p.parse_args()
    args.runs = args.runs or (1 if args.quick else 3)
    args.tiny_runs = args.tiny_runs or (5 if args.quick else 10)
    args.visible_runs = args.visible_runs or (3 if args.quick else 5)
    args.big = args.big or (256 * MiB if args.quick else 2 * GiB)
    args.small_count = args.small_count or (1000 if args.quick else 5000)
    args.mixed_count = args.mixed_count or (500 if args.quick else 3000)
    args.photos = args.photos or (50 if args.quick else 500)
    args.senders = args.senders or (10 if args.quick else 50)
    args.inbox_items = args.inbox_items or (10000 if args.quick else 100000)
    for k in ("share", "tls_ref", "venv", "scratch", "out", "json", "tmp"):
        if getattr(args, k):
            setattr(args, k, os.path.abspath(getattr(args, k)))
    args.tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    args.workloads = [t.strip() for t in args.workloads.split(",") if t.strip()]
    for t in args.tools:
        if t not in ALL_TOOLS + EXTRA_TOOLS:
            p.error(f"unknown tool {t}")
    for t in args.workloads:
        if t not in ALL_WORKLOADS:
            p.error(f"unknown workload {t}")
    return args
