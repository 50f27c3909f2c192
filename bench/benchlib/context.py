"""One run's state: the scratch folders, what was measured so far, what is unavailable and why,
and the machine's description for the table's head."""

import datetime
import os
import tempfile
import platform
import time

from .common import GiB, MiB, BenchError, log, rmtree, run_quiet, tree_bytes
from .hosts import in_bench_netns
from .measure import wait_until_quiet
from .procs import REGISTRY


class Context:
    """What every part of the bench shares in one run."""

    SET_ASIDE_MAX = 2 * GiB  # beyond this, received copies are deleted between runs again

    def __init__(self, args):
        self.args = args
        self.scratch = args.scratch
        self.logs = os.path.join(self.scratch, "logs")
        self.src = os.path.join(self.scratch, "src")
        self.dest = os.path.join(self.scratch, "dest")
        self.keys = os.path.join(self.scratch, "keys")
        for d in (self.logs, self.src, self.keys):
            os.makedirs(d, exist_ok=True)
        REGISTRY.pid_file = os.path.join(self.scratch, "pids")
        self.seq = 0
        self.results = {}  # workload -> row id -> {"runs": [per-run dicts], "error": str | None}; or a scenario's own dict
        self.unavailable = {}  # tool -> reason
        self.notes = {}  # tool -> note
        self.info = {}
        self.load = {}  # workload -> [CPU s used by anything but the measured processes, core-seconds elapsed]
        self.waited = 0.0
        self.lost_sigterms = 0
        self.loop_mount = None
        self.set_aside = 0  # bytes of received copies set aside (settle), removed with the scratch folder

    def logname(self, what):
        self.seq += 1
        return f"{self.seq:04d}-{what}"

    def quiet(self):
        """Waits (up to --quiet-wait) until the machine is quiet; counts the wait."""
        if self.args.quiet_wait > 0:
            self.waited += wait_until_quiet(0.15, self.args.quiet_wait)

    def fresh_dest(self):
        rmtree(self.dest)
        os.makedirs(self.dest)
        return self.dest

    def settle(self, w):
        """Between two measurements: nothing dirty in the page cache, sources cached. A received
        copy of many files (up to 512 MiB; 2 GiB in all) is set aside, not deleted, until the
        bench ends (with the scratch folder or the loop file system): on ext4 without a journal
        (this VM's root file system) every file created in the next minutes would first skip,
        one by one, the inodes just freed (recently_deleted() in the kernel's inode allocator),
        costing whichever tool ran next 1-3 s of system time at random. See README, "The
        machine"."""
        if (w.count >= 1000 and w.bytes <= 512 * MiB and self.set_aside + w.bytes <= self.SET_ASIDE_MAX
                and os.path.isdir(self.dest)):
            self.set_aside += w.bytes
            os.rename(self.dest, tempfile.mkdtemp(prefix="dest.set-aside-", dir=os.path.dirname(self.dest)))
        rmtree(self.dest)
        os.sync()
        w.warm()
        if w.bytes >= 256 * MiB:
            time.sleep(0.5)  # let the device finish what sync started (discard of the deleted copy)

    @staticmethod
    def check_dest(w, root, tool):
        files, total = tree_bytes(root)
        if files < w.count or total < w.bytes:
            raise BenchError(f"{tool}: the receiver has {files} files / {total} bytes, expected {w.count} / {w.bytes}")

    def describe_machine(self):
        a = self.args
        self.info["date"] = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
        self.info["cpu"] = cpu_model()
        self.info["cores"] = os.cpu_count()
        self.info["kernel"] = platform.release()
        self.info["openssl"] = run_quiet(["openssl", "version"]).stdout.strip()
        if a.fs == "loop":
            self.mount_loop()
        self.info["scratch"] = f"receivers write to {self.dest_root()} ({describe_fs(self.dest_root())})"
        self.info["netns"] = (f"own network namespace {os.environ['SHARE_BENCH_NETNS']} (scripts/netns-hosts.sh up-lo), lo only"
                              if in_bench_netns() else "host network namespace (loopback addresses only)")

    def dest_root(self):
        return os.path.dirname(self.dest)

    def mount_loop(self):
        """--fs loop: receivers write to a fresh ext4 (with a journal, defaults of mkfs.ext4) on a
        sparse image in the scratch folder, attached with direct I/O so the image's own page
        cache does not double-buffer. Unmounted (and the loop device freed) by unmount_loop()."""
        a = self.args
        img = os.path.join(self.scratch, "fs.img")
        mnt = os.path.join(self.scratch, "mnt")
        size = 3 * a.big + 4 * GiB
        with open(img, "wb") as f:
            f.truncate(size)
        r = run_quiet(["mkfs.ext4", "-q", "-F", "-E", "nodiscard", img])
        if r.returncode:
            raise BenchError(f"mkfs.ext4: {r.stdout}")
        r = run_quiet(["losetup", "--direct-io=on", "--find", "--show", img])
        if r.returncode:
            raise BenchError(f"losetup (needs root): {r.stdout}")
        dev = r.stdout.strip()
        os.makedirs(mnt, exist_ok=True)
        r = run_quiet(["mount", dev, mnt])
        run_quiet(["losetup", "-d", dev])  # autoclear: the device goes away with the unmount
        if r.returncode:
            raise BenchError(f"mount {dev}: {r.stdout}")
        self.loop_mount = mnt
        self.dest = os.path.join(mnt, "dest")

    def unmount_loop(self):
        if self.loop_mount:
            rmtree(self.dest)
            r = run_quiet(["umount", self.loop_mount])
            if r.returncode:
                log(f"could not unmount {self.loop_mount}: {r.stdout.strip()}")


def describe_fs(path):
    """File system type, device, journal or not, and mount options that matter for the figures."""
    r = run_quiet(["findmnt", "-n", "-o", "FSTYPE,SOURCE,OPTIONS", "-T", path]).stdout.split()
    if len(r) < 3:
        return "unknown file system"
    fstype, source, options = r[0], r[1], r[2].split(",")
    desc = [fstype, source]
    if fstype == "ext4":
        task = f"/sys/fs/ext4/{os.path.basename(os.path.realpath(source))}/journal_task"
        try:
            with open(task) as f:
                desc.append("no journal" if f.read().strip() == "<none>" else "journal")
        except OSError:
            pass
    desc += [o for o in options if o in ("discard", "nobarrier", "data=writeback", "sync")]
    return ", ".join(desc)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
