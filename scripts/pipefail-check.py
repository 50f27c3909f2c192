#!/usr/bin/env python3
"""Finds pipelines that fail by chance under `set -o pipefail` (every script here sets it): a
reader that stops early (`grep -q`, `head`, `grep -m`) leaves the writer to die of SIGPIPE when it
has more to write, and the pipeline then fails although the reader found what it wanted (the
package test once reported 'no share(1)' for a man page that was there). Read the whole input
instead: `grep PATTERN >/dev/null`, `awk 'NR == 1'`. A script may turn pipefail off (`set +o
pipefail`); lines after that are not checked. Prints each offender and exits 1 if there is one.
It reads one line at a time and knows `grep -q`/`-m` (short options) and `head`: it misses
`grep --quiet`, `-q` after the pattern, a reader on a continuation line, and readers in other
languages that stop early (Python's `next()` on stdin, `sed q`) — look for those by eye.
    scripts/pipefail-check.py [ROOT]"""
import os, re, sys

EARLY_READER = re.compile(r'\|\s*(?:grep\s+(?:-\w+\s+)*-\w*[qm]\w*\b|head\b)')

def scripts(root):
    for folder in ('scripts', 'bench', '.ci'):
        for base, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                path = os.path.join(base, name)
                if name.endswith('.sh') or name == 'run' and folder == '.ci':
                    yield path

def offenders(path):
    checked = True
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            code = line.split(' #', 1)[0]
            if code.lstrip().startswith('#'): continue
            if re.search(r"\bset\b[^#]*\+o\s+pipefail", code): checked = False
            if checked and EARLY_READER.search(code): yield number, line.rstrip()

def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    found = [(p, n, l) for p in scripts(root) for n, l in offenders(p)]
    for path, number, line in found:
        print(f'{os.path.relpath(path, root)}:{number}: reads only part of a pipeline under pipefail: {line.strip()}')
    sys.exit(1 if found else 0)

if __name__ == '__main__':
    main()
