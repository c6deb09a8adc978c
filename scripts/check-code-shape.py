#!/usr/bin/env python3
"""Checks the code's shape rules (docs/ARCHITECTURE.md, "Code shape"): no Swift file over 500 lines and no function
or initializer over 80 lines, except the exceptions listed below, each with its reason. An exception that no longer
applies (the file or function shrank, or is gone) is reported too, so the list stays true.
Prints each finding as path:line; exits 1 when there is one.
Usage: scripts/check-code-shape.py [--list]   (--list prints every function over 60 lines, exceptions included)"""
import pathlib, re, sys

root = pathlib.Path(__file__).resolve().parent.parent
FILE_LIMIT = 500
FUNCTION_LIMIT = 80
FOLDERS = ["Sources", "Tests", "Workers", "Fuzz"]

# (path, function name) -> why it may be longer than FUNCTION_LIMIT lines.
FUNCTION_EXCEPTIONS = {
    ("Sources/Wire/Message+Codec.swift", "decode"): "flat switch: one case per message type, each a few reads",
    ("Sources/Wire/Message+Codec.swift", "encode"): "flat switch: one case per message type, each a few writes",
    ("Sources/Journal/RecordApplier.swift", "applyOne"): "flat switch: one case per journal record, each its statement",
}
# path -> why it may be longer than FILE_LIMIT lines.
FILE_EXCEPTIONS = {}

DECLARATION = re.compile(r'(?:^|\s)(func\s+([A-Za-z_][A-Za-z0-9_]*|[^\s(<]+)|init[?!]?\s*[(<])')


def code_lines(text):
    """The file's lines with string literals and // comments blanked, so braces inside them do not count."""
    out = []
    in_block = False
    in_multiline = False
    for line in text.split("\n"):
        if in_multiline:
            if '"""' in line:
                in_multiline = False
                line = line[line.index('"""') + 3:]
            else:
                out.append("")
                continue
        if '"""' in line and line.count('"""') % 2 == 1:
            in_multiline = True
            line = line[:line.index('"""')]
        if in_block:
            if "*/" in line:
                in_block = False
                line = line[line.index("*/") + 2:]
            else:
                out.append("")
                continue
        line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
        line = line.split("//")[0]
        if "/*" in line:
            if "*/" not in line[line.index("/*"):]:
                in_block = True
            line = re.sub(r'/\*.*?(\*/|$)', "", line)
        out.append(line)
    return out


def functions(lines):
    """(name, first line, line count) for every func/init with a body."""
    found = []
    for i, line in enumerate(lines):
        m = DECLARATION.search(line)
        if not m or re.match(r'\s*(case|let|var)\s', line):
            continue
        name = m.group(2) or "init"
        depth, started, j = 0, False, i
        while j < len(lines):
            s = lines[j]
            # A requirement without a body (protocols): the next declaration starts before any brace.
            if not started and j > i and re.search(r'(^|\s)(func|var|let|case|init)\b', s):
                break
            depth += s.count("{") - s.count("}")
            if "{" in s:
                started = True
            if started and depth <= 0:
                break
            j += 1
        if started:
            found.append((name, i + 1, j - i + 1))
    return found


def main():
    listing = "--list" in sys.argv
    problems = []
    used_functions, used_files = set(), set()
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.swift")):
            if ".build" in path.parts or "Fixtures" in path.parts:
                continue
            relative = path.relative_to(root).as_posix()
            text = path.read_text(errors="replace")
            count = text.count("\n") + (0 if text.endswith("\n") else 1)
            if count > FILE_LIMIT:
                if relative in FILE_EXCEPTIONS:
                    used_files.add(relative)
                else:
                    problems.append(f"{relative}:1: {count} lines (the limit is {FILE_LIMIT}): split it by job")
            for name, line, length in functions(code_lines(text)):
                if listing and length > 60:
                    print(f"{length:4} {relative}:{line} {name}")
                if length <= FUNCTION_LIMIT:
                    continue
                if (relative, name) in FUNCTION_EXCEPTIONS:
                    used_functions.add((relative, name))
                    continue
                problems.append(f"{relative}:{line}: {name} is {length} lines (the limit is {FUNCTION_LIMIT}): "
                                + "extract named steps, or list it in FUNCTION_EXCEPTIONS with the reason")
    for key in sorted(set(FUNCTION_EXCEPTIONS) - used_functions):
        problems.append(f"{key[0]}: the exception for {key[1]} no longer applies; remove it from the list")
    for key in sorted(set(FILE_EXCEPTIONS) - used_files):
        problems.append(f"{key}: the file exception no longer applies; remove it from the list")
    for p in problems:
        print(p)
    if problems:
        print(f"check-code-shape: {len(problems)} finding(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
