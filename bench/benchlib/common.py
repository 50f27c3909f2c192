"""Shared by every part of the bench: sizes, paths, logging, the error type, small file helpers."""

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
TIME = "/usr/bin/time"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bench/
REPO = os.path.dirname(HERE)


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


class BenchError(Exception):
    pass



def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_quiet(argv, **kw):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def rmtree(path):
    """Removes a tree even when it holds read-only folders (share's Inbox uses 0555/0444)."""

    def fix(func, p, _exc):
        try:
            os.chmod(os.path.dirname(p), 0o700)
            os.chmod(p, 0o700)
        except OSError:
            pass
        func(p)

    if not os.path.lexists(path):
        return
    # Every folder writable first (one chmod each), so a big read-only Inbox does not cost an
    # exception and two chmods per file; `fix` still catches whatever is left.
    if os.path.isdir(path) and not os.path.islink(path):
        for root, dirs, _files in os.walk(path):
            for d in dirs:
                p = os.path.join(root, d)
                if not os.path.islink(p):
                    try:
                        os.chmod(p, 0o700)
                    except OSError:
                        pass
    shutil.rmtree(path, onerror=fix)


def tree_bytes(path):
    """(regular files, total bytes) under path."""
    files, total = 0, 0
    for root, _dirs, names in os.walk(path):
        for n in names:
            st = os.lstat(os.path.join(root, n))
            files += 1
            total += st.st_size
    return files, total



def human_size(n):
    for unit, div in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= div and n % div == 0:
            return f"{n // div} {unit}"
    return f"{n} B"


def parse_size(text):
    m = re.fullmatch(r"(\d+)([KMG]?)(i?B)?", text.strip(), re.I)
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {text} (e.g. 2G, 64M, 4K)")
    return int(m.group(1)) * {"": 1, "K": KiB, "M": MiB, "G": GiB}[m.group(2).upper()]

