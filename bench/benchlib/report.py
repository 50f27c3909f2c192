"""The table: one section per workload, other figures, and the targets marked MET or MISS."""

import re
import statistics

from .common import GiB, MiB
from .measure import median_spread, summarize
from .targets import Targets
from .workloads import plan_rows


class Report:
    """Turns one run's results into the printed table."""

    def __init__(self, ctx, workloads, wormhole_direct):
        self.ctx, self.workloads, self.wormhole_direct = ctx, workloads, wormhole_direct

    def summary(self, wkey, rid):
        entry = self.ctx.results.get(wkey, {}).get(rid)
        return summarize(entry["runs"]) if entry else None

    LABELS = {
        "ref-null": "limit: TLS ref → /dev/null",
        "ref-file": "limit: TLS ref → file+fsync",
        "ref-direct": "limit: TLS ref → direct+fsync",
        "ref-sha": "limit: ref+SHA-256 → direct",
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
        if tool in self.ctx.unavailable:
            return f"n/a: {self.ctx.unavailable[tool]}"
        entry = self.ctx.results.get(wkey, {}).get(rid)
        if entry and entry["error"] and not entry["runs"]:
            return f"FAILED: {entry['error'][:160]}"
        if entry and entry["error"]:
            return f"partly failed: {entry['error'][:120]}"
        return None

    def table(self):
        out = self.head()
        for w in self.workloads:
            out.append("")
            load = self.ctx.load.get(w.key)
            other = f"; CPU busy outside the measured processes during its runs: {100 * load[0] / load[1]:.0f}% of the machine" if load and load[1] else ""
            out.append(f"== {w.label}" + (f" ({w.bytes / 1e6:.1f} MB)" if w.key != "tiny" else "") + other)
            rows = plan_rows(w, self.ctx.args.tools)
            section = self.file_section if not w.folder and w.key != "tiny" else self.folder_section if w.folder else self.tiny_section
            for rid, tool in rows:
                s, st = self.summary(w.key, rid), self.status(w.key, rid, tool)
                if rid == rows[0][0]:
                    out.append(section(w, None, None, None))
                out.append(f"{self.LABELS[rid]:30} {st or 'no data'}" if s is None else section(w, rid, s, st or self.note(w, rid, tool)))
            out.extend(self.left_out(w))
        out.extend(self.memory_section())
        out.extend(self.other_figures())
        out.append("")
        out.append("== targets")
        out.extend(Targets(self).lines())
        return "\n".join(line.rstrip() for line in out)

    def left_out(self, w):
        """The files of a real-file folder that share refused in the trial send, grouped by reason."""
        refused = self.ctx.results.get("screened", {}).get(w.key)
        if not refused:
            return []
        groups = {}
        for name, reason in refused:
            groups.setdefault(reason.split(" (")[0], []).append(name)
        out = [f"  left out of every row: {len(refused)} files share refused in a trial send (real files; share's to fix):"]
        for reason, names in sorted(groups.items(), key=lambda g: -len(g[1]))[:10]:
            out.append(f"    {len(names):3} × {reason[:110]}  (e.g. {names[0][:40]})")
        return out

    def head(self):
        a, info = self.ctx.args, self.ctx.info
        out = ["share benchmark — " + info.get("date", ""),
               f"machine: {info.get('cpu')}, {info.get('cores')} cores, Linux {info.get('kernel')}, {info.get('openssl')}",
               f"network: {info.get('netns')}; scratch: {info.get('scratch')}"]
        for k in ("ssh", "wormhole"):
            if k in info:
                out.append(f"{k}: {info[k]}")
        out.append(f"each figure: median of {a.runs} run(s) ({a.tiny_runs} for 1 KiB); ±% = half the range of the wall times over the median; "
                   "MB = 10^6 bytes; CPU = user+sys s of the process tree; RSS = peak resident set of the largest process in the tree, MiB")
        out.append("between runs: received copy deleted (set aside until the end for workloads of 1,000+ files up to 512 MiB), sync, sources re-read so they are in the page cache (no cache drop)"
                   + (f"; waited {self.ctx.waited:.0f} s in all for the machine to be quiet" if self.ctx.waited >= 1 else ""))
        return out

    def note(self, w, rid, tool):
        note = self.ctx.notes.get(tool, "")
        if w.key == "tiny":
            note = "process start to stored" if rid != "ref-file" else "client start to server exit, fsync"
            if rid == "share-name":
                note += "; Avahi on lo; name known, cache warm; rcv CPU/RSS include daemon start and a first send"
        elif rid == "wormhole" and not w.folder and self.wormhole_direct:
            note += (", direct" if all(self.wormhole_direct) else ", via the loopback relay"
                     if not any(self.wormhole_direct) else ", via the relay in some runs")
        elif w.folder and rid in ("disk", "disk-fsync"):
            note = "cp -r" if rid == "disk" else "cp -r, then syncfs"
        elif w.folder and rid == "wormhole":
            note += ", folder sent as a zip"
        elif w.folder and rid == "share":
            note += f"; {w.count} paths in one send"
        elif rid == "ref-sha":
            note = "SHA-256 of every byte on both sides (second thread), digest checked"
        return note

    def file_section(self, w, rid, s, note):
        """One file: MB/s, and CPU per GiB, against the TLS reference writing to a file."""
        if rid is None:
            return (f"{'':30} {'wall s':>8} {'±%':>4} {'MB/s':>7} {'×ref':>5} {'CPU s snd':>9} {'CPU s rcv':>9} {'CPU s/GiB':>9} {'×ref':>5} "
                    f"{'RSS snd':>7} {'RSS rcv':>7}  note")
        ref = self.summary(w.key, "ref-file")
        cpg = (s["send_cpu"] + s.get("recv_cpu", 0.0)) / (w.bytes / GiB)
        xr = xc = None
        if ref:
            xr = ref["wall"] / s["wall"]
            rc = (ref["send_cpu"] + ref.get("recv_cpu", 0)) / (w.bytes / GiB)
            xc = cpg / rc if rc else None
        return (f"{self.LABELS[rid]:30} {s['wall']:8.2f} {fmt(s['spread'] and 100 * s['spread'], '4.0f')} {w.bytes / s['wall'] / 1e6:7.0f} "
                f"{fmt(xr, '5.2f')} {s['send_cpu']:9.2f} {fmt(s.get('recv_cpu'), '9.2f')} {cpg:9.2f} {fmt(xc, '5.2f')} "
                f"{s['send_rss'] / MiB:7.1f} {fmt(mib(s.get('recv_rss')), '7.1f')}  {note}")

    def folder_section(self, w, rid, s, note):
        """A folder of files: files/s against rsync."""
        if rid is None:
            return f"{'':30} {'wall s':>8} {'±%':>4} {'files/s':>8} {'×rsync':>6} {'MB/s':>6} {'CPU s snd':>9} {'CPU s rcv':>9} {'RSS snd':>7} {'RSS rcv':>7}  note"
        base = self.summary(w.key, "rsync")
        xr = base["wall"] / s["wall"] if base else None
        return (f"{self.LABELS[rid]:30} {s['wall']:8.2f} {fmt(s['spread'] and 100 * s['spread'], '4.0f')} {w.count / s['wall']:8.0f} {fmt(xr, '6.2f')} "
                f"{w.bytes / s['wall'] / 1e6:6.1f} {s['send_cpu']:9.2f} {fmt(s.get('recv_cpu'), '9.2f')} {s['send_rss'] / MiB:7.1f} "
                f"{fmt(mib(s.get('recv_rss')), '7.1f')}  {note}")

    def tiny_section(self, w, rid, s, note):
        """1 KiB end to end: milliseconds against scp."""
        if rid is None:
            return f"{'':30} {'ms':>8} {'±%':>4} {'×scp':>6} {'CPU ms snd':>10} {'CPU ms rcv':>10} {'RSS snd':>7} {'RSS rcv':>7}  note"
        base = self.summary(w.key, "scp")
        xr = s["wall"] / base["wall"] if base else None
        return (f"{self.LABELS[rid]:30} {s['wall'] * 1e3:8.1f} {fmt(s['spread'] and 100 * s['spread'], '4.0f')} {fmt(xr, '6.2f')} "
                f"{s['send_cpu'] * 1e3:10.0f} {fmt(s['recv_cpu'] * 1e3 if 'recv_cpu' in s else None, '10.0f')} "
                f"{s['send_rss'] / MiB:7.1f} {fmt(mib(s.get('recv_rss')), '7.1f')}  {note}")

    def memory_section(self):
        """share's peak memory per workload, each side, anonymous and file-backed apart."""
        out = []
        for w in self.workloads:
            s = self.summary(w.key, "share")
            if not s or "recv_anon" not in s:
                continue
            if not out:
                out += ["", "== share's memory: peak RSS (GNU time, exact) = anonymous (heap, stacks) + file-backed (binary, libraries, "
                        "magic database), each peak sampled every 10 ms from /proc/PID/status, MiB",
                        f"{'':46} {'snd RSS':>7} {'anon':>6} {'file':>6}   {'rcv RSS':>7} {'anon':>6} {'file':>6}"]
            out.append(f"{w.label[:46]:46} {s['send_rss'] / MiB:7.1f} {fmt(mib(s.get('send_anon')), '6.1f')} {fmt(mib(s.get('send_file')), '6.1f')}   "
                       f"{fmt(mib(s.get('recv_rss')), '7.1f')} {fmt(mib(s.get('recv_anon')), '6.1f')} {fmt(mib(s.get('recv_file')), '6.1f')}")
        idle = self.ctx.results.get("idle")
        if idle and idle["runs"]:
            s = summarize(idle["runs"])
            out += ["", f"{'idle daemon, 2 s after advertised':46} {s['rss'] / MiB:7.1f} {mib(s['anon']):6.1f} {mib(s['file']):6.1f}   "
                        f"median of {s['n']}; VmRSS, RssAnon, RssFile"]
        elif idle and idle["error"]:
            out += ["", f"{'idle daemon':46} FAILED: {idle['error'][:160]}"]
        return out

    def other_figures(self):
        out = ["", "== other figures"]
        other_at = len(out)
        out += self.start_lines() + self.visible_lines() + self.scale_lines() + self.speed_lines()
        if self.ctx.lost_sigterms:
            out.append(f"{'share daemon: SIGTERM re-sent':40} {self.ctx.lost_sigterms:7d}     times (no exit within 0.5 s; see README, fragile)")
        return out if len(out) > other_at else []

    def start_lines(self):
        st, out = self.ctx.results.get("start"), []
        if st:
            out.append(f"{'share daemon spawn → listening':40} {statistics.median(st['warm']) * 1e3:7.1f} ms  median of {len(st['warm'])}, identity already made")
            if st["first"]:
                out.append(f"{'  … very first start (makes identity)':40} {statistics.median(st['first']) * 1e3:7.1f} ms  median of {len(st['first'])}")
        nn = self.ctx.results.get("newname")
        if nn and nn["runs"]:
            m, sp = median_spread([r["wall"] for r in nn["runs"]])
            out.append(f"{'1 KiB by name never seen before (lo)':40} {m * 1e3:7.1f} ms ±{sp:.0f}%  median of {len(nn['runs'])}; fresh daemon and name, "
                       "sender's home never saw it; Avahi on lo")
        elif nn and nn["error"]:
            out.append(f"{'1 KiB by name never seen before (lo)':40} FAILED: {nn['error'][:160]}")
        return out

    def visible_lines(self):
        vis, out = self.ctx.results.get("visible"), []
        if not vis:
            return out
        if vis["watch"]:
            for label, key, unit, what in (
                    ("share daemon start → visible on host B", "watch", "s", "to the line in `share peers --watch --json`, B browsing before"),
                    ("  … listed by `share peers` polled on B", "poll", "s", "end of the first `share peers --json` run that lists it, back to back"),
                    ("  … advertised (daemon's own log)", "registered", "s", "\"advertised as\" on host A: Avahi's probing done"),
                    ("1 KiB by name, host B → A, name new", "first_send", "ms", "right after the poll; name new to B's home: waits for Avahi's \"all for now\""),
                    ("1 KiB by name, host B → A, cache warm", "warm_send", "ms", "name known, Avahi's cache warm, across the veth")):
                xs = vis[key]
                if not xs:
                    continue
                m, sp = median_spread(xs)
                val = f"{m:7.2f} s " if unit == "s" else f"{m * 1e3:7.1f} ms"
                out.append(f"{label:40} {val} ±{sp:.0f}%  median of {len(xs)}; {what}")
        if vis["error"]:
            out.append(f"{'share daemon start → visible on host B':40} FAILED: {vis['error'][:160]}")
        return out

    def scale_lines(self):
        out, res = [], self.ctx.results
        sn = res.get("senders")
        if sn and sn.get("many"):
            one, many = sn["one"], sn["many"]
            out.append(f"{'one sender, ' + sn['label']:40} {one['mbs']:7.0f} MB/s  {one['wall']:.2f} s")
            label = f"{many['senders']} senders at once, each the same"
            out.append(f"{label:40} {many['mbs']:7.0f} MB/s  aggregate; {many['wall']:.2f} s to the last; "
                       f"{many['completed']}/{many['senders']} completed, {many.get('turned_away', 0)} turned away at the door and came back "
                       f"({many.get('pauses', 0)} pauses), {many['refused']} gave up busy, {many['failed']} sends failed; daemon peak RSS {mib(many['recv_rss']):.1f} MiB "
                       f"(anon {fmt(mib(many.get('recv_anon')), '.1f')}, file {fmt(mib(many.get('recv_file')), '.1f')})")
            if many.get("errors"):
                out.append(f"{'  … first failure':40} {many['errors'][0][:200]}")
        if sn and sn.get("error"):
            out.append(f"{'senders at once':40} FAILED: {sn['error'][:160]}")
        fo = res.get("fanout")
        if fo and fo.get("all"):
            out.append(f"{'one send to 1 receiver (netns hosts)':40} {fo['one']:7.2f} s  {fo['label']}, by HOST:PORT across the bridge")
            label = f"one send to {fo['receivers']} receivers at once"
            out.append(f"{label:40} {fo['all']:7.2f} s  {fo['stored']}/{fo['receivers']} receivers "
                       f"stored everything; sender CPU {fo['send_cpu']:.2f} s, peak RSS {mib(fo['send_rss']):.1f} MiB")
        if fo and fo.get("error"):
            out.append(f"{'one send to several receivers':40} FAILED: {fo['error'][:160]}")
        ib = res.get("inbox")
        if ib and ib.get("list"):
            m, sp = median_spread(ib["list"])
            label = f"share inbox list, {ib['items']:,} items"
            out.append(f"{label:40} {m:7.2f} s  ±{sp:.0f}%  median of {len(ib['list'])}; "
                       f"Inbox built by {ib['sends']} real sends in {ib['build']:.0f} s")
            e, f = statistics.median(ib["start_empty"]), statistics.median(ib["start_full"])
            out.append(f"{'share daemon start, that Inbox':40} {f * 1e3:7.1f} ms  vs {e * 1e3:.1f} ms with an empty Inbox (medians of {len(ib['start_full'])})")
        if ib and ib.get("error"):
            out.append(f"{'big Inbox':40} FAILED: {ib['error'][:160]}")
        return out

    def speed_lines(self):
        spd, out = self.ctx.results.get("speed"), []
        if spd:
            for alg in ("aes-128-gcm", "chacha20-poly1305", "sha256"):
                v = spd.get(alg)
                out.append(f"{'openssl speed ' + alg:40} {fmt(v and v / 1e6, '7.0f')} MB/s  one core, 16 KiB blocks, EVP")
            e = spd.get("ed25519")
            if e:
                out.append(f"{'openssl speed ed25519':40} {e[0]:7.0f} sign/s, {e[1]:.0f} verify/s")
        return out


def fmt(v, spec):
    """`v` formatted, or a dash as wide as the format when there is no figure."""
    if v is None:
        width = re.match(r"\d*", spec).group(0)
        return "—".rjust(int(width) if width else 0)
    return format(v, spec)


def mib(v):
    return None if v is None else v / MiB
