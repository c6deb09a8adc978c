#!/usr/bin/env bash
# The main job: installs what it needs, builds FlowMatrix (release), and runs the shipped smoke matrix with an
# embedded coordinator and local worker processes, ending in a report. Pass another matrix as $1.
# It also builds what README's tour uses beside flowmatrix: example-worker (`--worker-executable`) and
# flowmatrix-bench with test-worker (`flowmatrix bench` runs the first, which starts the second); scripts/readme-tour.sh
# then runs the tour.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
bash scripts/install-deps.sh
for product in flowmatrix flowmatrix-bench example-worker test-worker; do
    swift build -c release --product "$product"
done
matrix="${1:-Matrices/smoke.json}"
exec .build/release/flowmatrix run "$matrix"
