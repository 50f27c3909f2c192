#!/usr/bin/env python3
"""Splits the libcrypto samples of a perf.data file by what the code does.

Debian's libcrypto.so.3 has no symbols for its assembly kernels, so `perf report` shows bare
addresses. This maps each sampled address to its function through the library's .eh_frame
(every assembly kernel has CFI), disassembles that function, and names it by its instructions:
SHA-256 (sha256rnds2 / SHA-NI, or the AVX2 rounds), AES-GCM (the stitched aesni_gcm kernel:
vaesenc plus GHASH), AES (aesenc), GHASH (pclmulqdq only), or "other".

    bench/crypto_split.py perf.data [path/to/libcrypto.so.3]

Prints, per kind, the share of ALL samples in the file and of the libcrypto samples.
"""
import bisect
import collections
import re
import subprocess
import sys


def fde_ranges(lib):
    out = subprocess.run(["readelf", "--debug-dump=frames", lib], capture_output=True, text=True).stdout
    ranges = sorted({(int(a, 16), int(b, 16)) for a, b in re.findall(r"pc=([0-9a-f]+)\.\.([0-9a-f]+)", out)})
    return ranges


def classify(lib, start, end):
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={start}", f"--stop-address={end}", lib],
                         capture_output=True, text=True).stdout
    ops = collections.Counter()
    for line in dis.splitlines():
        parts = line.split("\t")
        if len(parts) >= 2 and parts[-1].strip():
            ops[parts[-1].split()[0]] += 1
    if ops["sha256rnds2"]:
        return "SHA-256 (SHA-NI)"
    if ops["vaesenc"] or ops["aesenc"]:
        if ops["vpclmulqdq"] or ops["pclmulqdq"] or any(k.startswith("vpclmul") for k in ops):
            return "AES-GCM (stitched AES-CTR + GHASH)"
        return "AES" if ops["vaesenc"] + ops["aesenc"] < 40 else "AES-GCM (AES-CTR part)"
    if any(k.startswith("vpclmul") or k.startswith("pclmul") for k in ops):
        return "GHASH"
    if ops["vpaddd"] > 40 and (ops["vpsrld"] or ops["rorx"]):
        return "SHA-256 (AVX2)"
    if ops["rorx"] > 40:
        return "SHA-2 (scalar/BMI2)"
    return "other libcrypto"


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 64
    data = sys.argv[1]
    lib = sys.argv[2] if len(sys.argv) > 2 else "/lib/x86_64-linux-gnu/libcrypto.so.3"
    rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "dso,symbol", "-g", "none"],
                         capture_output=True, text=True).stdout
    ranges = fde_ranges(lib)
    starts = [r[0] for r in ranges]
    kinds = collections.Counter()
    named = collections.Counter()
    total_crypto = 0.0
    for line in rep.splitlines():
        m = re.match(r"\s+([\d.]+)%\s+libcrypto\.so\.3\s+\[\.\]\s+(\S+)", line)
        if not m:
            continue
        pct, sym = float(m.group(1)), m.group(2)
        total_crypto += pct
        if sym.startswith("0x"):
            addr = int(sym, 16)
            i = bisect.bisect_right(starts, addr) - 1
            if i >= 0 and ranges[i][0] <= addr < ranges[i][1]:
                kinds[ranges[i]] += pct
            else:
                named["(no frame info)"] += pct
        else:
            named[sym] += pct
    cache = {}
    by_kind = collections.Counter()
    for r, pct in kinds.items():
        k = cache.setdefault(r, classify(lib, *r))
        by_kind[k] += pct
    for sym, pct in named.items():
        by_kind["named: " + sym if pct >= 0.5 else "other libcrypto"] += pct
    print(f"libcrypto: {total_crypto:.1f}% of all samples")
    for k, pct in by_kind.most_common():
        share = 100 * pct / total_crypto if total_crypto else 0
        print(f"  {pct:6.2f}% of all  {share:5.1f}% of libcrypto  {k}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
