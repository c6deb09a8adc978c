#!/usr/bin/env bash
# Fuzzes the Wire frame decoder and message decoder with libFuzzer + AddressSanitizer.
# Usage: Fuzz/run-wire-fuzz.sh SECONDS [extra libFuzzer flags]
# Compiles the codec sources (not the handshake, which needs libcrypto) with the fuzz entry point; the seed
# corpus is every test vector of docs/PROTOCOL.md. Findings (crash-*, leak-*) land in Fuzz/wire/findings/.
set -euo pipefail
seconds="${1:-60}"
shift || true
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$root/.build/fuzz-wire"
mkdir -p "$work/corpus" "$work/modules" "$root/Fuzz/wire/findings"

sources=(ByteCoding.swift Frame.swift Message.swift Message+Codec.swift WireError.swift)
paths=()
for s in "${sources[@]}"; do paths+=("$root/Sources/Wire/$s"); done

# The codec speaks the shared vocabulary (statuses, keep policies): its module first.
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name FlowVocabulary -emit-module \
    -emit-module-path "$work/modules/FlowVocabulary.swiftmodule" -emit-library -static \
    -o "$work/libFlowVocabulary.a" "$root"/Sources/FlowVocabulary/*.swift 2>&1 | grep -v "Cannot export local symbol" || true
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name WireFuzz -I "$work/modules" -L "$work" \
    -lFlowVocabulary "${paths[@]}" "$root/Fuzz/wire/FuzzMain.swift" -o "$work/wire-fuzz" 2>&1 \
    | grep -v "Cannot export local symbol" || true

# Seed corpus: one file per vector block (valid and malformed) of docs/PROTOCOL.md.
python3 - "$root/docs/PROTOCOL.md" "$work/corpus" <<'PY'
import re, sys, pathlib
text = open(sys.argv[1]).read()
out = pathlib.Path(sys.argv[2])
for kind, name, body in re.findall(r'```(vector|malformed) (\S+)[^\n]*\n(.*?)```', text, re.S):
    hexdigits = ''.join(line.split('#')[0] for line in body.splitlines())
    (out / f'{kind}-{name}').write_bytes(bytes.fromhex(hexdigits.replace(' ', '')))
# All valid vectors back to back: a pipelined stream.
PY
cat "$work"/corpus/vector-* > "$work/corpus/stream-all"

cd "$root/Fuzz/wire/findings"
"$work/wire-fuzz" "$work/corpus" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 "$@"
