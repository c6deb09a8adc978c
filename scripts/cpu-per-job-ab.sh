#!/usr/bin/env bash
# CPU per job of a real `flowmatrix serve` and a real `flowmatrix worker` process (50,000 no-op jobs, 64 slots, keep
# none), for two binaries alternately, ROUNDS times each: the whole-process figure beside `bench dispatch`'s in-run one.
# Usage: scripts/cpu-per-job-ab.sh BEFORE AFTER [ROUNDS]   (needs perf; task-clock is CPU time)
set -euo pipefail
before=$(realpath "$1") after=$(realpath "$2") rounds=${3:-8}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/corpus"
echo '{"id": "noop", "title": "three no-op steps", "steps": [{"verb": "open", "target": "home"}, {"verb": "tap", "target": "button"}, {"verb": "assert", "target": "label"}]}' > "$dir/corpus/noop.json"
python3 -c 'import json,sys; json.dump({"name":"cpu-per-job","corpus":"corpus","registry":"noop","policy":{"keep":"none"},"axes":{"a":[f"a{i}" for i in range(100)],"b":[f"b{i}" for i in range(500)]}}, open(sys.argv[1],"w"))' "$dir/m.json"
printf 'cpu-per-job-token-0123456789abcdef' > "$dir/token"; chmod 600 "$dir/token"
cpu() { grep task-clock "$1" | cut -d, -f1; }
one() {
    local bin=$1; rm -rf "$dir/.flowmatrix"
    ( cd "$dir" && perf stat -x, -e task-clock -o serve.stat "$bin" serve m.json --listen 127.0.0.1:0 --token-file token > serve.out 2>&1 ) &
    local serve=$! port=""
    for _ in $(seq 1 300); do
        port=$(grep -o 'workers connecting to 127.0.0.1:[0-9]*' "$dir/serve.out" 2>/dev/null | grep -o '[0-9]*$' || true)
        [ -n "$port" ] && break; sleep 0.1
    done
    [ -n "$port" ] || { echo "serve did not say its port:" >&2; cat "$dir/serve.out" >&2; kill $serve 2>/dev/null; exit 1; }
    ( cd "$dir" && perf stat -x, -e task-clock -o worker.stat "$bin" worker --connect 127.0.0.1:$port --token-file token \
        --registry noop --slots 64 --exit-after-drain > worker.out 2>&1 )
    wait $serve || true
    echo "$(cpu "$dir/serve.stat") $(cpu "$dir/worker.stat")"
}
results=()
for r in $(seq 1 "$rounds"); do
    if [ $((r % 2)) -eq 1 ]; then order="before after"; else order="after before"; fi
    for side in $order; do
        bin=$before; [ "$side" = after ] && bin=$after
        results+=("$side $(one "$bin")")
    done
done
printf '%s\n' "${results[@]}" > "$dir/results.txt"
python3 - "$dir/results.txt" <<'PY'
import sys, statistics
d = {"before": ([], []), "after": ([], [])}
for line in open(sys.argv[1]):
    side, s, w = line.split()
    d[side][0].append(float(s) * 1000 / 50000)
    d[side][1].append(float(w) * 1000 / 50000)
for i, name in enumerate(["serve (plan, journal, dispatch)", "worker"]):
    a, b = statistics.median(d["before"][i]), statistics.median(d["after"][i])
    every = lambda side: " ".join(f"{v:.1f}" for v in sorted(d[side][i]))
    print(f"{name:34} CPU µs per job: before {a:.1f}, after {b:.1f}, after/before {b / a:.3f} "
          + f"(medians of {len(d['before'][i])}; before {every('before')} / after {every('after')})")
PY
