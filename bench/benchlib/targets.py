"""The goals the issues set, each with the figure this run measured, marked MET, MISS or n/a (not
measured in this run, or failed: the table above says why)."""

import statistics

from .common import MiB
from .measure import summarize


class Targets:
    """Every goal of the issues, from one run's results (through the report's summaries)."""

    def __init__(self, report):
        self.report, self.ctx = report, report.ctx
        self.out = []
        self.workload = {w.key: w for w in report.workloads}

    def line(self, name, value, goal, ok):
        mark = "n/a " if ok is None else ("MET " if ok else "MISS")
        self.out.append(f"  {mark} {name:64} {value:>26}   goal {goal}")

    def note(self, text):
        self.out.append(f"       {text}")

    def summary(self, wkey, rid):
        return self.report.summary(wkey, rid)

    def label(self, wkey, fallback):
        w = self.workload.get(wkey)
        return w.label if w else fallback

    def lines(self):
        self.out.append(" issue 14 (performance, round two)")
        self.big_file()
        self.folders()
        self.memory()
        self.first_name()
        self.senders()
        self.fanout()
        self.inbox()
        self.out.append(" earlier goals (speed and memory)")
        self.earlier()
        return self.out

    # -- issue 14 ----------------------------------------------------------------------------

    def big_file(self):
        big, sha, direct = self.summary("big", "share"), self.summary("big", "ref-sha"), self.summary("big", "ref-direct")
        name = f"{self.label('big', 'big file')}: MB/s vs TLS+SHA-256 ref → direct+fsync"
        if big and sha:
            x = sha["wall"] / big["wall"]
            self.line(name, f"{x:.2f}×", "≥ 0.95×", x >= 0.95)
        else:
            self.line(name, "no data", "≥ 0.95×", None)
        if big and direct:
            self.note(f"(and vs the plain TLS ref → direct+fsync, no SHA-256: {direct['wall'] / big['wall']:.2f}×)")

    def folders(self):
        a = self.ctx.args
        for key, what, asked in (("small", "small files ({} × 4 KiB)", a.small_count), ("mixed", "mixed folder ({} real files)", a.mixed_count),
                                 ("photos", "photo folder ({} JPEGs)", a.photos)):
            sm, rs = self.summary(key, "share"), self.summary(key, "rsync")
            w = self.workload.get(key)
            name = f"{what.format(w.count if w else asked)}, one send: files/s vs rsync"
            if sm and rs:
                x = rs["wall"] / sm["wall"]
                self.line(name, f"{x:.2f}×", "≥ 2.00×", x >= 2)
            else:
                self.line(name, "no data", "≥ 2.00×", None)

    def memory(self):
        for key in ("big", "small"):
            s = self.summary(key, "share")
            name = f"peak RSS each side, {self.label(key, key)}"
            if not s or "recv_rss" not in s:
                self.line(name, "no data", "≤ 32 MiB", None)
                continue
            peak = max(s["send_rss"], s["recv_rss"])
            self.line(name, f"snd {s['send_rss'] / MiB:.1f}, rcv {s['recv_rss'] / MiB:.1f} MiB", "≤ 32 MiB", peak <= 32 * MiB)
            if "send_anon" in s and "recv_anon" in s:
                self.note(f"(anonymous / file-backed: snd {s['send_anon'] / MiB:.1f} / {s.get('send_file', 0) / MiB:.1f}, "
                          f"rcv {s['recv_anon'] / MiB:.1f} / {s.get('recv_file', 0) / MiB:.1f} MiB)")
        idle = self.ctx.results.get("idle")
        if idle and idle["runs"]:
            s = summarize(idle["runs"])
            self.line("idle daemon's RSS", f"{s['rss'] / MiB:.1f} MiB", "≤ 20 MiB", s["rss"] <= 20 * MiB)
            self.note(f"(anonymous {s['anon'] / MiB:.1f}, file-backed {s['file'] / MiB:.1f} MiB)")
        else:
            self.line("idle daemon's RSS", "no data", "≤ 20 MiB", None)

    def first_name(self):
        nn = self.ctx.results.get("newname")
        name = "first send to a name never seen before (loopback Avahi)"
        if nn and nn["runs"]:
            m = statistics.median(r["wall"] for r in nn["runs"])
            self.line(name, f"{m * 1e3:.0f} ms", "≤ 150 ms", m <= 0.150)
        else:
            self.line(name, "no data", "≤ 150 ms", None)

    def senders(self):
        sn = self.ctx.results.get("senders")
        many = sn and sn.get("many")
        n = many["senders"] if many else self.ctx.args.senders
        if not many:
            for name, goal in ((f"{n} senders at once: all complete", "all"), (f"{n} senders: aggregate vs one sender", "≥ 0.80×"),
                               (f"{n} senders: refused for good", "none unintended"), (f"{n} senders: daemon peak RSS", "≤ 64 MiB")):
                self.line(name, "no data", goal, None)
            return
        self.line(f"{n} senders at once: all complete", f"{many['completed']}/{n}", "all", many["completed"] == n)
        x = many["mbs"] / sn["one"]["mbs"]
        self.line(f"{n} senders: aggregate vs one sender", f"{x:.2f}×", "≥ 0.80×", x >= 0.8)
        # Turned away at the door (the cap of connections still starting from one address, an
        # intended limit) and back after a pause is not refused; giving up on a receiver still
        # busy is.
        self.line(f"{n} senders: refused for good", f"{many['refused']} (turned away, came back: {many.get('turned_away', 0)})",
                  "none unintended", many["refused"] == 0)
        self.line(f"{n} senders: daemon peak RSS", f"{many['recv_rss'] / MiB:.1f} MiB", "≤ 64 MiB", many["recv_rss"] <= 64 * MiB)

    def fanout(self):
        fo = self.ctx.results.get("fanout")
        n = fo["receivers"] if fo and fo.get("all") else self.ctx.args.fanout
        name = f"one send to {n} receivers (netns hosts) at once"
        if fo and fo.get("all"):
            self.line(name, f"{fo['stored']}/{n} stored, {fo['all']:.2f} s", "all stored", fo["stored"] == n)
        else:
            self.line(name, "no data", "all stored", None)

    def inbox(self):
        ib = self.ctx.results.get("inbox")
        n = ib["items"] if ib and ib.get("list") else self.ctx.args.inbox_items
        if not (ib and ib.get("list")):
            self.line(f"share inbox list, {n:,} items", "no data", "≤ 1 s", None)
            self.line(f"daemon start with {n:,} items vs an empty Inbox", "no data", "≤ 1.20×", None)
            return
        m = statistics.median(ib["list"])
        self.line(f"share inbox list, {n:,} items", f"{m:.2f} s", "≤ 1 s", m <= 1.0)
        x = statistics.median(ib["start_full"]) / statistics.median(ib["start_empty"])
        self.line(f"daemon start with {n:,} items vs an empty Inbox", f"{x:.2f}×", "≤ 1.20×", x <= 1.2)

    # -- the earlier issue's goals -----------------------------------------------------------

    def earlier(self):
        big, bigref = self.summary("big", "share"), self.summary("big", "ref-file")
        if big and bigref:
            x = bigref["wall"] / big["wall"]
            self.line(f"{self.label('big', 'big file')}, durable: MB/s vs TLS ref → file", f"{x:.2f}×", "≥ 0.90×", x >= 0.9)
            sc = self.summary("big", "scp")
            if sc:
                self.note(f"(and vs scp: {sc['wall'] / big['wall']:.2f}×)")
        else:
            self.line("big file, durable: MB/s vs TLS ref → file", "no data", "≥ 0.90×", None)
        ti, tsc = self.summary("tiny", "share"), self.summary("tiny", "scp")
        if ti and tsc:
            x = ti["wall"] / tsc["wall"]
            self.line("1 KiB end to end by HOST:PORT: time vs scp", f"{x:.2f}×", "≤ 0.25×", x <= 0.25)
        else:
            self.line("1 KiB end to end by HOST:PORT: time vs scp", "no data", "≤ 0.25×", None)
        tn = self.summary("tiny", "share-name")
        if tn and tsc:
            x = tn["wall"] / tsc["wall"]
            self.line("1 KiB end to end by name (Avahi cache warm): time vs scp", f"{x:.2f}×", "≤ 0.50×", x <= 0.5)
        else:
            why = self.report.status("tiny", "share-name", "share-name") or "no data"
            self.line("1 KiB end to end by name (Avahi cache warm): time vs scp", why[:28], "≤ 0.50×", None)
        self.rss_growth(big)
        if big and bigref:
            c, cr = big["send_cpu"] + big["recv_cpu"], bigref["send_cpu"] + bigref["recv_cpu"]
            self.line("CPU s per GiB, both sides, vs TLS ref → file", f"{c / cr:.2f}×", "≤ 1.30×", c / cr <= 1.3)
        else:
            self.line("CPU s per GiB, both sides, vs TLS ref → file", "no data", "≤ 1.30×", None)

    def rss_growth(self, big):
        mid = self.summary("mid", "share")
        if big and mid and "recv_rss" in big and "recv_rss" in mid:
            ds = abs(big["send_rss"] - mid["send_rss"]) / mid["send_rss"]
            dr = abs(big["recv_rss"] - mid["recv_rss"]) / mid["recv_rss"]
            d = max(ds, dr)
            name = f"RSS {self.label('mid', 'x mid').split(' ', 1)[1]} vs {self.label('big', 'x big').split(' ', 1)[1]} (worse side)"
            self.line(name, f"+{d * 100:.1f}% (snd {ds * 100:.1f}%, rcv {dr * 100:.1f}%)", "≤ 10%", d <= 0.10)
        else:
            self.line("RSS mid vs big file", "no data", "≤ 10%", None)
