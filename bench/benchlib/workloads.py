"""Workloads: what is sent (random-byte files of given sizes, folders of small files, a mixed
folder of real files, a photo folder of real JPEGs), made in the scratch folder (the photos are
cached in bench/.cache), and which rows each workload's table has."""

import os
import random
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

from .common import HERE, KiB, MiB, BenchError, human_size, log


class Workload:
    def __init__(self, key, label, paths, nbytes, count, runs, folder=None):
        self.key, self.label, self.paths, self.bytes, self.count, self.runs = key, label, paths, nbytes, count, runs
        self.folder = folder  # the folder holding the files (small), else None
        self.left_out = 0  # files left out because share refuses them (Share.screen)

    def drop(self, names):
        """Leaves out the files called `names` (already deleted from the folder)."""
        self.paths = [p for p in self.paths if os.path.basename(p) not in names]
        self.label = self.label.replace(f"{self.count} ", f"{len(self.paths)} ", 1)
        self.count = len(self.paths)
        self.bytes = sum(os.path.getsize(p) for p in self.paths)
        self.left_out = len(names)

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



def make_workloads(args, src):
    """The transfer workloads the arguments ask for, their files made under `src`."""
    a = args
    wl = []
    if "big" in a.workloads:
        wl.append(("big", f"one {human_size(a.big)} file", a.big))
    if "mid" in a.workloads:
        wl.append(("mid", f"one {human_size(a.mid)} file", a.mid))
    workloads = []
    for key, label, size in wl:
        path = os.path.join(src, f"{key}.bin")
        log(f"making {label} of random bytes")
        make_file(path, size)
        workloads.append(Workload(key, label, [path], size, 1, a.runs))
    if "small" in a.workloads:
        folder = os.path.join(src, "small")
        os.makedirs(folder, exist_ok=True)
        log(f"making {a.small_count} files of {human_size(a.small_size)}")
        paths = []
        width = max(4, len(str(a.small_count)))
        for i in range(1, a.small_count + 1):
            p = os.path.join(folder, f"f{i:0{width}d}.bin")
            make_file(p, a.small_size)
            paths.append(p)
        label = f"{a.small_count} files of {human_size(a.small_size)}"
        workloads.append(Workload("small", label, paths, a.small_count * a.small_size, a.small_count, a.runs, folder))
    if "mixed" in a.workloads:
        workloads.append(mixed_folder(os.path.join(src, "mixed"), a.mixed_count, a.runs))
    if "photos" in a.workloads:
        workloads.append(photo_folder(os.path.join(src, "photos"), a.photos, a.runs))
    if "tiny" in a.workloads:
        path = os.path.join(src, "tiny.bin")
        make_file(path, KiB)
        workloads.append(Workload("tiny", "one 1 KiB file, end to end", [path], KiB, 1, a.tiny_runs))
    os.sync()
    return workloads


def folder_workload(key, label, folder):
    names = sorted(os.listdir(folder))
    paths = [os.path.join(folder, n) for n in names]
    return key, label, paths, sum(os.path.getsize(p) for p in paths)


MIXED_ROOT = "/usr/share"
MIXED_MAX = 4 * MiB


def mixed_folder(folder, count, runs):
    """`count` real files of mixed kinds from /usr/share (1 B to 4 MiB each), copied flat into
    `folder` as NNNNN-NAME: taken in turn from each extension (and from files with none), in path
    order, so every kind the machine has is in it, as evenly as the machine allows. What is in it
    depends on the packages installed; the table says how many kinds and bytes."""
    by_ext = {}
    for root, dirs, names in os.walk(MIXED_ROOT):
        dirs.sort()
        for n in sorted(names):
            p = os.path.join(root, n)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if not (0 < st.st_size <= MIXED_MAX) or not os.path.isfile(p) or os.path.islink(p) or not os.access(p, os.R_OK):
                continue
            ext = os.path.splitext(n)[1].lower() or "(none)"
            by_ext.setdefault(ext, []).append(p)
    picked, queues = [], [list(reversed(v)) for _, v in sorted(by_ext.items())]
    while len(picked) < count and any(queues):
        for q in queues:
            if q and len(picked) < count:
                picked.append(q.pop())
    if len(picked) < count:
        raise BenchError(f"{MIXED_ROOT} has only {len(picked)} files of up to {human_size(MIXED_MAX)}, not {count}")
    os.makedirs(folder, exist_ok=True)
    kinds = set()
    for i, p in enumerate(picked, 1):
        kinds.add(os.path.splitext(p)[1].lower())
        shutil.copyfile(p, os.path.join(folder, f"{i:05d}-{os.path.basename(p)}"))
    key, _, paths, nbytes = folder_workload("mixed", "", folder)
    label = f"{count} real files of {len(kinds)} kinds from {MIXED_ROOT}"
    log(f"made {label} ({nbytes / 1e6:.1f} MB)")
    return Workload(key, label, paths, nbytes, count, runs, folder)


PHOTO_SIZE = (4000, 3000)  # 12 megapixels, as a phone's camera


def photo_folder(folder, count, runs):
    """`count` real JPEGs (cjpeg, libjpeg-turbo-progs) of 12 megapixels, 2 to 5 MB each: a
    gradient with a band of noise whose height sets the size (noise is what a JPEG cannot
    squeeze). Deterministic (seeded), made once into bench/.cache and copied from there."""
    if not shutil.which("cjpeg"):
        raise BenchError("cjpeg is not installed (libjpeg-turbo-progs; bench/run.sh installs it)")
    cache = os.path.join(HERE, ".cache", f"photos-{count}")
    done = os.path.join(cache, ".complete")
    if not os.path.exists(done):
        log(f"making {count} JPEGs (once, into {cache})")
        shutil.rmtree(cache, ignore_errors=True)
        os.makedirs(cache)
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            for _ in pool.map(lambda i: encode_photo(cache, i), range(1, count + 1)):
                pass
        open(done, "w").close()
    shutil.copytree(cache, folder, ignore=shutil.ignore_patterns(".complete"))
    key, _, paths, nbytes = folder_workload("photos", "", folder)
    label = f"{count} JPEGs of {PHOTO_SIZE[0] * PHOTO_SIZE[1] / 1e6:.0f} MP, {nbytes / count / 1e6:.1f} MB each on average"
    return Workload(key, label, paths, nbytes, count, runs, folder)


def encode_photo(folder, i):
    w, h = PHOTO_SIZE
    rng = random.Random(i)
    noise_rows = int(h * rng.uniform(0.17, 0.40))  # about 2 to 5 MB at quality 90
    tint = rng.randrange(256)
    gradient = bytes(v for x in range(w) for v in (x * 255 // w, tint, 255 - x * 255 // w))
    ppm = b"".join([f"P6\n{w} {h}\n255\n".encode(), rng.randbytes(w * 3 * noise_rows), gradient * (h - noise_rows)])
    path = os.path.join(folder, f"IMG_{i:04d}.jpg")
    r = subprocess.run(["cjpeg", "-quality", "90", "-outfile", path], input=ppm, stderr=subprocess.PIPE)
    if r.returncode:
        raise BenchError(f"cjpeg: {r.stderr.decode(errors='replace')[-300:]}")


def plan_rows(w, tools):
    """(row id, tool) in table order for one workload."""
    t = set(tools)
    rows = []
    if "ref" in t and not w.folder:
        if w.key != "tiny":
            rows.append(("ref-null", "ref"))
        rows.append(("ref-file", "ref"))
        if w.key != "tiny":
            rows.append(("ref-direct", "ref"))
            rows.append(("ref-sha", "ref"))
    if "disk" in t and w.key != "tiny":
        rows.append(("disk", "disk"))
        rows.append(("disk-fsync", "disk"))
        if not w.folder:
            rows.append(("disk-direct", "disk"))
    for tool in ("scp", "rsync", "rsync-fsync", "wormhole", "share"):
        if tool in t:
            rows.append((tool, tool))
    if "share" in t and w.key == "tiny":
        rows.append(("share-name", "share-name"))
    return rows
