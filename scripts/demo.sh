#!/usr/bin/env bash
# The main job: installs what it needs, builds FlowMatrix (release), and runs the shipped smoke matrix with an
# embedded coordinator and local worker processes, ending in a report. Pass another matrix as $1.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
bash scripts/install-deps.sh
swift build -c release --product flowmatrix
matrix="${1:-Matrices/smoke.json}"
exec .build/release/flowmatrix run "$matrix"
