"""Measurement: how busy the machine is, waiting for it to be quiet, one run's figures from
/usr/bin/time, and the median (with its spread) of several runs."""

import os
import statistics
import threading
import time


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



def row(wall, sender, receiver):
    """One run's figures: the wall time, and CPU and peak RSS of the sending and receiving trees."""
    s_cpu, s_rss, s_sys = sender.usage()
    r = {"wall": wall, "send_cpu": s_cpu, "send_rss": s_rss, "send_sys": s_sys}
    if receiver is not None:
        r_cpu, r_rss, r_sys = receiver.usage()
        r.update(recv_cpu=r_cpu, recv_rss=r_rss, recv_sys=r_sys)
    return r


def summarize(runs):
    """Medians of every figure over `runs` (dicts from `row`), with the wall time's spread: half
    its range over its median."""
    if not runs:
        return None
    s = {"n": len(runs)}
    keys = sorted({k for r in runs for k, v in r.items() if isinstance(v, (int, float))})
    for k in keys:
        vals = [r[k] for r in runs if isinstance(r.get(k), (int, float))]
        if vals:
            s[k] = statistics.median(vals)
    walls = [r["wall"] for r in runs if "wall" in r]
    s["spread"] = (max(walls) - min(walls)) / 2 / s["wall"] if len(walls) > 1 and s.get("wall") else None
    return s


def median_spread(xs):
    """(median, spread in %) of a list of figures."""
    m = statistics.median(xs)
    return m, (100 * (max(xs) - min(xs)) / 2 / m if len(xs) > 1 and m else 0)


def memory(pid):
    """The resident set of `pid` now, from /proc/PID/status, in bytes: VmRSS (all), RssAnon (heap,
    stacks: the process's own), RssFile (mapped files: the binary, libraries, libmagic's
    database; shared and reclaimable) and VmHWM (the peak of VmRSS so far); None once it is gone."""
    want = {"VmRSS": "rss", "RssAnon": "anon", "RssFile": "file", "VmHWM": "hwm"}
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in want:
                    out[want[key]] = int(value.split()[0]) * 1024
    except (OSError, ValueError):
        return None
    return out if "rss" in out else None


class MemorySampler:
    """Samples the resident memory of a few processes every `interval` seconds on a thread, and
    keeps each one's peaks: of the whole (VmHWM, exact), of anonymous and of file-backed memory
    (sampled: each peak may come at another moment, and a peak shorter than the interval can be
    missed). Sampling costs about 30 µs of CPU a process a sample."""

    def __init__(self, interval=0.01):
        self.interval = interval
        self.pids = {}  # label -> pid
        self.peaks = {}  # label -> {"rss", "anon", "file", "hwm"}
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def watch(self, label, pid):
        if pid:
            with self.lock:
                self.pids[label] = pid
            self.sample(label, pid)

    def sample(self, label, pid):
        m = memory(pid)
        if m is None:
            return
        with self.lock:
            peak = self.peaks.setdefault(label, {})
            for k, v in m.items():
                peak[k] = max(peak.get(k, 0), v)

    def loop(self):
        while not self.stopped.wait(self.interval):
            with self.lock:
                pids = list(self.pids.items())
            for label, pid in pids:
                self.sample(label, pid)

    def stop(self):
        """Stops sampling; returns {label: peaks}."""
        self.stopped.set()
        self.thread.join()
        return self.peaks
