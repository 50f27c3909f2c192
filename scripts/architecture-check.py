#!/usr/bin/env python3
"""The architecture the README draws is the one the code has.

Checks, for every target in Sources/:
  - the README's picture of the targets (the code block under "## Architecture") shows exactly
    the dependencies Package.swift declares;
  - the target imports no module of this package it does not declare (SwiftPM lets a target
    import what its dependencies depend on; a layer must not reach past its neighbours).
Exits 1 and says what differs.
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
ARROW = "──▶"


def declared_targets():
    """Package.swift's targets under Sources/, each with the dependencies it declares."""
    text = (root / "Package.swift").read_text()
    chunks = re.split(r"\.(?=(?:target|executableTarget|systemLibrary|testTarget|plugin)\()", text)
    targets = {}
    for chunk in chunks:
        match = re.match(r"(target|executableTarget|systemLibrary)\(\s*name:\s*\"(\w+)\"", chunk)
        if not match or not (root / "Sources" / match.group(2)).is_dir():
            continue
        deps = re.search(r"dependencies:\s*\[([^\]]*)\]", chunk)
        targets[match.group(2)] = set(re.findall(r"\"(\w+)\"", deps.group(1))) if deps else set()
    return targets


def drawn_dependencies(names):
    """The dependencies the README's picture draws: `A ──▶ B ──▶ C, D` and `A ─┬──▶ B` branches."""
    readme = (root / "README.md").read_text()
    section = readme.split("## Architecture", 1)[1]
    picture = section.split("```", 2)[1]
    drawn = {}
    owner = None
    for line in picture.splitlines():
        line = re.sub(r"\([^)]*\)", "", line)
        segments = line.split(ARROW)
        if len(segments) < 2:
            continue
        source = words(segments[0], names)
        source = source[-1] if source else owner
        for segment in segments[1:]:
            found = words(segment, names)
            drawn.setdefault(source, set()).update(found)
            if "┬" in segment:
                owner = found[0]
            source = found[0] if len(found) == 1 else source
    return drawn


def words(segment, names):
    return [word for word in re.findall(r"[A-Za-z]+", segment) if word in names]


def imported_modules(target, names):
    """The modules of this package that a target's Swift files import."""
    found = set()
    for path in (root / "Sources" / target).rglob("*.swift"):
        for match in re.finditer(r"^(?:@\w+ )?import (?:(?:struct|enum|class|func|protocol|typealias) )?(\w+)",
                                 path.read_text(), re.M):
            if match.group(1) in names and match.group(1) != target:
                found.add(match.group(1))
    return found


def main():
    targets = declared_targets()
    names = set(targets) - {"EmbedDocumentsTool"}
    drawn = drawn_dependencies(names)
    problems = []
    for target in sorted(names):
        declared = targets[target] & names
        shown = drawn.get(target, set())
        if shown != declared:
            problems.append(f"README draws {target} → {sorted(shown)}, Package.swift declares {sorted(declared)}")
        reached = imported_modules(target, names) - targets[target]
        if reached:
            problems.append(f"{target} imports {sorted(reached)} without declaring them in Package.swift")
    for problem in problems:
        print(f"architecture: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"architecture: the README's picture and every import match Package.swift ({len(names)} targets)")


main()
