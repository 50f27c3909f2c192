#!/usr/bin/env python3
"""The share benchmark driver. Run it through bench/run.sh, which installs and builds what it needs.

Measures, side by side on loopback in one run: the physical limit (a minimal TLS 1.3 stream with
OpenSSL, plain disk writes, `openssl speed`), the tools people use today (scp, rsync over an sshd
started here, magic-wormhole with its own mailbox and transit relay), and share (release build,
`share daemon` + `share send --to 127.0.0.1:PORT`, and by name through a private Avahi). Prints one
table; see bench/README.md.

Every process it starts runs in its own session and is killed by its process-group id when the
run ends (normally, on error, or on SIGINT/SIGTERM/SIGHUP); the scratch folder is removed. By
default the whole run happens inside a fresh network namespace that has nothing but `lo`, so no
tool can reach anything but loopback.
"""

import argparse
import datetime
import json
import os
import platform
import re
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
TIME = "/usr/bin/time"
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

ALL_TOOLS = ["ref", "disk", "scp", "rsync", "wormhole", "share"]
EXTRA_TOOLS = ["rsync-fsync"]  # not in the default set
ALL_WORKLOADS = ["big", "mid", "small", "tiny", "start", "visible", "speed"]


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


class BenchError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Processes: every one in its own session, remembered by process-group id, killed at the end.


class Registry:
    """Every process group this run started; `kill_all` ends the ones still alive."""

    def __init__(self):
        self.procs = []
        self.pid_file = None

    def add(self, proc):
        self.procs.append(proc)
        if self.pid_file:
            with open(self.pid_file, "a") as f:
                f.write(f"{proc.pid}\n")

    def kill_all(self):
        """Signals the process group of every process we started and have not reaped yet (a
        reaped one's id may belong to someone else by now), SIGTERM then SIGKILL."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            alive = [p for p in self.procs if p.poll() is None]
            if not alive:
                break
            for p in alive:
                try:
                    os.killpg(p.pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline and any(p.poll() is None for p in alive):
                time.sleep(0.05)


REGISTRY = Registry()


def spawn(argv, *, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=None, env=None, stdin=subprocess.DEVNULL):
    proc = subprocess.Popen(argv, stdout=stdout, stderr=stderr, stdin=stdin, cwd=cwd, env=env, start_new_session=True)
    REGISTRY.add(proc)
    return proc


class Timed:
    """A command run under `/usr/bin/time -v`, which reports its (and its children's) CPU time
    and peak RSS when it exits."""

    def __init__(self, name, argv, logs, *, stdout=None, cwd=None, env=None):
        self.name = name
        self.time_file = os.path.join(logs, f"{name}.time")
        self.err_file = os.path.join(logs, f"{name}.err")
        self.err = open(self.err_file, "wb")
        self.started = time.monotonic()
        self.proc = spawn([TIME, "-v", "-o", self.time_file, *argv], stdout=stdout or subprocess.DEVNULL, stderr=self.err, cwd=cwd, env=env)
        self.ended = None

    def wait(self, timeout):
        """Blocks in waitpid (Popen.wait with a timeout polls, which would add up to 50 ms to
        the measured time); a timer kills the process group if it runs past `timeout`."""
        expired = threading.Event()

        def expire():
            expired.set()
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, expire)
        timer.daemon = True
        timer.start()
        try:
            rc = self.proc.wait()
        finally:
            timer.cancel()
        if self.ended is None:
            self.ended = time.monotonic()
        self.err.close()
        if expired.is_set():
            raise BenchError(f"{self.name} did not finish within {timeout:.0f} s; stderr: {self.stderr_tail()}")
        return rc

    def poll(self):
        rc = self.proc.poll()
        if rc is not None and self.ended is None:
            self.ended = time.monotonic()
        return rc

    def child_pid(self):
        """The measured program's pid (the child of /usr/bin/time)."""
        for _ in range(200):
            try:
                with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as f:
                    kids = f.read().split()
                if kids:
                    return int(kids[0])
            except FileNotFoundError:
                return None
            time.sleep(0.005)
        return None

    def signal_child(self, sig):
        pid = self.child_pid()
        if pid:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def stderr_tail(self, n=600):
        try:
            self.err.flush()
        except ValueError:
            pass
        try:
            with open(self.err_file, "rb") as f:
                data = f.read()
            return data[-n:].decode("utf-8", "replace").strip()
        except OSError:
            return ""

    def usage(self):
        """(cpu seconds, peak RSS bytes, system seconds) from time's report."""
        cpu, rss, sys_s = 0.0, 0, 0.0
        with open(self.time_file) as f:
            for line in f:
                line = line.strip()
                if line.startswith("User time (seconds):"):
                    cpu += float(line.rsplit(":", 1)[1])
                elif line.startswith("System time (seconds):"):
                    sys_s = float(line.rsplit(":", 1)[1])
                    cpu += sys_s
                elif line.startswith("Maximum resident set size (kbytes):"):
                    rss = int(line.rsplit(":", 1)[1]) * 1024
        return cpu, rss, sys_s


def wait_for_line(proc_stdout, pattern, timeout, what):
    """Reads `proc_stdout` (a pipe) until a line matches `pattern`; returns the match."""
    deadline = time.monotonic() + timeout
    buf = b""
    fd = proc_stdout.fileno()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise BenchError(f"{what}: no '{pattern}' line within {timeout} s (got {buf[-300:]!r})")
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            raise BenchError(f"{what}: exited before printing '{pattern}' (got {buf[-300:]!r})")
        buf += chunk
        m = re.search(pattern.encode(), buf)
        if m:
            return m


def wait_for_file_line(path, pattern, timeout, what, proc=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(path, "rb") as f:
                m = re.search(pattern.encode(), f.read())
            if m:
                return m
        except FileNotFoundError:
            pass
        if proc is not None and proc.poll() is not None:
            break
        time.sleep(0.002)
    raise BenchError(f"{what}: no '{pattern}' in {path} within {timeout} s")


def wait_for_port(port, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise BenchError(f"{what}: nothing listens on 127.0.0.1:{port} after {timeout} s")


def cpu_busy():
    """Seconds of CPU the whole machine has spent busy since boot (all cores; idle and iowait excluded)."""
    with open("/proc/stat") as f:
        fields = f.readline().split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def wait_until_quiet(limit, max_wait):
    """Waits (up to max_wait s) until the machine was less than `limit` busy over half a second,
    so a compile elsewhere on the machine does not land in a measurement. Returns seconds waited."""
    cores = os.cpu_count() or 1
    t0 = time.monotonic()
    while True:
        b0, w0 = cpu_busy(), time.monotonic()
        time.sleep(0.5)
        busy = (cpu_busy() - b0) / ((time.monotonic() - w0) * cores)
        waited = time.monotonic() - t0
        if busy < limit or waited >= max_wait:
            return waited


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

    if os.path.lexists(path):
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


# ---------------------------------------------------------------------------------------------
# Discovery: a private D-Bus system bus and avahi-daemon per network namespace


class AvahiHost:
    """One "host" as share's discovery sees it: a network namespace (the bench's own, or one held
    by a `sleep` process made here), a private D-Bus system bus and an avahi-daemon restricted to
    one interface, IPv4 only. It never touches the machine's own Avahi or bus, and no namespace
    it runs in holds anything but `lo` and the bench's own veth pair, so nothing reaches eth0.

    share finds this Avahi through DBUS_SYSTEM_BUS_ADDRESS (libavahi-client talks to
    avahi-daemon only over the system bus); the bus listens on a filesystem socket in the scratch
    folder, so it is reachable from every namespace. avahi-daemon runs in a private mount
    namespace with a tmpfs on /run/avahi-daemon, because it refuses to start while another
    avahi-daemon's pid file there is live (the machine's own, e.g. scripts/avahi-up.sh's). This is
    what scripts/netns-hosts.sh does, with the bench's own names so the two never collide."""

    def __init__(self, root, tag, interface, host_name, netns_pid=None):
        self.dir = os.path.join(root, tag)
        os.makedirs(self.dir, exist_ok=True)
        self.tag, self.interface, self.host_name, self.netns_pid = tag, interface, host_name, netns_pid
        self.socket = os.path.join(self.dir, "dbus.sock")
        self.bus = f"unix:path={self.socket}"
        self.log = os.path.join(self.dir, "avahi.log")
        self.avahi = None

    def prefix(self):
        """argv prefix that runs a command inside this host's network namespace (none: the bench's)."""
        return ["nsenter", f"--net=/proc/{self.netns_pid}/ns/net", "--"] if self.netns_pid else []

    def env(self):
        return dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.bus)

    def avahi_conf(self):
        if self.interface == "lo":
            # The project's own loopback configuration (scripts/avahi/loopback.conf), named.
            with open(os.path.join(REPO, "scripts", "avahi", "loopback.conf")) as f:
                base = f.read()
            return base.replace("[server]\n", f"[server]\nhost-name={self.host_name}\n", 1)
        return f"""# share benchmark, host {self.tag}: mDNS on {self.interface} only, IPv4
[server]
host-name={self.host_name}
allow-interfaces={self.interface}
use-ipv4=yes
use-ipv6=no
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-workstation=no
publish-hinfo=no
publish-addresses=yes
publish-domain=no
[reflector]
enable-reflector=no
[rlimits]
"""

    def start(self):
        for tool in ("dbus-daemon", "avahi-daemon", "nsenter", "unshare"):
            if not shutil.which(tool, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin"):
                raise BenchError(f"{tool} is not installed (scripts/setup.sh installs dbus-daemon and avahi-daemon)")
        dbus_conf = os.path.join(self.dir, "dbus.conf")
        with open(dbus_conf, "w") as f:
            f.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<!-- Private "system" bus of the share benchmark's host {self.tag}. -->
<busconfig>
  <type>system</type>
  <listen>{self.bus}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
  </policy>
  <!-- Who may own and call org.freedesktop.Avahi, as on a real system. -->
  <include ignore_missing="no">/usr/share/dbus-1/system.d/avahi-dbus.conf</include>
</busconfig>
""")
        avahi_conf = os.path.join(self.dir, "avahi.conf")
        with open(avahi_conf, "w") as f:
            f.write(self.avahi_conf())
        dbus_log = open(os.path.join(self.dir, "dbus.log"), "wb")
        bus = spawn(["dbus-daemon", f"--config-file={dbus_conf}", "--nofork", "--nopidfile"], stdout=dbus_log, stderr=dbus_log)
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(self.socket)
                break
            except OSError:
                if bus.poll() is not None or time.monotonic() > deadline:
                    raise BenchError(f"the private dbus-daemon for {self.tag} did not start (see {self.dir}/dbus.log)")
                time.sleep(0.02)
        os.makedirs("/run/avahi-daemon", exist_ok=True)  # the mount point of the private tmpfs
        log_f = open(self.log, "wb")
        self.avahi = spawn(self.prefix() + ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                                            'mount -t tmpfs -o mode=0755 tmpfs /run/avahi-daemon && exec avahi-daemon --no-drop-root --no-chroot -f "$0"',
                                            avahi_conf], stdout=log_f, stderr=log_f, env=self.env())
        try:
            wait_for_file_line(self.log, r"Server startup complete", 15, f"avahi-daemon of {self.tag}", self.avahi)
        except BenchError as e:
            raise BenchError(f"{e}; log: {open(self.log, errors='replace').read()[-400:]}")
        return self


def make_netns():
    """A fresh network namespace, held by a `sleep` in it (registered: killed at the end, and the
    namespace with its interfaces goes away with it). Returns the holder's pid."""
    p = spawn(["unshare", "--net", "--", "sleep", "infinity"])
    own = os.readlink("/proc/self/ns/net")
    for _ in range(500):
        try:
            if os.readlink(f"/proc/{p.pid}/ns/net") != own:
                return p.pid
        except OSError:
            pass
        if p.poll() is not None:
            break
        time.sleep(0.01)
    raise BenchError("unshare --net failed (needs root)")


# ---------------------------------------------------------------------------------------------
# Workloads


class Workload:
    def __init__(self, key, label, paths, nbytes, count, runs, folder=None):
        self.key, self.label, self.paths, self.bytes, self.count, self.runs = key, label, paths, nbytes, count, runs
        self.folder = folder  # the folder holding the files (small), else None

    def warm(self):
        """Reads the sources so every tool starts with them in the page cache."""
        buf = bytearray(4 * MiB)
        for p in self.paths:
            with open(p, "rb", buffering=0) as f:
                while f.readinto(buf):
                    pass


def make_file(path, size):
    if os.path.exists(path) and os.path.getsize(path) == size:
        return
    with open(path, "wb") as f:
        left = size
        while left:
            n = min(left, 4 * MiB)
            f.write(os.urandom(n))
            left -= n


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


# ---------------------------------------------------------------------------------------------
# The bench


class Bench:
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
        self.results = {}  # workload -> tool -> list of per-run dicts
        self.unavailable = {}  # tool -> reason
        self.notes = {}  # tool -> note
        self.info = {}
        self.wormhole_servers = []
        self.lost_sigterms = 0
        self.avahi_lo = None  # the private Avahi on lo in the bench's namespace (by-name rows)
        self.share_env = None  # environment of every share process: which D-Bus (so which Avahi) it sees
        self.load = {}  # workload -> [CPU s used by anything but the measured processes, core-seconds elapsed]
        self.waited = 0.0

    # -- helpers -----------------------------------------------------------------------------

    def logname(self, what):
        self.seq += 1
        return f"{self.seq:04d}-{what}"

    def fresh_dest(self):
        rmtree(self.dest)
        os.makedirs(self.dest)
        return self.dest

    def settle(self, w):
        """Between two measurements: nothing dirty in the page cache, sources cached."""
        rmtree(self.dest)
        os.sync()
        w.warm()
        if w.bytes >= 256 * MiB:
            time.sleep(0.5)  # let the device finish what sync started (discard of the deleted copy)

    def check_dest(self, w, root, tool):
        files, total = tree_bytes(root)
        if files < w.count or total < w.bytes:
            raise BenchError(f"{tool}: the receiver has {files} files / {total} bytes, expected {w.count} / {w.bytes}")

    # -- setup -------------------------------------------------------------------------------

    def prepare(self):
        a = self.args
        self.info["date"] = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
        self.info["cpu"] = self.cpu_model()
        self.info["cores"] = os.cpu_count()
        self.info["kernel"] = platform.release()
        self.info["openssl"] = run_quiet(["openssl", "version"]).stdout.strip()
        if a.fs == "loop":
            self.mount_loop()
        self.info["scratch"] = f"receivers write to {self.dest_root()} ({self.describe_fs(self.dest_root())})"
        self.info["netns"] = "fresh network namespace, lo only" if os.environ.get("SHARE_BENCH_NETNS") == "1" else "host network namespace (loopback addresses only)"

        wl = []
        if "big" in a.workloads:
            wl.append(("big", f"one {human_size(a.big)} file", a.big))
        if "mid" in a.workloads:
            wl.append(("mid", f"one {human_size(a.mid)} file", a.mid))
        self.workloads = []
        for key, label, size in wl:
            path = os.path.join(self.src, f"{key}.bin")
            log(f"making {label} of random bytes")
            make_file(path, size)
            self.workloads.append(Workload(key, label, [path], size, 1, a.runs))
        if "small" in a.workloads:
            folder = os.path.join(self.src, "small")
            os.makedirs(folder, exist_ok=True)
            log(f"making {a.small_count} files of {human_size(a.small_size)}")
            paths = []
            width = max(4, len(str(a.small_count)))
            for i in range(1, a.small_count + 1):
                p = os.path.join(folder, f"f{i:0{width}d}.bin")
                make_file(p, a.small_size)
                paths.append(p)
            label = f"{a.small_count} files of {human_size(a.small_size)}"
            self.workloads.append(Workload("small", label, paths, a.small_count * a.small_size, a.small_count, a.runs, folder))
        if "tiny" in a.workloads:
            path = os.path.join(self.src, "tiny.bin")
            make_file(path, KiB)
            self.workloads.append(Workload("tiny", "one 1 KiB file, end to end", [path], KiB, 1, a.tiny_runs))
        os.sync()

        tools = set(a.tools)
        if "ref" in tools or "tiny" in a.workloads:
            self.make_tls_cert()
        if tools & {"scp", "rsync", "rsync-fsync"}:
            self.prepare_sshd()
        if "wormhole" in tools:
            self.prepare_wormhole()
        if "share" in tools:
            self.prepare_share()

    def dest_root(self):
        return os.path.dirname(self.dest)

    @staticmethod
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

    def mount_loop(self):
        """--fs loop: receivers write to a fresh ext4 (with a journal, defaults of mkfs.ext4) on a
        sparse image in the scratch folder, attached with direct I/O so the image's own page
        cache does not double-buffer. Unmounted (and the loop device freed) by cleanup()."""
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

    @staticmethod
    def cpu_model():
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return platform.processor() or "unknown"

    def make_tls_cert(self):
        self.tls_cert = os.path.join(self.keys, "tls-cert.pem")
        self.tls_key = os.path.join(self.keys, "tls-key.pem")
        r = run_quiet(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                       "-keyout", self.tls_key, "-out", self.tls_cert, "-days", "2", "-subj", "/CN=share-bench"])
        if r.returncode != 0:
            raise BenchError(f"openssl req failed: {r.stdout}")
        if not os.access(self.args.tls_ref, os.X_OK):
            self.unavailable["ref"] = f"{self.args.tls_ref} is not built"

    def prepare_sshd(self):
        sshd = "/usr/sbin/sshd"
        if not os.access(sshd, os.X_OK) or not shutil.which("scp") or not shutil.which("rsync"):
            for t in ("scp", "rsync", "rsync-fsync"):
                self.unavailable[t] = "openssh-server / openssh-client / rsync not installed"
            return
        k = self.keys
        for name in ("ssh_host_ed25519_key", "client_ed25519_key"):
            p = os.path.join(k, name)
            if not os.path.exists(p):
                r = run_quiet(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "share-bench", "-f", p])
                if r.returncode != 0:
                    raise BenchError(f"ssh-keygen: {r.stdout}")
        shutil.copy(os.path.join(k, "client_ed25519_key.pub"), os.path.join(k, "authorized_keys"))
        os.chmod(os.path.join(k, "authorized_keys"), 0o600)
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # sshd's privilege-separation folder
        self.ssh_port = free_port()
        self.sshd_config = os.path.join(k, "sshd_config")
        user = os.environ.get("USER") or run_quiet(["id", "-un"]).stdout.strip()
        self.ssh_user = user
        with open(self.sshd_config, "w") as f:
            f.write(f"""# share benchmark: loopback only, own keys, key auth only
ListenAddress 127.0.0.1
Port {self.ssh_port}
HostKey {k}/ssh_host_ed25519_key
AuthorizedKeysFile {k}/authorized_keys
PidFile none
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowUsers {user}
PrintMotd no
PrintLastLog no
UseDNS no
Subsystem sftp /usr/lib/openssh/sftp-server
# bash reads ~/.bashrc for commands run by sshd unless SHLVL says it is nested: keep the
# user's shell start-up files (pyenv, cargo env, ...) out of scp's and rsync's timings
SetEnv SHLVL=1
""")
        self.ssh_opts = ["-F", "/dev/null", "-i", os.path.join(k, "client_ed25519_key"), "-o", "StrictHostKeyChecking=no",
                         "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR"]
        # Which cipher does the default negotiate? One verbose connection says.
        sshd = self.start_sshd("probe")
        probe_opts = self.ssh_opts[:-2]  # without LogLevel=ERROR
        r = run_quiet(["ssh", "-v", *probe_opts, "-p", str(self.ssh_port), f"{user}@127.0.0.1",
                       "echo shell-ok:$SHLVL"], timeout=30)
        sshd.wait(30)
        m = re.search(r"kex: server->client cipher: (\S+)", r.stdout)
        ok = "shell-ok" in r.stdout
        if not ok:
            for t in ("scp", "rsync", "rsync-fsync"):
                self.unavailable[t] = f"ssh to the bench sshd failed: {r.stdout[-300:]}"
            return
        cipher = m.group(1) if m else "unknown"
        self.info["ssh"] = f"{run_quiet(['ssh', '-V']).stdout.strip()}, default cipher negotiated: {cipher}"
        self.notes["scp"] = "SFTP protocol (scp's default); no fsync"
        self.notes["rsync"] = "over ssh; no fsync"
        self.notes["rsync-fsync"] = "over ssh, --fsync"

    def start_sshd(self, tag):
        """One sshd in debug mode (-d): serves exactly one connection, then exits, so its whole
        process tree (monitor, session, sftp-server or rsync --server) is measured by time."""
        t = Timed(self.logname(f"sshd-{tag}"), ["/usr/sbin/sshd", "-d", "-e", "-f", self.sshd_config], self.logs)
        wait_for_file_line(t.err_file, r"Server listening on 127\.0\.0\.1 port", 10, "sshd", t.proc)
        return t

    def prepare_wormhole(self):
        venv_bin = os.path.join(self.args.venv, "bin")
        need = ["wormhole", "twist"]
        if not all(os.access(os.path.join(venv_bin, n), os.X_OK) for n in need):
            self.unavailable["wormhole"] = f"magic-wormhole not installed in {self.args.venv} (bench/run.sh installs it from PyPI)"
            return
        wdir = os.path.join(self.scratch, "wormhole")
        os.makedirs(wdir, exist_ok=True)
        self.wh_mailbox = free_port()
        self.wh_relay = free_port()
        twist = os.path.join(venv_bin, "twist")
        logs = [open(os.path.join(self.logs, f"wormhole-{n}.log"), "wb") for n in ("mailbox", "relay")]
        self.wormhole_servers.append(spawn([twist, "wormhole-mailbox", f"--port=tcp:{self.wh_mailbox}:interface=127.0.0.1",
                                            f"--channel-db={wdir}/relay.sqlite"], stdout=logs[0], stderr=logs[0], cwd=wdir))
        self.wormhole_servers.append(spawn([twist, "transitrelay", f"--port=tcp:{self.wh_relay}:interface=127.0.0.1"],
                                           stdout=logs[1], stderr=logs[1], cwd=wdir))
        try:
            wait_for_port(self.wh_mailbox, 30, "wormhole mailbox server")
            wait_for_port(self.wh_relay, 30, "wormhole transit relay")
        except BenchError as e:
            self.unavailable["wormhole"] = str(e)
            return
        self.wormhole = os.path.join(venv_bin, "wormhole")
        ver = run_quiet([self.wormhole, "--version"]).stdout.strip()
        self.info["wormhole"] = f"{ver}, mailbox and transit relay servers on 127.0.0.1"
        self.notes["wormhole"] = "no fsync"
        self.wormhole_direct = []

    def prepare_share(self):
        share = self.args.share
        if not os.access(share, os.X_OK):
            self.unavailable["share"] = f"{share} is not built"
            return
        root = os.path.join(self.scratch, "share")
        os.makedirs(root, exist_ok=True)
        self.share_root = root
        # No share process the bench starts may reach the machine's own system bus (and through
        # it the machine's Avahi, where other programs' tests look for peers): each gets either
        # the bench's private bus or one that does not exist (then the daemon says it cannot
        # advertise, retries with backoff, and receives all the same).
        self.share_env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={root}/no-bus.sock")
        if os.environ.get("SHARE_BENCH_NETNS") == "1":
            try:
                self.avahi_lo = AvahiHost(root, "avahi-lo", "lo", "share-bench").start()
                self.share_env = self.avahi_lo.env()
            except BenchError as e:
                self.unavailable["share-name"] = f"no private Avahi: {e}"
        else:
            self.unavailable["share-name"] = "needs root: a private Avahi in the bench's own network namespace"
        self.share_sender_home = os.path.join(root, "sender")
        self.share_template = os.path.join(root, "receiver-template")
        self.share_sender_id = self.make_share_home(self.share_sender_home)
        self.make_share_home(self.share_template, trusting=self.share_sender_id)
        self.share_name = "share-bench-recv"
        self.notes["share"] = "durable (fdatasync/syncfs) before the Receipt; receiver CPU/RSS include daemon start"

    def make_share_home(self, home, trusting=None):
        """A share home with its identity made; a receiver's also trusts `trusting` (so its asks
        go ahead without `share accept`: the consent gate never waits in a measurement) and takes
        any content (bench/receiver-declarations.plist: random bytes are `public.data`, which the
        default declarations refuse). Returns the home's device ID."""
        share = self.args.share
        r = run_quiet([share, "--home", home, "id", "--json"], env=self.share_env)
        if r.returncode != 0:
            raise BenchError(f"share id failed: {r.stdout}")
        try:
            device = json.loads(r.stdout.strip().splitlines()[-1])["id"]
        except (ValueError, KeyError, IndexError):
            raise BenchError(f"share id --json: unexpected output {r.stdout[-300:]!r}")
        if trusting:
            r = run_quiet([share, "--home", home, "trust", "add", trusting, "--name", "bench-sender"], env=self.share_env)
            if r.returncode != 0:
                raise BenchError(f"share trust add failed: {r.stdout}")
            shutil.copy(os.path.join(HERE, "receiver-declarations.plist"), os.path.join(home, "Declarations.plist"))
            r = run_quiet([share, "--home", home, "types"], env=self.share_env)
            if r.returncode != 0 or "public.data" not in r.stdout:
                raise BenchError(f"share types does not take bench/receiver-declarations.plist: {r.stdout[-300:]}")
        return device

    # -- one measurement per tool ------------------------------------------------------------

    def m_ref(self, w, dest, mode):
        """tls_ref: server (receiver) listening first, then the client; wall = client start to both exited.
        mode: "null" (/dev/null), "file" (buffered writes, fsync), "direct" (O_DIRECT writes, fsync)."""
        fsync = mode != "null"
        target = os.path.join(dest, "ref.out") if fsync else "/dev/null"
        srv_argv = [self.args.tls_ref, "server", "--cert", self.tls_cert, "--key", self.tls_key, "--out", target] + (["--fsync"] if fsync else []) + (["--direct"] if mode == "direct" else [])
        srv = Timed(self.logname("ref-server"), srv_argv, self.logs, stdout=subprocess.PIPE)
        m = wait_for_line(srv.proc.stdout, r"listening on port (\d+)", 10, "tls_ref server")
        port = m.group(1).decode()
        t0 = time.monotonic()
        cli = Timed(self.logname("ref-client"), [self.args.tls_ref, "client", "--port", port, "--in", w.paths[0]], self.logs)
        rc_c = cli.wait(self.args.timeout)
        rc_s = srv.wait(30)
        wall = max(cli.ended, srv.ended) - t0
        if rc_c or rc_s:
            raise BenchError(f"tls_ref failed: client {rc_c} {cli.stderr_tail()} server {rc_s} {srv.stderr_tail()}")
        if fsync:
            self.check_dest(w, dest, "tls_ref")
        return self.row(wall, cli, srv)

    def m_disk(self, w, dest, mode):
        """mode: "none" (no fsync), "fsync", "direct" (O_DIRECT and fsync); a folder is copied with cp -r (+ syncfs)."""
        if w.folder:
            target = os.path.join(dest, "small")
            cmd = 'cp -r "$1" "$2"' + (' && sync -f "$2"' if mode != "none" else "")
            argv = ["sh", "-c", cmd, "sh", w.folder, target]
        else:
            argv = (["dd", f"if={w.paths[0]}", f"of={os.path.join(dest, 'dd.out')}", "bs=1M", "status=none"]
                    + (["conv=fsync"] if mode != "none" else []) + (["oflag=direct"] if mode == "direct" else []))
        t0 = time.monotonic()
        p = Timed(self.logname("disk"), argv, self.logs)
        rc = p.wait(self.args.timeout)
        wall = p.ended - t0
        if rc:
            raise BenchError(f"disk write failed: {p.stderr_tail()}")
        self.check_dest(w, dest, "disk")
        return self.row(wall, p, None)

    def m_scp(self, w, dest):
        sshd = self.start_sshd("scp")
        src = [w.folder] if w.folder else w.paths
        argv = ["scp", *self.ssh_opts, "-q", "-P", str(self.ssh_port)] + (["-r"] if w.folder else []) + src + [f"{self.ssh_user}@127.0.0.1:{dest}/"]
        t0 = time.monotonic()
        p = Timed(self.logname("scp"), argv, self.logs)
        rc = p.wait(self.args.timeout)
        wall = p.ended - t0
        sshd.wait(30)
        if rc:
            raise BenchError(f"scp failed ({rc}): {p.stderr_tail()} / sshd: {sshd.stderr_tail()}")
        self.check_dest(w, dest, "scp")
        return self.row(wall, p, sshd)

    def m_rsync(self, w, dest, extra=()):
        sshd = self.start_sshd("rsync")
        ssh = " ".join(["ssh", *self.ssh_opts, "-p", str(self.ssh_port)])
        src = [w.folder + "/"] if w.folder else w.paths
        argv = ["rsync", "-e", ssh, *extra] + (["-r"] if w.folder else []) + src + [f"{self.ssh_user}@127.0.0.1:{dest}/"]
        t0 = time.monotonic()
        p = Timed(self.logname("rsync"), argv, self.logs)
        rc = p.wait(self.args.timeout)
        wall = p.ended - t0
        sshd.wait(30)
        if rc:
            raise BenchError(f"rsync failed ({rc}): {p.stderr_tail()} / sshd: {sshd.stderr_tail()}")
        self.check_dest(w, dest, "rsync")
        return self.row(wall, p, sshd)

    def m_rsync_fsync(self, w, dest):
        return self.m_rsync(w, dest, extra=["--fsync"])

    def m_wormhole(self, w, dest):
        """Sender and receiver start together with a fixed code; wall = start to both exited."""
        self.seq += 1
        code = f"{self.seq}-share-bench"
        common = [self.wormhole, "--relay-url", f"ws://127.0.0.1:{self.wh_mailbox}/v1", "--transit-helper", f"tcp:127.0.0.1:{self.wh_relay}"]
        what = w.folder if w.folder else w.paths[0]
        env = dict(os.environ, WORMHOLE_QR="0")
        # Outside our own network namespace, direct-connection hints would name this machine's
        # other addresses: then both sides stay off them and go through the loopback relay.
        listen = [] if os.environ.get("SHARE_BENCH_NETNS") == "1" else ["--no-listen"]
        t0 = time.monotonic()
        snd = Timed(self.logname("wormhole-send"), common + ["send", "--hide-progress", "--no-qr", *listen, "--code", code, what], self.logs, env=env)
        rcv = Timed(self.logname("wormhole-receive"), common + ["receive", "--hide-progress", *listen, "--accept-file", code], self.logs, cwd=dest, env=env)
        rc_r = rcv.wait(self.args.timeout)
        rc_s = snd.wait(60)
        wall = max(snd.ended, rcv.ended) - t0
        if rc_r or rc_s:
            raise BenchError(f"wormhole failed: send {rc_s} {snd.stderr_tail()} / receive {rc_r} {rcv.stderr_tail()}")
        err = rcv.stderr_tail(4000) + snd.stderr_tail(4000)  # "(->tcp:HOST:PORT)" direct, "(->relay:...)" relayed
        self.wormhole_direct.append("relay" not in err and f":{self.wh_relay})" not in err)
        self.check_dest(w, dest, "wormhole")
        return self.row(wall, snd, rcv)

    def start_daemon(self, home, tag, extra=("--host", "127.0.0.1"), host=None):
        """A fresh `share daemon` under time -v (on `host`: an AvahiHost, default the bench's own
        namespace); returns (Timed, port, seconds from spawn to the listening line)."""
        prefix, env = (host.prefix(), host.env()) if host else ([], self.share_env)
        t = Timed(self.logname(f"share-daemon-{tag}"), prefix + [self.args.share, "--home", home, "daemon", "--port", "0", *extra],
                  self.logs, stdout=subprocess.PIPE, env=env)
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
        arrived right after its `listening` line); counted in self.lost_sigterms."""
        for attempt in range(40):
            d.signal_child(signal.SIGTERM)
            try:
                rc = d.proc.wait(timeout=0.5)
                break
            except subprocess.TimeoutExpired:
                self.lost_sigterms += 1
        rc = d.wait(30)
        if rc != 0:
            raise BenchError(f"share daemon exited {rc} on SIGTERM: {d.stderr_tail()}")

    def m_share(self, w, dest):
        home = os.path.join(dest, "home")
        shutil.copytree(self.share_template, home, symlinks=True)
        daemon, port, ready = self.start_daemon(home, "recv")
        try:
            argv = [self.args.share, "--home", self.share_sender_home, "send", *w.paths, "--to", f"127.0.0.1:{port}", "--quiet"]
            t0 = time.monotonic()
            p = Timed(self.logname("share-send"), argv, self.logs, env=self.share_env)
            rc = p.wait(self.args.timeout)
            wall = p.ended - t0
        finally:
            self.stop_daemon(daemon)
        if rc:
            raise BenchError(f"share send exited {rc}: {p.stderr_tail()} / daemon: {daemon.stderr_tail()}")
        self.check_dest(w, os.path.join(home, "Documents", "Inbox"), "share")
        r = self.row(wall, p, daemon)
        r["ready"] = ready
        return r

    def m_share_name(self, w, dest):
        """1 KiB by name: `share send FILE --to NAME` through the private Avahi on lo, after a
        first send by name to the same daemon (so this home knows the name's ID and Avahi's cache
        holds the service: the sender stops browsing as soon as the cache answers)."""
        home = os.path.join(dest, "home")
        shutil.copytree(self.share_template, home, symlinks=True)
        daemon, _port, ready = self.start_daemon(home, "name", extra=("--host", "127.0.0.1", "--name", self.share_name))
        try:
            self.wait_advertised(daemon, self.share_name)
            argv = [self.args.share, "--home", self.share_sender_home, "send", *w.paths, "--to", self.share_name, "--quiet"]
            first = Timed(self.logname("share-send-name-first"), argv, self.logs, env=self.share_env)
            if first.wait(60):
                raise BenchError(f"first share send by name failed: {first.stderr_tail()} / daemon: {daemon.stderr_tail()}")
            t0 = time.monotonic()
            p = Timed(self.logname("share-send-name"), argv, self.logs, env=self.share_env)
            rc = p.wait(self.args.timeout)
            wall = p.ended - t0
        finally:
            self.stop_daemon(daemon)
        if rc:
            raise BenchError(f"share send --to {self.share_name} exited {rc}: {p.stderr_tail()} / daemon: {daemon.stderr_tail()}")
        files, _ = tree_bytes(os.path.join(home, "Documents", "Inbox"))
        if files != 2:
            raise BenchError(f"share by name: {files} items in the Inbox, expected 2 (the first send and the measured one)")
        r = self.row(wall, p, daemon)
        r["ready"] = ready
        r["first"] = first.ended - first.started
        return r

    @staticmethod
    def row(wall, sender, receiver):
        s_cpu, s_rss, s_sys = sender.usage()
        r = {"wall": wall, "send_cpu": s_cpu, "send_rss": s_rss, "send_sys": s_sys}
        if receiver is not None:
            r_cpu, r_rss, r_sys = receiver.usage()
            r.update(recv_cpu=r_cpu, recv_rss=r_rss, recv_sys=r_sys)
        return r

    # -- the plan ----------------------------------------------------------------------------

    def rows_for(self, w):
        """(row id, tool, measuring function) in table order for one workload."""
        t = set(self.args.tools)
        rows = []
        if "ref" in t and w.key != "small":
            if w.key != "tiny":
                rows.append(("ref-null", "ref", lambda w, d: self.m_ref(w, d, "null")))
            rows.append(("ref-file", "ref", lambda w, d: self.m_ref(w, d, "file")))
            if w.key != "tiny":
                rows.append(("ref-direct", "ref", lambda w, d: self.m_ref(w, d, "direct")))
        if "disk" in t and w.key != "tiny":
            rows.append(("disk", "disk", lambda w, d: self.m_disk(w, d, "none")))
            rows.append(("disk-fsync", "disk", lambda w, d: self.m_disk(w, d, "fsync")))
            if not w.folder:
                rows.append(("disk-direct", "disk", lambda w, d: self.m_disk(w, d, "direct")))
        for tool in ("scp", "rsync", "rsync-fsync", "wormhole", "share"):
            if tool in t:
                fn = {"scp": self.m_scp, "rsync": self.m_rsync, "rsync-fsync": self.m_rsync_fsync,
                      "wormhole": self.m_wormhole, "share": self.m_share}[tool]
                rows.append((tool, tool, fn))
        if "share" in t and w.key == "tiny":
            rows.append(("share-name", "share-name", self.m_share_name))
        return rows

    def run(self):
        for w in self.workloads:
            rows = self.rows_for(w)
            res = self.results.setdefault(w.key, {})
            log(f"== {w.label}: {w.runs} run(s) of {', '.join(r[0] for r in rows)}")
            for i in range(w.runs):
                # Interleaved (run i of every tool, then run i+1) and rotated, so that no tool
                # always follows the same one: what the previous tool left behind (freed page
                # cache the hypervisor has to back again, deleted inodes) moves around.
                k = i % len(rows) if self.args.order == "rotate" else 0
                for rid, tool, fn in rows[k:] + rows[:k]:
                    if tool in self.unavailable:
                        continue
                    entry = res.setdefault(rid, {"runs": [], "error": None})
                    if entry["error"]:
                        continue
                    self.settle(w)
                    dest = self.fresh_dest()
                    if self.args.quiet_wait > 0:
                        self.waited += wait_until_quiet(0.15, self.args.quiet_wait)
                    try:
                        b0, t0 = cpu_busy(), time.monotonic()
                        r = fn(w, dest)
                        span, busy = time.monotonic() - t0, cpu_busy() - b0
                        ours = r["send_cpu"] + r.get("recv_cpu", 0.0)
                        load = self.load.setdefault(w.key, [0.0, 0.0])
                        load[0] += max(0.0, busy - ours)
                        load[1] += span * (os.cpu_count() or 1)
                        entry["runs"].append(r)
                        log(f"   {w.key} run {i + 1}/{w.runs} {rid:<11} {r['wall']:.3f} s")
                    except (BenchError, OSError, subprocess.SubprocessError) as e:
                        entry["error"] = str(e)
                        log(f"   {w.key} run {i + 1}/{w.runs} {rid:<11} FAILED: {e}")
            rmtree(self.dest)
        if "start" in self.args.workloads and "share" in self.args.tools and "share" not in self.unavailable:
            self.measure_start()
        if "visible" in self.args.workloads and "share" in self.args.tools and "share" not in self.unavailable:
            self.measure_visible()
        if "speed" in self.args.workloads:
            self.measure_speed()

    def measure_start(self):
        """Daemon spawn to its `listening` line, identity already made (as on every start but the first)."""
        log(f"== share daemon start: {self.args.tiny_runs} spawns")
        times, first = [], []
        for i in range(self.args.tiny_runs):
            home = os.path.join(self.scratch, "share", f"start-{i}")
            rmtree(home)
            shutil.copytree(self.share_template, home, symlinks=True)
            d, _port, ready = self.start_daemon(home, "start")
            self.stop_daemon(d)
            times.append(ready)
            rmtree(home)
        for i in range(min(3, self.args.tiny_runs)):  # the very first start also makes the identity
            home = os.path.join(self.scratch, "share", f"first-{i}")
            rmtree(home)
            d, _port, ready = self.start_daemon(home, "first")
            self.stop_daemon(d)
            first.append(ready)
            rmtree(home)
        self.results["start"] = {"warm": times, "first": first}

    def make_hosts(self):
        """Two hosts for the discovery figures, A (198.18.10.1) and B (198.18.10.2): fresh network
        namespaces made here, joined by a veth pair, each with its own bus and Avahi on its veth.
        Anonymous (held by processes, no /run/netns names), so they never collide with
        scripts/netns-hosts.sh's share-a/share-b, which the test suite may bring up and down
        while the bench runs."""
        if os.environ.get("SHARE_BENCH_NETNS") != "1":
            raise BenchError("needs root: the bench's own network namespaces")
        pids = [make_netns(), make_netns()]
        r = run_quiet(["ip", "link", "add", "vbench-a", "netns", str(pids[0]), "type", "veth",
                       "peer", "name", "vbench-b", "netns", str(pids[1])])
        if r.returncode:
            raise BenchError(f"ip link add (veth): {r.stdout.strip()}")
        hosts = []
        for i, (tag, pid) in enumerate(zip("ab", pids)):
            host = AvahiHost(self.share_root, f"host-{tag}", f"vbench-{tag}", f"share-bench-{tag}", netns_pid=pid)
            for cmd in (["ip", "link", "set", "lo", "up"], ["ip", "addr", "add", f"198.18.10.{i + 1}/24", "dev", host.interface],
                        ["ip", "link", "set", host.interface, "up"]):
                r = run_quiet(host.prefix() + cmd)
                if r.returncode:
                    raise BenchError(f"{' '.join(cmd)} in host {tag}: {r.stdout.strip()}")
            hosts.append(host.start())
        return hosts

    def measure_visible(self):
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
        runs = self.args.visible_runs
        log(f"== share daemon start → visible on another host: {runs} runs each of watch and poll, and 1 KiB by name across the veth")
        res = self.results.setdefault("visible", {"watch": [], "poll": [], "registered": [], "first_send": [], "warm_send": [],
                                                   "send_cpu": [], "send_rss": [], "error": None})
        try:
            host_a, host_b = self.make_hosts()
        except BenchError as e:
            res["error"] = str(e)
            log(f"   hosts A and B: FAILED: {e}")
            return
        share = self.args.share
        home_b = os.path.join(self.share_root, "visible-b")
        b_id = self.make_share_home(home_b)
        tiny = os.path.join(self.src, "tiny.bin")
        make_file(tiny, KiB)
        for i in range(2 * runs):
            mode = "watch" if i % 2 == 0 else "poll"
            name = f"share-bench-a{i + 1}"
            home_a = os.path.join(self.share_root, f"visible-a{i + 1}")
            self.make_share_home(home_a, trusting=b_id)
            if self.args.quiet_wait > 0:
                self.waited += wait_until_quiet(0.15, self.args.quiet_wait)
            watcher, daemon, sends = None, None, []
            try:
                if mode == "watch":
                    # B browses first; a reader thread stamps each line as it arrives.
                    watcher = spawn(host_b.prefix() + [share, "--home", home_b, "peers", "--watch", "--json"], stdout=subprocess.PIPE, env=host_b.env())
                    lines, arrived = [], threading.Event()

                    def read(proc=watcher, lines=lines, arrived=arrived):
                        for raw in proc.stdout:
                            lines.append((time.monotonic(), raw))
                            arrived.set()

                    threading.Thread(target=read, daemon=True).start()
                    time.sleep(1.5)
                    daemon, port, _ready = self.start_daemon(home_a, "visible", extra=("--name", name), host=host_a)
                    t0, seen = daemon.started, None
                    deadline = time.monotonic() + 30
                    while seen is None and time.monotonic() < deadline:
                        arrived.wait(0.2)
                        arrived.clear()
                        seen = next((t for t, raw in list(lines) if self.peer_line_is(raw, name, int(port))), None)
                    if seen is None:
                        raise BenchError(f"{name} (port {port}) did not appear in share peers --watch on host B within 30 s")
                    visible = seen - t0
                else:
                    polled = []

                    def poll(t_start, polled=polled):
                        while time.monotonic() - t_start < 30:
                            r = subprocess.run(host_b.prefix() + [share, "--home", home_b, "peers", "--json", "--timeout", "5"],
                                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=host_b.env())
                            if any(self.peer_line_is(raw, name, None) for raw in r.stdout.splitlines()):
                                polled.append(time.monotonic() - t_start)
                                return

                    poller = threading.Thread(target=poll, args=(time.monotonic(),), daemon=True)
                    poller.start()  # a few ms before the daemon's spawn: counted against it
                    daemon, port, _ready = self.start_daemon(home_a, "visible", extra=("--name", name), host=host_a)
                    poller.join(35)
                    if not polled:
                        raise BenchError(f"{name} was not listed by share peers (polled) on host B within 30 s")
                    visible = polled[0]
                    argv = host_b.prefix() + [share, "--home", home_b, "send", tiny, "--to", name, "--quiet"]
                    for k in range(4):
                        p = Timed(self.logname(f"share-send-across-{k}"), argv, self.logs, env=host_b.env())
                        if p.wait(60):
                            raise BenchError(f"share send --to {name} on host B failed: {p.stderr_tail()} / daemon: {daemon.stderr_tail()}")
                        sends.append((p.ended - p.started, p))
                    files, _ = tree_bytes(os.path.join(home_a, "Documents", "Inbox"))
                    if files != 4:
                        raise BenchError(f"host A's Inbox holds {files} items, expected 4")
                registered = self.wait_advertised(daemon, name)
            except (BenchError, OSError, subprocess.SubprocessError) as e:
                res["error"] = str(e)
                log(f"   visible run {i + 1}/{2 * runs} ({mode}) FAILED: {e}")
                return
            finally:
                if watcher is not None:
                    try:
                        os.killpg(watcher.pid, signal.SIGTERM)
                    except ProcessLookupError:
                        pass
                    watcher.wait(10)
                if daemon is not None:
                    self.stop_daemon(daemon)
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

    @staticmethod
    def peer_line_is(raw, name, port):
        """Whether one `share peers --json` line is the peer advertised as `name` (at `port`)."""
        try:
            peer = json.loads(raw)
        except ValueError:
            return False
        if not isinstance(peer, dict) or (peer.get("name") != name and name not in (peer.get("aliases") or [])):
            return False
        return port is None or any(a.get("port") == port for a in peer.get("addresses") or [])

    def measure_speed(self):
        log("== openssl speed")
        out = {}
        for alg in ("aes-128-gcm", "chacha20-poly1305", "sha256"):
            r = run_quiet(["openssl", "speed", "-seconds", "1", "-bytes", "16384", "-mr", "-evp", alg], timeout=60)
            m = re.search(r"^\+F:\d+:[^:]+:([\d.]+)", r.stdout, re.M)
            out[alg] = float(m.group(1)) if m else None
        r = run_quiet(["openssl", "speed", "-seconds", "1", "-mr", "ed25519"], timeout=60)
        m = re.search(r"^\+F6:\d+:\d+:Ed25519:([\d.]+):([\d.]+)", r.stdout, re.M)
        out["ed25519"] = (float(m.group(1)), float(m.group(2))) if m else None
        self.results["speed"] = out

    # -- the table ---------------------------------------------------------------------------

    def summary(self, wkey, rid):
        entry = self.results.get(wkey, {}).get(rid)
        if not entry or not entry["runs"]:
            return None
        runs = entry["runs"]
        s = {"n": len(runs)}
        for k in ("wall", "send_cpu", "recv_cpu", "send_rss", "recv_rss", "ready", "first"):
            vals = [r[k] for r in runs if k in r]
            if vals:
                s[k] = statistics.median(vals)
        walls = [r["wall"] for r in runs]
        s["spread"] = (max(walls) - min(walls)) / 2 / s["wall"] if len(walls) > 1 and s["wall"] > 0 else None
        return s

    LABELS = {
        "ref-null": "limit: TLS ref → /dev/null",
        "ref-file": "limit: TLS ref → file+fsync",
        "ref-direct": "limit: TLS ref → direct+fsync",
        "disk-direct": "limit: disk write O_DIRECT",
        "disk": "limit: disk write, no fsync",
        "disk-fsync": "limit: disk write + fsync",
        "scp": "scp",
        "rsync": "rsync",
        "rsync-fsync": "rsync --fsync",
        "wormhole": "magic-wormhole",
        "share": "share (HOST:PORT)",
        "share-name": "share by name (cache warm)",
    }

    def status(self, wkey, rid, tool):
        if tool in self.unavailable:
            return f"n/a: {self.unavailable[tool]}"
        entry = self.results.get(wkey, {}).get(rid)
        if entry and entry["error"] and not entry["runs"]:
            return f"FAILED: {entry['error'][:160]}"
        if entry and entry["error"]:
            return f"partly failed: {entry['error'][:120]}"
        return None

    def table(self):
        out = []
        a = self.args
        out.append("share benchmark — " + self.info.get("date", ""))
        out.append(f"machine: {self.info.get('cpu')}, {self.info.get('cores')} cores, Linux {self.info.get('kernel')}, {self.info.get('openssl')}")
        out.append(f"network: {self.info.get('netns')}; scratch: {self.info.get('scratch')}")
        for k in ("ssh", "wormhole"):
            if k in self.info:
                out.append(f"{k}: {self.info[k]}")
        out.append(f"each figure: median of {a.runs} run(s) ({a.tiny_runs} for 1 KiB); ±% = half the range of the wall times over the median; "
                   "MB = 10^6 bytes; CPU = user+sys s of the process tree; RSS = peak resident set of the largest process in the tree, MiB")
        out.append("between runs: received copy deleted, sync, sources re-read so they are in the page cache (no cache drop)"
                   + (f"; waited {self.waited:.0f} s in all for the machine to be quiet" if self.waited >= 1 else ""))

        def fmt(v, spec):
            if v is None:
                width = re.match(r"\d*", spec).group(0)
                return "—".rjust(int(width) if width else 0)
            return format(v, spec)

        for w in self.workloads:
            out.append("")
            load = self.load.get(w.key)
            other = f"; CPU busy outside the measured processes during its runs: {100 * load[0] / load[1]:.0f}% of the machine" if load and load[1] else ""
            out.append(f"== {w.label}" + (f" ({w.bytes / 1e6:.1f} MB)" if w.key != "tiny" else "") + other)
            rows = self.rows_for(w)
            if w.key in ("big", "mid"):
                ref = self.summary(w.key, "ref-file")
                out.append(f"{'':30} {'wall s':>8} {'±%':>4} {'MB/s':>7} {'×ref':>5} {'CPU s snd':>9} {'CPU s rcv':>9} {'CPU s/GiB':>9} {'×ref':>5} {'RSS snd':>7} {'RSS rcv':>7}  note")
                for rid, tool, _ in rows:
                    s, st = self.summary(w.key, rid), self.status(w.key, rid, tool)
                    if s is None:
                        out.append(f"{self.LABELS[rid]:30} {st or 'no data'}")
                        continue
                    mbs = w.bytes / s["wall"] / 1e6
                    cpu = s["send_cpu"] + s.get("recv_cpu", 0.0)
                    cpg = cpu / (w.bytes / GiB)
                    xr = xc = None
                    if ref:
                        xr = ref["wall"] / s["wall"]
                        rc = (ref["send_cpu"] + ref.get("recv_cpu", 0)) / (w.bytes / GiB)
                        xc = cpg / rc if rc else None
                    note = st or self.notes.get(tool, "")
                    if rid == "wormhole" and self.wormhole_direct:
                        note += (", direct" if all(self.wormhole_direct) else ", via the loopback relay"
                                 if not any(self.wormhole_direct) else ", via the relay in some runs")
                    out.append(f"{self.LABELS[rid]:30} {s['wall']:8.2f} {fmt(s['spread'] and 100 * s['spread'], '4.0f')} {mbs:7.0f} {fmt(xr, '5.2f')} {s['send_cpu']:9.2f} {fmt(s.get('recv_cpu'), '9.2f')} "
                               f"{cpg:9.2f} {fmt(xc, '5.2f')} {s['send_rss'] / MiB:7.1f} {fmt(s['recv_rss'] / MiB if 'recv_rss' in s else None, '7.1f')}  {note}")
            elif w.key == "small":
                base = self.summary(w.key, "rsync")
                out.append(f"{'':30} {'wall s':>8} {'±%':>4} {'files/s':>8} {'×rsync':>6} {'MB/s':>6} {'CPU s snd':>9} {'CPU s rcv':>9} {'RSS snd':>7} {'RSS rcv':>7}  note")
                for rid, tool, _ in rows:
                    s, st = self.summary(w.key, rid), self.status(w.key, rid, tool)
                    if s is None:
                        out.append(f"{self.LABELS[rid]:30} {st or 'no data'}")
                        continue
                    fps = w.count / s["wall"]
                    xr = base["wall"] / s["wall"] if base else None
                    note = st or self.notes.get(tool, "")
                    if rid == "disk":
                        note = "cp -r"
                    elif rid == "disk-fsync":
                        note = "cp -r, then syncfs"
                    elif rid == "wormhole":
                        note += ", folder sent as a zip"
                    elif rid == "share":
                        note += f"; {w.count} paths in one send"
                    out.append(f"{self.LABELS[rid]:30} {s['wall']:8.2f} {fmt(s['spread'] and 100 * s['spread'], '4.0f')} {fps:8.0f} {fmt(xr, '6.2f')} {w.bytes / s['wall'] / 1e6:6.1f} {s['send_cpu']:9.2f} "
                               f"{fmt(s.get('recv_cpu'), '9.2f')} {s['send_rss'] / MiB:7.1f} {fmt(s['recv_rss'] / MiB if 'recv_rss' in s else None, '7.1f')}  {note}")
            else:  # tiny
                base = self.summary(w.key, "scp")
                out.append(f"{'':30} {'ms':>8} {'±%':>4} {'×scp':>6} {'CPU ms snd':>10} {'CPU ms rcv':>10} {'RSS snd':>7} {'RSS rcv':>7}  note")
                for rid, tool, _ in rows:
                    s, st = self.summary(w.key, rid), self.status(w.key, rid, tool)
                    if s is None:
                        out.append(f"{self.LABELS[rid]:30} {st or 'no data'}")
                        continue
                    xr = s["wall"] / base["wall"] if base else None
                    note = st or ("process start to stored" if rid != "ref-file" else "client start to server exit, fsync")
                    if rid == "share-name" and not st:
                        note += "; Avahi on lo; name known, cache warm; rcv CPU/RSS include daemon start and a first send"
                    out.append(f"{self.LABELS[rid]:30} {s['wall'] * 1e3:8.1f} {fmt(s['spread'] and 100 * s['spread'], '4.0f')} {fmt(xr, '6.2f')} {s['send_cpu'] * 1e3:10.0f} "
                               f"{fmt(s['recv_cpu'] * 1e3 if 'recv_cpu' in s else None, '10.0f')} "
                               f"{s['send_rss'] / MiB:7.1f} {fmt(s['recv_rss'] / MiB if 'recv_rss' in s else None, '7.1f')}  {note}")
        st = self.results.get("start")
        spd = self.results.get("speed")
        out.append("")
        out.append("== other figures")
        other_at = len(out)
        if st:
            out.append(f"{'share daemon spawn → listening':40} {statistics.median(st['warm']) * 1e3:7.1f} ms  median of {len(st['warm'])}, identity already made")
            if st["first"]:
                out.append(f"{'  … very first start (makes identity)':40} {statistics.median(st['first']) * 1e3:7.1f} ms  median of {len(st['first'])}")
        if self.lost_sigterms:
            out.append(f"{'share daemon: SIGTERM re-sent':40} {self.lost_sigterms:7d}     times (no exit within 0.5 s; see README, fragile)")
        vis = self.results.get("visible")
        if vis:
            n = len(vis["watch"])
            if n:
                def med_spread(xs):
                    m = statistics.median(xs)
                    return m, (100 * (max(xs) - min(xs)) / 2 / m if len(xs) > 1 and m else 0)

                for label, key, unit, what in (
                        ("share daemon start → visible on host B", "watch", "s", "to the line in `share peers --watch --json`, B browsing before"),
                        ("  … listed by `share peers` polled on B", "poll", "s", "end of the first `share peers --json` run that lists it, back to back"),
                        ("  … advertised (daemon's own log)", "registered", "s", "\"advertised as\" on host A: Avahi's probing done"),
                        ("1 KiB by name, host B → A, name new", "first_send", "ms", "right after the poll; name new to B's home: waits for Avahi's \"all for now\""),
                        ("1 KiB by name, host B → A, cache warm", "warm_send", "ms", "name known, Avahi's cache warm, across the veth")):
                    xs = vis[key]
                    m, sp = med_spread(xs)
                    val = f"{m:7.2f} s " if unit == "s" else f"{m * 1e3:7.1f} ms"
                    out.append(f"{label:40} {val} ±{sp:.0f}%  median of {len(xs)}; {what}")
            if vis["error"]:
                out.append(f"{'share daemon start → visible on host B':40} FAILED: {vis['error'][:160]}")
        if spd:
            for alg in ("aes-128-gcm", "chacha20-poly1305", "sha256"):
                v = spd.get(alg)
                out.append(f"{'openssl speed ' + alg:40} {fmt(v and v / 1e6, '7.0f')} MB/s  one core, 16 KiB blocks, EVP")
            e = spd.get("ed25519")
            if e:
                out.append(f"{'openssl speed ed25519':40} {e[0]:7.0f} sign/s, {e[1]:.0f} verify/s")
        if len(out) == other_at:  # nothing measured for that section
            del out[-2:]
        out.append("")
        out.append("== targets (issue: speed and memory)")
        out.extend(self.targets())
        return "\n".join(line.rstrip() for line in out)

    def targets(self):
        lines = []

        def line(name, value, goal, ok):
            mark = "n/a " if ok is None else ("MET " if ok else "MISS")
            lines.append(f"  {mark} {name:58} {value:>26}   goal {goal}")

        big = self.summary("big", "share")
        bigref = self.summary("big", "ref-file")
        wl = {w.key: w for w in self.workloads}
        if big and bigref:
            x = bigref["wall"] / big["wall"]
            line(f"{wl['big'].label}, durable: MB/s vs TLS ref → file", f"{x:.2f}×", "≥ 0.90×", x >= 0.9)
            sc = self.summary("big", "scp")
            if sc:
                lines.append(f"       (and vs scp: {sc['wall'] / big['wall']:.2f}×)")
        else:
            line("big file, durable: MB/s vs TLS ref → file", "no data", "≥ 0.90×", None)
        sm, rs = self.summary("small", "share"), self.summary("small", "rsync")
        if sm and rs:
            x = rs["wall"] / sm["wall"]
            line("small files in one send: files/s vs rsync", f"{x:.2f}×", "≥ 2.00×", x >= 2)
        else:
            line("small files in one send: files/s vs rsync", "no data", "≥ 2.00×", None)
        ti, tsc = self.summary("tiny", "share"), self.summary("tiny", "scp")
        if ti and tsc:
            x = ti["wall"] / tsc["wall"]
            line("1 KiB end to end by HOST:PORT: time vs scp", f"{x:.2f}×", "≤ 0.25×", x <= 0.25)
        else:
            line("1 KiB end to end by HOST:PORT: time vs scp", "no data", "≤ 0.25×", None)
        tn = self.summary("tiny", "share-name")
        if tn and tsc:
            x = tn["wall"] / tsc["wall"]
            line("1 KiB end to end by name (Avahi cache warm): time vs scp", f"{x:.2f}×", "≤ 0.50×", x <= 0.5)
        else:
            why = self.status("tiny", "share-name", "share-name") or "no data"
            line("1 KiB end to end by name (Avahi cache warm): time vs scp", why[:26], "≤ 0.50×", None)
        mid = self.summary("mid", "share")
        if big:
            peak = max(big["send_rss"], big.get("recv_rss", 0))
            line("peak RSS, either side, big file", f"{peak / MiB:.1f} MiB", "≤ 32 MiB", peak <= 32 * MiB)
        else:
            line("peak RSS, either side, big file", "no data", "≤ 32 MiB", None)
        if big and mid:
            ds = abs(big["send_rss"] - mid["send_rss"]) / mid["send_rss"]
            dr = abs(big["recv_rss"] - mid["recv_rss"]) / mid["recv_rss"]
            d = max(ds, dr)
            line(f"RSS {wl['mid'].label.split(' ', 1)[1]} vs {wl['big'].label.split(' ', 1)[1]} (worse side)",
                 f"+{d * 100:.1f}% (snd {ds * 100:.1f}%, rcv {dr * 100:.1f}%)", "≤ 10%", d <= 0.10)
        else:
            line("RSS mid vs big file", "no data", "≤ 10%", None)
        if big and bigref:
            c = big["send_cpu"] + big["recv_cpu"]
            cr = bigref["send_cpu"] + bigref["recv_cpu"]
            line("CPU s per GiB, both sides, vs TLS ref → file", f"{c / cr:.2f}×", "≤ 1.30×", c / cr <= 1.3)
        else:
            line("CPU s per GiB, both sides, vs TLS ref → file", "no data", "≤ 1.30×", None)
        return lines

    def cleanup(self):
        REGISTRY.kill_all()
        if getattr(self, "loop_mount", None):
            rmtree(self.dest)
            r = run_quiet(["umount", self.loop_mount])
            if r.returncode:
                log(f"could not unmount {self.loop_mount}: {r.stdout.strip()}")


def main():
    p = argparse.ArgumentParser(prog="bench/run.sh", description="share benchmark: limit, peers and share, side by side on loopback.")
    p.add_argument("--quick", action="store_true", help="a short run: 256 MiB instead of 2 GiB, 1,000 small files, 1 run each, 5 for 1 KiB")
    p.add_argument("--runs", type=int, help="runs per figure (default 3; --quick 1)")
    p.add_argument("--tiny-runs", type=int, help="runs for the 1 KiB end-to-end and daemon start (default 10; --quick 5)")
    p.add_argument("--visible-runs", type=int, help="runs of daemon start → visible on another host (default 5; --quick 3)")
    p.add_argument("--big", type=parse_size, help="size of the big file (default 2G; --quick 256M)")
    p.add_argument("--mid", type=parse_size, default=64 * MiB, help="size of the mid file (default 64M)")
    p.add_argument("--small-count", type=int, help="number of small files (default 5000; --quick 1000)")
    p.add_argument("--small-size", type=parse_size, default=4 * KiB, help="size of each small file (default 4K)")
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

    # Everything inside a fresh network namespace holding only lo, when we can make one.
    if args.netns and os.environ.get("SHARE_BENCH_NETNS") != "1":
        probe = subprocess.run(["unshare", "--net", "--", "ip", "link", "set", "lo", "up"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if probe.returncode == 0:
            os.environ["SHARE_BENCH_NETNS"] = "1"
            sys.stdout.flush()
            os.execvp("unshare", ["unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh",
                                  sys.executable, os.path.abspath(__file__), *sys.argv[1:]])
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
        if args.out:
            with open(args.out, "w") as f:
                f.write(table + "\n")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"info": bench.info, "results": bench.results, "unavailable": bench.unavailable,
                           "args": {k: v for k, v in vars(args).items()}}, f, indent=1, default=str)
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
