#!/usr/bin/env bash
# Fuzzes the coordinator engine (scheduler, attempt journal, peer bounds) with libFuzzer + AddressSanitizer:
# decoded message sequences from several peers, joins, closes, ticks and ingest events (Fuzz/engine/FuzzMain.swift).
# Usage: Fuzz/run-engine-fuzz.sh SECONDS [extra libFuzzer flags]
# SANITIZERS=fuzzer runs without AddressSanitizer (several times the executions per second; Swift's own traps —
# overflow, bounds, force-unwrap — still end the run as crashes); the default is fuzzer,address.
# Builds the package's modules instrumented in .build/fuzz-engine, links them with the entry point, and seeds the
# corpus with the protocol's test vectors (docs/PROTOCOL.md) wrapped as frame operations.
set -euo pipefail
seconds="${1:-60}"
shift || true
root="$(cd "$(dirname "$0")/.." && pwd)"
sanitizers="${SANITIZERS:-fuzzer,address}"
scratch="$root/.build/fuzz-engine-${sanitizers//,/-}"
work="$scratch/run"
mkdir -p "$work/corpus" "$root/Fuzz/engine/findings"

swift build -c release --package-path "$root" --scratch-path "$scratch" --target Coordinator \
    -Xswiftc -sanitize="$sanitizers" -Xswiftc -parse-as-library 2>&1 | { grep -E "error|Build complete" || true; } | tail -3
debug="$scratch/release"
objects=()
for t in Coordinator Wire UVTransport Artifacts Gzip Journal MatrixPlan FlowSpec FlowCrypto FlowVocabulary; do
    objects+=("$debug/$t.build"/*.o)
done
includes=()
for c in CLibUV CZlib CSQLite CCrypto; do includes+=(-Xcc "-fmodule-map-file=$root/Sources/$c/module.modulemap" -I "$root/Sources/$c"); done
swiftc -sanitize="$sanitizers" -parse-as-library -O -module-name EngineFuzz -I "$debug/Modules" "${includes[@]}" \
    "$root/Fuzz/engine/FuzzMain.swift" "${objects[@]}" -luv -lz -lsqlite3 -lcrypto -o "$work/engine-fuzz" 2>&1 \
    | grep -v "Cannot export local symbol" || true

# Seed corpus: join two peers (version 3, 2 slots), then each protocol vector as a frame from peer 1, then a tick;
# and once with peer 2 on version 2 sending every vector (the version 3 ones must expel it, without blame).
python3 - "$root/docs/PROTOCOL.md" "$work/corpus" <<'PY'
import re, sys, pathlib
text = open(sys.argv[1]).read()
out = pathlib.Path(sys.argv[2])
frames = []
for name, body in re.findall(r'```vector (\S+)[^\n]*\n(.*?)```', text, re.S):
    frames.append(bytes.fromhex(''.join(line.split('#')[0] for line in body.splitlines()).replace(' ', '')))
join = bytes([0x00, 0x21, 0x01, 0x21])
credit = bytes([0x04, 0, 0, 0, 2, 0x10, 8])
for i, f in enumerate(frames):
    (out / f'seed-{i}').write_bytes(join + credit + bytes([0x04]) + f + bytes([0x0c, 40]))
(out / 'seed-all').write_bytes(join + credit + b''.join(bytes([0x04]) + f for f in frames) + bytes([0x0c, 200, 0x08]))
mixed = bytes([0x00, 0xa5, 0x01, 0x11]) + credit + bytes([0x05, 0, 0, 0, 2, 0x10, 8])
(out / 'seed-mixed').write_bytes(mixed + b''.join(bytes([0x05]) + f for f in frames) + bytes([0x0c, 200, 0x09]))
PY

cd "$root/Fuzz/engine/findings"
"$work/engine-fuzz" "$work/corpus" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 "$@"
