#!/usr/bin/env python3
"""Checks that Package.swift equals the code: every target's declared dependencies are imported by its sources,
and every package module its sources import is declared. Prints each mismatch; exits 1 when there is one.
Usage: scripts/check-module-graph.py [--graph]   (--graph prints the module graph as docs/ARCHITECTURE.md shows it)"""
import pathlib, re, sys

root = pathlib.Path(__file__).resolve().parent.parent
manifest = (root / "Package.swift").read_text()

targets = {}
for match in re.finditer(r'\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)"(.*?)\)(?=,\s*(?://[^\n]*\n\s*)*\.|\s*,?\s*\])', manifest, re.S):
    kind, name, rest = match.groups()
    deps = re.search(r'dependencies:\s*\[(.*?)\]', rest, re.S)
    declared = set(re.findall(r'"([^"]+)"', deps.group(1))) if deps else set()
    path = re.search(r'path:\s*"([^"]+)"', rest)
    folder = path.group(1) if path else (f"Tests/{name}" if kind == "testTarget" else f"Sources/{name}")
    targets[name] = (kind, declared, root / folder)

problems = []
graph = {}
for name, (kind, declared, folder) in sorted(targets.items()):
    if kind == "systemLibrary":
        continue
    imported = set()
    for source in folder.rglob("*.swift"):
        if "Fixtures" in source.parts:
            continue
        for line in source.read_text().splitlines():
            m = re.match(r'\s*(?:@testable\s+|@_implementationOnly\s+|public\s+)?import\s+(\w+)', line)
            if m and m.group(1) in targets:
                imported.add(m.group(1))
    graph[name] = sorted(imported)
    for missing in sorted(imported - declared):
        problems.append(f"{name}: imports {missing}, which Package.swift does not declare")
    for unused in sorted(declared - imported):
        problems.append(f"{name}: declares {unused}, which none of its sources imports")

if "--graph" in sys.argv:
    for name in sorted(graph):
        if targets[name][0] != "testTarget":
            print(f"{name} -> {', '.join(graph[name]) or '(toolchain only)'}")
for p in problems:
    print(p)
print(f"module graph: {len(graph)} targets, {len(problems)} mismatch(es)")
sys.exit(1 if problems else 0)
