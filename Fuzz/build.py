#!/usr/bin/env python3
"""Builds the libFuzzer targets under Fuzz/ from the package's current sources.

    Fuzz/build.py [TARGET...]      builds the named targets (default: all); prints one
                                   "NAME PATH" line per fuzzer on stdout

A fuzz target is a folder Fuzz/<Name>/ holding a harness (*.swift with an
@_cdecl("LLVMFuzzerTestOneInput") function) and a seed corpus (corpus/). Every harness is
compiled with the files in Fuzz/Support/.

What a harness needs is read, not configured: its `import` lines name package targets, and
the package's own target graph (`swift package dump-package`) gives their dependencies, the
system libraries behind them and where their sources live. Each module is compiled from
whatever its folder holds now (files added or moved by others are picked up), with coverage
instrumentation and AddressSanitizer, into .build/fuzz/. A module is rebuilt only when its
sources, its dependencies or the flags change.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUZZ = os.path.join(ROOT, "Fuzz")
OUT = os.path.join(ROOT, ".build", "fuzz")
SANITIZE = "fuzzer,address"
# -O: a fuzzer is only as good as its executions per second. Integer overflow and bounds checks
# still trap at -O; -enable-testing lets a harness reach internal parsers (@testable import).
SWIFT_FLAGS = ["-O", "-gline-tables-only", "-swift-version", "6", "-parse-as-library", "-enable-testing"]
C_FLAGS = ["-O1", "-gline-tables-only", "-fsanitize=fuzzer-no-link,address"]


def log(message):
    print(f"fuzz-build: {message}", file=sys.stderr, flush=True)


def tool(name):
    found = shutil.which(name) or (f"/opt/swift/usr/bin/{name}" if os.access(f"/opt/swift/usr/bin/{name}", os.X_OK) else None)
    if not found:
        sys.exit(f"fuzz-build: {name} not found (put the Swift toolchain on PATH)")
    return found


def run(command):
    result = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # ld.gold's notes about ASan's local helper symbols are noise.
    noise = re.compile(r"ld\.gold: warning: Cannot export local symbol|prohibited flag")
    output = "\n".join(line for line in result.stdout.splitlines() if not noise.search(line))
    if result.returncode != 0:
        sys.exit(f"fuzz-build: failed: {' '.join(command)}\n{output}")
    if output.strip():
        print(output, file=sys.stderr)


def package_targets():
    """The package's name, and name -> target description, from the manifest as SwiftPM reads it.

    FUZZ_PACKAGE_DUMP=FILE takes `swift package dump-package`'s output from FILE: SwiftPM waits
    for the lock on .build while another build holds it (the test command's release build runs
    beside the fuzzers)."""
    saved = os.environ.get("FUZZ_PACKAGE_DUMP")
    if saved:
        with open(saved) as file:
            manifest = json.load(file)
    else:
        dump = subprocess.run([tool("swift"), "package", "dump-package"], cwd=ROOT, capture_output=True, text=True)
        if dump.returncode != 0:
            sys.exit(f"fuzz-build: swift package dump-package failed:\n{dump.stderr}")
        manifest = json.loads(dump.stdout)
    targets = {}
    for target in manifest["targets"]:
        dependencies = []
        for dependency in target.get("dependencies", []):
            for kind in ("byName", "target"):
                if kind in dependency:
                    dependencies.append(dependency[kind][0])
        path = target.get("path") or os.path.join("Sources", target["name"])
        targets[target["name"]] = {
            "name": target["name"],
            "type": target["type"],
            "path": os.path.join(ROOT, path),
            "exclude": [os.path.join(ROOT, path, e) for e in target.get("exclude", [])],
            "pkgConfig": target.get("pkgConfig"),
            "dependencies": dependencies,
            "swiftSettings": settings(target, "swift"),
            "cSettings": settings(target, "c"),
        }
    return manifest["name"], targets


def settings(target, tool_name):
    """Compiler flags for a target's `swiftSettings` or `cSettings` (unconditional ones)."""
    flags = []
    for setting in target.get("settings", []):
        if setting.get("tool") != tool_name or setting.get("condition"):
            continue
        (kind, value), = setting["kind"].items()
        value = value.get("_0") if isinstance(value, dict) else value
        if kind == "define":
            flags.append(f"-D{value}")
        elif kind == "headerSearchPath":
            flags.append("-I" + os.path.join(ROOT, target.get("path") or os.path.join("Sources", target["name"]), value))
        elif kind == "enableUpcomingFeature":
            flags += ["-enable-upcoming-feature", value]
        elif kind == "enableExperimentalFeature":
            flags += ["-enable-experimental-feature", value]
        elif kind == "unsafeFlags":
            flags += value
        else:
            log(f"{target['name']}: ignoring the setting {kind} {value}")
    return flags


def sources(target, extensions):
    found = []
    for folder, dirs, files in os.walk(target["path"]):
        dirs[:] = sorted(d for d in dirs if os.path.join(folder, d) not in target["exclude"])
        for name in sorted(files):
            path = os.path.join(folder, name)
            if name.endswith(extensions) and path not in target["exclude"]:
                found.append(path)
    return found


def digest(paths, *extra):
    h = hashlib.sha256()
    for item in extra:
        h.update(repr(item).encode())
    for path in paths:
        h.update(path.encode())
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def imports(harness_files):
    names = set()
    for path in harness_files:
        with open(path, encoding="utf-8") as f:
            for line in f:
                match = re.match(r"\s*(?:@testable\s+)?import\s+(?:(?:struct|enum|class|func|var)\s+)?(\w+)", line)
                if match:
                    names.add(match.group(1))
    return names


def closure(roots, targets):
    """The package targets `roots` need, dependencies first."""
    order, seen = [], set()

    def visit(name):
        if name in seen or name not in targets:
            return
        seen.add(name)
        for dependency in targets[name]["dependencies"]:
            visit(dependency)
        order.append(name)

    for name in sorted(roots):
        visit(name)
    return order


def pkg_config(package, flag):
    if not package:
        return []
    result = subprocess.run(["pkg-config", flag, package], capture_output=True, text=True)
    return result.stdout.split() if result.returncode == 0 else []


class Builder:
    def __init__(self, package, targets):
        self.targets = targets
        # `package` declarations are visible across the package's modules, as under SwiftPM.
        self.swift_flags = SWIFT_FLAGS + ["-package-name", package]
        self.built = {}  # name -> {"stamp", "objects", "include", "link", "cc"}
        for folder in ("modules", "objects", "modulemaps", "bin", "stamps"):
            os.makedirs(os.path.join(OUT, folder), exist_ok=True)

    def search_flags(self, names):
        """-I and -Xcc flags that make modules `names` importable, with what links them."""
        flags, link = [], []
        for name in names:
            info = self.built[name]
            for include in info["include"]:
                flags += ["-I", include]
            for cc in info["cc"]:
                flags += ["-Xcc", cc]
            link += info["link"]
        return flags, link

    def build(self, name):
        if name in self.built:
            return
        target = self.targets[name]
        needed = closure(target["dependencies"], self.targets)
        for dependency in needed:
            self.build(dependency)
        if target["type"] == "system":
            self.system(target)
        elif sources(target, (".swift",)):
            self.swift(target, needed)
        else:
            self.c(target, needed)

    def system(self, target):
        cflags = pkg_config(target["pkgConfig"], "--cflags")
        self.built[target["name"]] = {
            "stamp": digest(sources(target, (".modulemap", ".h")), cflags),
            "objects": [], "include": [target["path"]], "cc": cflags,
            "link": pkg_config(target["pkgConfig"], "--libs"),
        }

    def c(self, target, needed):
        name = target["name"]
        include = os.path.join(target["path"], "include")
        files = sources(target, (".c",))
        headers = sources(target, (".h", ".modulemap"))
        stamp = digest(files + headers, C_FLAGS, target["cSettings"], [self.built[d]["stamp"] for d in needed])
        objects = [os.path.join(OUT, "objects", f"{name}-{os.path.basename(f)}.o") for f in files]
        mapdir = os.path.join(OUT, "modulemaps", name)
        if os.path.exists(os.path.join(include, "module.modulemap")):
            mapdir = include
        else:
            # What SwiftPM generates for a C target: its umbrella header, else its include folder.
            os.makedirs(mapdir, exist_ok=True)
            umbrella = os.path.join(include, f"{name}.h")
            body = f'umbrella header "{umbrella}"' if os.path.exists(umbrella) else f'umbrella "{include}"'
            with open(os.path.join(mapdir, "module.modulemap"), "w") as f:
                f.write(f"module {name} {{\n  {body}\n  export *\n}}\n")
        if not self.fresh(name, stamp):
            log(f"compiling {name} (C)")
            for source, obj in zip(files, objects):
                run([tool("clang"), "-c", *C_FLAGS, *target["cSettings"], "-I", include, source, "-o", obj])
            self.stamp(name, stamp)
        self.built[name] = {"stamp": stamp, "objects": objects, "include": [mapdir], "cc": ["-I" + include], "link": []}

    def swift(self, target, needed):
        name = target["name"]
        files = sources(target, (".swift",))
        search, _ = self.search_flags(needed)
        flags = self.swift_flags + target["swiftSettings"]
        stamp = digest(files, flags, SANITIZE, search, [self.built[d]["stamp"] for d in needed])
        obj = os.path.join(OUT, "objects", f"{name}.o")
        if not self.fresh(name, stamp):
            log(f"compiling {name} ({len(files)} files)")
            run([
                tool("swiftc"), "-c", "-wmo", "-num-threads", "0", *flags, f"-sanitize={SANITIZE}",
                "-module-name", name, "-emit-module", "-emit-module-path", os.path.join(OUT, "modules", f"{name}.swiftmodule"),
                "-I", os.path.join(OUT, "modules"), *search, *files, "-o", obj,
            ])
            self.stamp(name, stamp)
        self.built[name] = {"stamp": stamp, "objects": [obj], "include": [], "cc": [], "link": []}

    def fresh(self, name, stamp):
        path = os.path.join(OUT, "stamps", name)
        return os.path.exists(path) and open(path).read() == stamp

    def stamp(self, name, stamp):
        with open(os.path.join(OUT, "stamps", name), "w") as f:
            f.write(stamp)

    def fuzzer(self, fuzz_target):
        harness = sorted(
            os.path.join(FUZZ, fuzz_target, f) for f in os.listdir(os.path.join(FUZZ, fuzz_target)) if f.endswith(".swift"))
        support = sorted(os.path.join(FUZZ, "Support", f) for f in os.listdir(os.path.join(FUZZ, "Support")) if f.endswith(".swift"))
        modules = closure(imports(harness) & set(self.targets), self.targets)
        for module in modules:
            self.build(module)
        search, link = self.search_flags(modules)
        objects = [o for m in modules for o in self.built[m]["objects"]]
        binary = os.path.join(OUT, "bin", fuzz_target)
        stamp = digest(harness + support, self.swift_flags, SANITIZE, search, link, [self.built[m]["stamp"] for m in modules])
        if not (self.fresh("fuzzer-" + fuzz_target, stamp) and os.path.exists(binary)):
            log(f"linking {fuzz_target} ({', '.join(modules)})")
            run([
                tool("swiftc"), *self.swift_flags, f"-sanitize={SANITIZE}", "-module-name", f"{fuzz_target}Fuzzer",
                "-I", os.path.join(OUT, "modules"), *search, *harness, *support, *objects, *dict.fromkeys(link), "-o", binary,
            ])
            self.stamp("fuzzer-" + fuzz_target, stamp)
        return binary


def fuzz_targets():
    return sorted(
        name for name in os.listdir(FUZZ)
        if name != "Support" and os.path.isdir(os.path.join(FUZZ, name))
        and any(f.endswith(".swift") for f in os.listdir(os.path.join(FUZZ, name))))


def main(arguments):
    available = fuzz_targets()
    wanted = arguments or available
    unknown = [name for name in wanted if name not in available]
    if unknown:
        sys.exit(f"fuzz-build: no fuzz target {', '.join(unknown)} (known: {', '.join(available)})")
    builder = Builder(*package_targets())
    for name in wanted:
        print(name, builder.fuzzer(name), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
