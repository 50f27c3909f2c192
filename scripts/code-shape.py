#!/usr/bin/env python3
"""Checks the code's shape (issue 10's bar): no Swift file in Sources/ over 400 lines and no
function, initializer, accessor or closure-free body declared with func/init/deinit/subscript over
60 lines. Prints each offender and exits 1 if there is one.
    scripts/code-shape.py [ROOT]"""
import os, re, sys

MAX_FILE, MAX_FUNCTION = 400, 60
DECLARATION = re.compile(r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|open|static|class|final|override|mutating|nonmutating|convenience|required|nonisolated|isolated|consuming|borrowing|dynamic|@\w+)\s+)*(func\s+[^\s(<]+|init[?!]?|deinit|subscript)\b')

def code_only(text):
    """The text with string literals and comments blanked (newlines kept), so braces count."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith('//', i):
            j = text.find('\n', i); j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2); j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        elif text.startswith('"""', i) or text.startswith('#"""', i):
            start = i + (4 if text[i] == '#' else 3)
            j = text.find('"""', start); j = n if j < 0 else j + 3
            if text[i] == '#' and j < n and text[j] == '#': j += 1
            out.append(re.sub(r'[^\n]', ' ', text[i:j])); i = j
        elif text[i] == '"':
            j, depth = i + 1, 0
            while j < n and text[j] != '\n':
                if text[j] == '\\' and text.startswith('\\(', j): depth += 1; j += 2; continue
                if text[j] == '\\': j += 2; continue
                if depth and text[j] == '(': depth += 1
                elif depth and text[j] == ')': depth -= 1
                elif not depth and text[j] == '"': break
                j += 1
            out.append(' ' * (j + 1 - i)); i = j + 1
        else:
            out.append(text[i]); i += 1
    return ''.join(out)

def long_functions(path):
    lines = code_only(open(path, encoding='utf-8').read()).split('\n')
    for number, line in enumerate(lines):
        match = DECLARATION.match(line)
        if not match or 'protocol' in line: continue
        depth, opened = 0, False
        for end in range(number, len(lines)):
            for ch in lines[end]:
                if ch == '{': depth += 1; opened = True
                elif ch == '}': depth -= 1
            if opened and depth <= 0: break
            if not opened and end > number + 8: break  # a requirement without a body
        if opened and end - number + 1 > MAX_FUNCTION:
            yield number + 1, end - number + 1, match.group(1)

def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    offenders = []
    for folder, _, files in os.walk(os.path.join(root, 'Sources')):
        for name in sorted(files):
            if not name.endswith('.swift'): continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, root)
            count = sum(1 for _ in open(path, encoding='utf-8'))
            if count > MAX_FILE: offenders.append(f'{relative}: {count} lines (at most {MAX_FILE})')
            for line, length, what in long_functions(path):
                offenders.append(f'{relative}:{line}: {what} is {length} lines (at most {MAX_FUNCTION})')
    for offender in offenders: print(offender)
    print(f'code shape: {len(offenders)} over the limits' if offenders else 'code shape: every file and function within the limits')
    return 1 if offenders else 0

sys.exit(main())
