#!/usr/bin/env python3
"""Lists C++ functions longer than a limit under core/ and plugins/ (tests left out).

    scripts/long_functions.py                  list functions over 150 lines
    scripts/long_functions.py --check          fail unless each is in the allow-list
                                               (scripts/long_functions_allowed.txt) and
                                               each allow-list entry is still long

A function is a brace block opened at namespace or class scope after a
parameter list (`name(...) qualifiers {`); its length runs from the line of its
name to the line of its closing brace. Comments, string and character literals
and preprocessor lines are blanked first. Known blind spot: a constructor whose
member initializer list uses braces (`: a_{x} {`) is not seen.

Allow-list lines: `<path> <function> -- <reason>`; `#` starts a comment line.
"""

import argparse
import bisect
import os
import re
import sys

ROOTS = ("core", "plugins")
EXTENSIONS = (".cc", ".cpp", ".cxx", ".h", ".hpp", ".cu", ".cuh")
QUALIFIERS = re.compile(r"^(\s|const\b|override\b|final\b|mutable\b|noexcept(\([^)]*\))?|&|"
                        r"->\s*[\w:<>,\s*&]+)*$")
NAME = re.compile(r"(operator\s*\(\)|operator\s*[^\s(]+|~?[A-Za-z_][\w:~]*)\s*$")


SPECIAL = re.compile(r'//|/\*|R"|"|\'|^[ \t]*#', re.M)


def blank(text):
    """Comments, literals and preprocessor lines as spaces; newlines kept."""
    out = []
    i, n = 0, len(text)
    while True:
        m = SPECIAL.search(text, i)
        if not m:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:m.start()])
        i, tok = m.start(), m.group()
        if tok.endswith("#"):
            # A preprocessor line, with its backslash continuations.
            j = i
            while True:
                j = text.find("\n", j)
                if j < 0 or text[j - 1] != "\\":
                    break
                j += 1
            j = n if j < 0 else j
        elif tok == "//":
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif tok == "/*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif tok == 'R"' and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            r = re.match(r'R"([^()\\\s]{0,16})\(', text[i:i + 20])
            if r:
                close = ")" + r.group(1) + '"'
                j = text.find(close, i + r.end())
                j = n if j < 0 else j + len(close)
            else:
                j = i + 1
        elif tok == 'R"':
            j = i + 1  # an identifier ending in R; its quote is matched next
        elif tok == "'" and i > 0 and text[i - 1].isalnum():
            j = i + 1  # a digit separator (1'000)
        else:
            q = tok[-1]
            j = i + 1
            while j < n and text[j] != q and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        chunk = text[i:j]
        if tok == 'R"' and j == i + 1:
            out.append("R")
        elif tok == "'" and j == i + 1:
            out.append("'")
        else:
            out.append(re.sub(r"[^\n]", " ", chunk))
        i = j


def strip_template(header):
    m = re.match(r"\s*template\s*<", header)
    if not m:
        return header
    depth, i = 1, m.end()
    while i < len(header) and depth:
        depth += {"<": 1, ">": -1}.get(header[i], 0)
        i += 1
    return strip_template(header[i:])


def function_name(header):
    """The function's name when `header` ends a function head, else None."""
    header = strip_template(header)
    close = header.rfind(")")
    if close < 0 or not QUALIFIERS.match(header[close + 1:]):
        return None
    depth, i = 0, close
    while i >= 0:
        depth += {")": 1, "(": -1}.get(header[i], 0)
        if depth == 0:
            break
        i -= 1
    if i < 0:
        return None
    before = header[:i]
    if "=" in re.sub(r"\([^()]*\)", "", before).replace("operator=", ""):
        return None  # an initializer
    if re.search(r"\b(if|for|while|switch|catch|return)\s*$", before):
        return None
    m = NAME.search(before)
    return m.group(1).replace(" ", "") if m else None


def functions(path):
    """(name, first line, line count) of each function in the file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = blank(f.read())
    newlines = [m.start() for m in re.finditer("\n", text)]

    def line_of(offset):
        return bisect.bisect_left(newlines, offset) + 1

    stack = []  # (kind, name, start offset, start line)
    boundary = 0
    found = []
    for brace in re.finditer(r"[;{}]", text):
        i, c = brace.start(), brace.group()
        if c == ";":
            boundary = i + 1
        elif c == "{":
            header = text[boundary:i]
            inside = any(kind in ("fn", "inner") for kind, *_ in stack)
            name = None if inside else function_name(header)
            if inside:
                stack.append(("inner", None, i, 0))
            elif name:
                at = boundary + header.rfind(name.split("::")[-1])
                classes = [n for kind, n, *_ in stack if kind == "class" and n]
                full = name if "::" in name else "::".join(classes + [name])
                stack.append(("fn", full, i, line_of(at)))
            else:
                m = re.search(r"\b(class|struct|union)\s+(\w+)", header)
                kind = "class" if m and not re.search(r"\benum\b", header) else "ns"
                stack.append((kind, m.group(2) if m else None, i, 0))
            boundary = i + 1
        elif c == "}":
            if stack:
                kind, name, _, line = stack.pop()
                if kind == "fn":
                    found.append((name, line, line_of(i) - line + 1))
            boundary = i + 1
    return found


def sources(root):
    for top in ROOTS:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if d not in ("tests", "test"))
            for f in sorted(files):
                if f.endswith(EXTENSIONS) and not re.search(r"_test\.\w+$", f):
                    yield os.path.join(folder, f)


def long_functions(root, limit):
    out = []
    for path in sources(root):
        rel = os.path.relpath(path, root)
        for name, line, count in functions(path):
            if count > limit:
                out.append((rel, name, line, count))
    return out


def read_allowed(path):
    allowed, errors = {}, []
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        entry, _, reason = line.partition(" -- ")
        parts = entry.split()
        if len(parts) != 2 or not reason.strip():
            errors.append(f"{path}:{n}: expected '<path> <function> -- <reason>'")
            continue
        allowed[(parts[0], parts[1])] = reason.strip()
    return allowed, errors


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.dirname(here), help="repository root")
    ap.add_argument("--max-lines", type=int, default=150)
    ap.add_argument("--check", action="store_true", help="compare with the allow-list")
    ap.add_argument("--allowed", default=os.path.join(here, "long_functions_allowed.txt"))
    args = ap.parse_args()

    found = long_functions(args.root, args.max_lines)
    if not args.check:
        for rel, name, line, count in found:
            print(f"{rel}:{line}: {name} ({count} lines)")
        return 0
    allowed, errors = read_allowed(args.allowed)
    seen = set()
    for rel, name, line, count in found:
        seen.add((rel, name))
        if (rel, name) not in allowed:
            errors.append(f"{rel}:{line}: {name} has {count} lines (over {args.max_lines}): "
                          f"split it, or add it to {os.path.basename(args.allowed)} with a reason")
    for rel, name in sorted(set(allowed) - seen):
        errors.append(f"{os.path.basename(args.allowed)}: {rel} {name} is no longer over "
                      f"{args.max_lines} lines (or gone): remove the entry")
    for e in errors:
        print(e, file=sys.stderr)
    if not errors:
        print(f"{len(found)} functions over {args.max_lines} lines, all in the allow-list")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
