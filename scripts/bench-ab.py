#!/usr/bin/env python3
"""Runs benchmark suites of two flowmatrix release binaries alternately in one sitting (A B A B …, so drift in the
machine's speed falls on both) and prints each figure's median for both and their ratio.

Usage: scripts/bench-ab.py BEFORE AFTER [--rounds N] [SUITE ...]
  BEFORE, AFTER: flowmatrix binaries (e.g. a release build of the previous commit in a git worktree, and
                 .build/release/flowmatrix); SUITE defaults to: dispatch worker wire (makespan is known too).
The figures read are CPU per job (the steadier figure on a shared machine), codec time per message and the wire's
frame rate; a ratio above 1 means AFTER costs more (for rates: AFTER is slower)."""
import re, statistics, subprocess, sys

# suite -> [(figure name, regex, higher is better)]
FIGURES = {
    "dispatch": [
        ("coordinator CPU µs/job, journal off", r"journal off:.*\n\s*CPU: coordinator process [\d.]+ s \(([\d.]+) µs per job", False),
        ("worker CPU µs/job, journal off", r"journal off:.*\n.*2 worker processes [\d.]+ s \(([\d.]+) µs per job", False),
        ("coordinator CPU µs/job, journal on", r"journal on:.*\n\s*CPU: coordinator process [\d.]+ s \(([\d.]+) µs per job", False),
        ("worker CPU µs/job, journal on", r"journal on:.*\n.*2 worker processes [\d.]+ s \(([\d.]+) µs per job", False),
        ("bytes per queued job", r"(\d+) bytes per job", False),
    ],
    "worker": [
        ("JobExecutor CPU µs/job", r"CPU ([\d.]+) µs per job", False),
    ],
    "makespan": [
        ("8 jobs of 1 s: makespan s", r"8 jobs of 1 s: ([\d.]+) s vs", False),
        ("30 jobs, no history: makespan s", r"no history: ([\d.]+) s vs", False),
        ("30 jobs, history: makespan s", r"\(longest first\): ([\d.]+) s vs", False),
        ("2,000 skewed jobs: % over the bound", r"([\d.]+)% over \(target <= 5%\)", False),
    ],
    "wire": [
        ("pipelined ASSIGN M frames/s", r"UVTransport \+ Wire: ([\d.]+)M frames/s", True),
        ("bulk GB/s", r"UVTransport \+ Wire: ([\d.]+) GB/s", True),
        ("encode ns/message", r"encode: (\d+) ns/message", False),
        ("decode ns/message", r"decode: (\d+) ns/message", False),
    ],
}


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    rounds = 3
    if "--rounds" in argv:
        rounds = int(argv[argv.index("--rounds") + 1])
        args.remove(str(rounds))
    if len(args) < 2:
        print(__doc__)
        return 64
    binaries = {"before": args[0], "after": args[1]}
    suites = args[2:] or ["dispatch", "worker", "wire"]
    unknown = [s for s in suites if s not in FIGURES]
    if unknown:
        print(f"unknown suite(s) {unknown}; known: {sorted(FIGURES)}")
        return 64
    values = {}
    for suite in suites:
        for round_ in range(rounds):
            for side in (["before", "after"] if round_ % 2 == 0 else ["after", "before"]):
                out = subprocess.run([binaries[side], "bench", suite], capture_output=True, text=True, timeout=1800)
                text = out.stdout + out.stderr
                for name, pattern, _ in FIGURES[suite]:
                    # Every occurrence: `dispatch` prints its journal-on case once per round (five rounds).
                    found = re.findall(pattern, text)
                    if found:
                        values.setdefault((suite, name, side), []).extend(float(v) for v in found)
                    else:
                        print(f"  {side} {suite}: no figure '{name}' in its output")
                print(f"  {suite} round {round_ + 1} {side} done", flush=True)
    print(f"\n{'figure':48} {'before':>10} {'after':>10} {'after/before':>13}  (medians over {rounds} runs each, of every figure a run prints; then every figure)")
    for suite in suites:
        for name, _, higher_better in FIGURES[suite]:
            a = values.get((suite, name, "before"))
            b = values.get((suite, name, "after"))
            if not a or not b:
                continue
            ma, mb = statistics.median(a), statistics.median(b)
            ratio = mb / ma if ma else float("nan")
            cost = (ma / mb if mb else float("nan")) if higher_better else ratio
            print(f"{suite + ': ' + name:48} {ma:10.2f} {mb:10.2f} {ratio:12.3f}×  (cost {cost:.3f}×)  "
                  + f"before {' '.join(f'{v:g}' for v in a)} / after {' '.join(f'{v:g}' for v in b)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
