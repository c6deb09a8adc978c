#!/usr/bin/env python3
"""Checks that Package.swift equals the code: every target's declared dependencies are imported by its sources,
and every package module its sources import is declared; and that the module table in docs/ARCHITECTURE.md names
every module with the dependencies Package.swift gives it. Prints each mismatch; exits 1 when there is one.
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

module_names = {name.replace("-", "_"): name for name in targets}
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
            # A target named with a hyphen (`flowmatrix-bench`) is imported by its C99 name (`flowmatrix_bench`).
            module = module_names.get(m.group(1)) if m else None
            if module:
                imported.add(module)
    graph[name] = sorted(imported)
    for missing in sorted(imported - declared):
        problems.append(f"{name}: imports {missing}, which Package.swift does not declare")
    for unused in sorted(declared - imported):
        problems.append(f"{name}: declares {unused}, which none of its sources imports")

# The layering table in docs/ARCHITECTURE.md: "| `Module` … | owns | imports |", imports as a comma list in which
# parentheses are comments and "Foundation", "toolchain only" and "—" name nothing of the package.
documented = {}
for line in (root / "docs" / "ARCHITECTURE.md").read_text().splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != 3 or not cells[0].startswith("`"):
        continue
    name = re.match(r"`([^`]+)`", cells[0]).group(1)
    if name not in targets or targets[name][0] == "systemLibrary":
        continue
    text = re.sub(r"\([^)]*\)", "", cells[2])
    documented[name] = {d.strip() for d in text.split(",")} - {"", "Foundation", "toolchain only", "—"}
for name, (kind, declared, _) in sorted(targets.items()):
    if kind in ("systemLibrary", "testTarget") or name == "flowmatrix" or name.endswith("-worker") and name != "test-worker":
        continue
    if name not in documented:
        problems.append(f"docs/ARCHITECTURE.md: the module table has no row for {name}")
    elif documented[name] != declared:
        problems.append(f"docs/ARCHITECTURE.md: {name} imports {', '.join(sorted(documented[name])) or 'nothing'} "
                        + f"there, but Package.swift declares {', '.join(sorted(declared)) or 'nothing'}")

if "--graph" in sys.argv:
    for name in sorted(graph):
        if targets[name][0] != "testTarget":
            print(f"{name} -> {', '.join(graph[name]) or '(toolchain only)'}")
for p in problems:
    print(p)
print(f"module graph: {len(graph)} targets, {len(problems)} mismatch(es)")
sys.exit(1 if problems else 0)
