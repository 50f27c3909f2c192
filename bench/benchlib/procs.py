"""Processes: every one in its own session, remembered by process-group id, killed at the end;
commands measured under /usr/bin/time -v; waiting for a line, a file line or a port."""

import os
import re
import select
import signal
import socket
import subprocess
import threading
import time

from .common import TIME, BenchError


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

