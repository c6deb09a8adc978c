#!/usr/bin/env bash
# Fuzzes the FlowSpec scenario loader (JSON parser, validation, timeouts) and the matrix parser with
# libFuzzer + AddressSanitizer.
# Usage: Fuzz/run-spec-fuzz.sh SECONDS [extra libFuzzer flags]
# Builds FlowVocabulary, FlowSpec, FlowCrypto and MatrixPlan as instrumented static modules, then the entry point.
# The seed corpus is Fuzz/spec/seeds (hostile cases: out-of-range and hex timeouts, null args, duplicate members),
# the scenario fixtures and corpora, and the shipped and broken matrices. Findings (crash-*, leak-*, timeout-*)
# land in Fuzz/spec/findings/.
set -euo pipefail
seconds="${1:-60}"
shift || true
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$root/.build/fuzz-spec"
mkdir -p "$work/corpus" "$work/modules" "$root/Fuzz/spec/findings"

flags=(-sanitize=fuzzer,address -parse-as-library -O -package-name FlowMatrix -I "$work/modules" -I "$root/Sources/CCrypto")
module() {  # name, sources... (rebuilt only when a source is newer than the library)
    local name="$1"; shift
    if [ -f "$work/lib$name.a" ] && [ -z "$(find "$@" -newer "$work/lib$name.a" -print -quit)" ]; then return 0; fi
    rm -f "$work/lib$name.a"
    swiftc "${flags[@]}" -module-name "$name" -emit-module -emit-module-path "$work/modules/$name.swiftmodule" \
        -emit-library -static -o "$work/lib$name.a" "$@" 2>&1 | grep -v "Cannot export local symbol" || true
    test -f "$work/lib$name.a"
}
module FlowVocabulary "$root"/Sources/FlowVocabulary/*.swift
module FlowSpec "$root"/Sources/FlowSpec/*.swift
module FlowCrypto "$root"/Sources/FlowCrypto/*.swift
module MatrixPlan "$root"/Sources/MatrixPlan/*.swift
rm -f "$work/spec-fuzz"
swiftc "${flags[@]}" -module-name SpecFuzz "$root/Fuzz/spec/FuzzMain.swift" -L "$work" -lMatrixPlan -lFlowCrypto \
    -lFlowSpec -lFlowVocabulary -lcrypto -o "$work/spec-fuzz" 2>&1 | grep -v "Cannot export local symbol" || true

# Seed corpus: the hostile seeds, every scenario and matrix the repository holds.
cp "$root"/Fuzz/spec/seeds/* "$work/corpus/"
n=0
while IFS= read -r -d '' file; do
    cp "$file" "$work/corpus/repo-$n.json"; n=$((n + 1))
done < <(find "$root/Tests/FlowSpecTests/Fixtures" "$root/Tests/MatrixPlanTests/Fixtures" "$root/Matrices" \
    "$root/Workers/Catalog/Scenarios" "$root/Workers/Example" -type f -name '*.json' -size -64k -print0)

cd "$root/Fuzz/spec/findings"
"$work/spec-fuzz" "$work/corpus" -max_total_time="$seconds" -max_len=8192 -timeout=10 -print_final_stats=1 "$@"
