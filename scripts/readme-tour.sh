#!/usr/bin/env bash
# Runs every command of README.md's "A quick tour" block, read from README.md itself, in a scratch folder (with
# Matrices and Workers linked in) on an already built tree, and fails at the first one that does not work.
#
#   scripts/readme-tour.sh [--quick] [--bin DIR] [--keep]
#     --bin DIR   the built binaries (default .build/release, as scripts/demo.sh builds them; the tests pass
#                 .build/debug): flowmatrix, example-worker
#     --quick     the same lines, but the runs of Matrices/nightly.json (2,520 jobs: minutes each, and the tour
#                 runs it nine times) run Matrices/smoke.json (24 jobs), and `bench all` runs as `bench --quick
#                 shards`; what the tests run (Tests/EndToEndTests/ReadmeTourTests.swift)
#     --keep      keep the scratch folder
#
# What is substituted, and why (each substitution is printed as the line runs):
#   - `swift build -c release && export PATH=…`: the tree is built already; PATH gets DIR instead;
#     `.build/release/` in a line becomes DIR/.
#   - fleet hosts: `--listen 0.0.0.0:7700` and `--connect 10.0.0.5:7700` become 127.0.0.1 on a free port, and
#     `--http 8080` a free port (so the script runs beside anything that holds 7700 or 8080). `serve` runs in the
#     background; each `worker` line connects to it in the background; once serve's run ends (exit 0 or 1) the
#     workers, which would wait for the next coordinator, are stopped with SIGTERM.
#   - `<run-id>`: the tour's first run; `<run-a> <run-b>`: the locale-rtl-sweep run and the nightly run (two
#     matrices: diff warns and compares only the jobs both have, exit 0); `run --resume <run-id>`: a run of
#     Matrices/locale-rtl-sweep.json that the script interrupts (SIGTERM) as soon as it is journaled.
#   - `open FILE` (macOS; xdg-open on Linux) becomes `test -s FILE`: no browser here.
#   - the shard lines ("on each of 4 runners") run for shards 1 to 4, so that `merge shard-1 … shard-4` has them.
#   - `bench all` runs as `bench --quick all` (the full suites take about an hour on a small machine); suites
#     whose helpers are missing are skipped with the reason, which is what the tour's line says.
#   - `run Matrices/parity.json` (the Catalog corpus headless and in real Chromium) runs one shard of nine with --quick.
#   - `run Matrices/pytest-locale-window.json` needs python3 with pytest (scripts/install-deps.sh test); without
#     them the line is reported as not run, with that reason.
# Exit codes: 0 every line worked, 1 a line failed (its output is printed), 64 usage error.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.build/release"
quick=0
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --keep) keep=1 ;;
        --bin) shift; bin="$(cd "${1:?--bin needs a folder}" && pwd)" || exit 64 ;;
        *) echo "usage: scripts/readme-tour.sh [--quick] [--bin DIR] [--keep]" >&2; exit 64 ;;
    esac
    shift
done
for program in flowmatrix example-worker; do
    if [ ! -x "$bin/$program" ]; then
        echo "error: $bin/$program is not built (scripts/demo.sh builds it)" >&2
        exit 1
    fi
done

work="$(mktemp -d "${TMPDIR:-/tmp}/flowmatrix-tour.XXXXXX")"
background=()
cleanup() {
    for pid in "${background[@]}"; do kill -KILL "$pid" 2>/dev/null; done
    if [ "$keep" = 1 ]; then echo "scratch folder kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 143' TERM INT  # so that a stopped tour still stops serve and the workers and removes its folder
ln -s "$root/Matrices" "$work/Matrices"
ln -s "$root/Workers" "$work/Workers"
cd "$work" || exit 1
export PATH="$bin:$PATH"

free_port() {  # a loopback port nothing listens on (bash's /dev/tcp: no connection, no listener)
    local port
    while :; do
        port=$(( 20000 + RANDOM % 40000 ))
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
    done
}
fleet_port="$(free_port)"
http_port="$(free_port)"
step=0

# Runs one command line with bash; prints it, its time and exit code; fails the tour unless the code is expected.
attempt() {  # attempt "LINE" "ALLOWED CODES" [NOTE]
    local line="$1" allowed="$2" note="${3:-}" started code
    step=$((step + 1))
    echo "[$step] \$ $line${note:+   # $note}"
    started=$(date +%s.%N)
    bash -c "$line" > "out-$step.log" 2>&1
    code=$?
    awk -v code="$code" -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "    exit %s, %.1f s\n", code, b - a }'
    if ! [[ " $allowed " == *" $code "* ]]; then
        echo "FAILED (expected exit $allowed): $line" >&2
        sed 's/^/    | /' "out-$step.log" >&2
        exit 1
    fi
}

# Waits (polling, bounded) for a shell condition.
wait_for() {  # wait_for SECONDS "CONDITION" WHAT
    local deadline=$(( $(date +%s) + $1 ))
    until bash -c "$2" >/dev/null 2>&1; do
        if [ "$(date +%s)" -ge "$deadline" ]; then echo "FAILED: $3 within $1 s" >&2; exit 1; fi
        sleep 0.1
    done
}

run_id() {  # the newest run of matrix $1 (the journal's name), from `flowmatrix runs`
    flowmatrix runs | awk -v m="$1" '$3 == m { print $1; exit }'
}

nightly="Matrices/nightly.json"
[ "$quick" = 1 ] && nightly="Matrices/smoke.json"
adapt() {  # the tour line as it runs here
    local line="$1"
    line="${line//.build\/release\//$bin/}"
    line="${line//Matrices\/nightly.json --listen/$nightly --listen}"
    case "$line" in
        "flowmatrix run "*|"flowmatrix serve "*) line="${line//Matrices\/nightly.json/$nightly}" ;;
    esac
    line="${line//0.0.0.0:7700/127.0.0.1:$fleet_port}"
    line="${line//10.0.0.5:7700/127.0.0.1:$fleet_port}"
    line="${line//--http 8080/--http $http_port}"
    printf '%s' "$line"
}

# The tour: the lines of the first ```sh block after "## A quick tour", comments and blank lines dropped.
mapfile -t tour < <(awk '/^## A quick tour/ { on = 1; next } on && /^```sh/ { inside = 1; next }
    inside && /^```/ { exit } inside' "$root/README.md" | sed -e 's/[[:space:]]\{2,\}#.*$//' -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d')
[ "${#tour[@]}" -gt 10 ] || { echo "FAILED: found no tour in README.md" >&2; exit 1; }
echo "README tour: ${#tour[@]} lines, binaries in $bin, scratch folder $work, fleet port $fleet_port$([ "$quick" = 1 ] && echo ", --quick")"

serve_pid=""
workers=()
first_run=""
for raw in "${tour[@]}"; do
    line="$(adapt "$raw")"
    case "$raw" in
        "swift build -c release && export PATH="*)
            echo "[-] \$ $raw   # built already: PATH starts with $bin" ;;
        "flowmatrix run Matrices/locale-rtl-sweep.json"|"flowmatrix run Workers/Example/counter.json "*)
            attempt "$line" "0 1"
            [ -n "$first_run" ] || first_run="$(flowmatrix runs | awk 'NF { id = $1 } END { print id }')" ;;
        "flowmatrix run Matrices/nightly.json --http 8080")
            attempt "$line" "0 1" "live view on 127.0.0.1:$http_port" ;;
        "open "*)
            file="${line#open }"
            attempt "test -s ${file//<run-id>/$first_run}" "0" "no browser here: the file exists" ;;
        *"<run-id>"*" "*|*"<run-id>")
            if [[ "$raw" == *"--resume"* ]]; then
                flowmatrix run Matrices/locale-rtl-sweep.json > interrupted.log 2>&1 &
                pid=$!
                background+=("$pid")
                wait_for 60 "flowmatrix runs | head -1 | grep -q running" "the run to interrupt is journaled"
                kill -TERM "$pid"
                wait "$pid"
                echo "    (interrupted a run of locale-rtl-sweep: exit $?)"
                attempt "${line//<run-id>/$(run_id locale-rtl-sweep)}" "0 1" "the interrupted run"
            else
                attempt "${line//<run-id>/$first_run}" "0 1"
            fi ;;
        "flowmatrix diff <run-a> <run-b>")
            nightly_name=$([ "$quick" = 1 ] && echo smoke || echo nightly)
            a="$(run_id locale-rtl-sweep)" b="$(run_id "$nightly_name")"
            attempt "flowmatrix diff $a $b" "0" "two matrices: a warning, then the shared jobs"
            grep -q "^warning: .* is a run of matrix 'locale-rtl-sweep'" "out-$step.log" \
                || { echo "FAILED: diff of two matrices did not warn" >&2; exit 1; } ;;
        "flowmatrix run Matrices/pytest-locale-window.json")
            if python3 -c "import pytest" 2>/dev/null; then
                attempt "$line" "1" "its sample suite has real defects"
            else
                echo "[-] \$ $line   # NOT RUN: python3 with pytest is missing (scripts/install-deps.sh test)"
            fi ;;
        "flowmatrix serve "*)
            bash -c "exec $line" > serve.log 2>&1 &
            serve_pid=$!
            background+=("$serve_pid")
            echo "[bg] \$ $line"
            wait_for 30 "grep -q 'listening\|127.0.0.1:$fleet_port' serve.log" "serve listens" ;;
        "flowmatrix worker "*)
            bash -c "exec $line" > "worker-${#workers[@]}.log" 2>&1 &
            workers+=($!)
            background+=($!)
            echo "[bg] \$ $line" ;;
        "flowmatrix run Matrices/nightly.json --shard 2/4 "*)
            if [ -n "$serve_pid" ]; then  # the fleet lines came before: its run must end first
                wait "$serve_pid"; code=$?
                echo "    serve ended: exit $code"
                [ "$code" -le 1 ] || { sed 's/^/    | /' serve.log >&2; exit 1; }
                for pid in "${workers[@]}"; do
                    kill -TERM "$pid"; wait "$pid"; code=$?
                    # 143: the worker has no SIGTERM handler and ends by the signal, which is how it is stopped.
                    [ "$code" = 0 ] || [ "$code" = 143 ] \
                        || { echo "FAILED: a worker exited $code when stopped" >&2; cat worker-*.log >&2; exit 1; }
                done
                echo "    workers stopped (SIGTERM)"
                serve_pid=""
            fi
            for i in 1 2 3 4; do
                shard_line="${line//2\/4/$i/4}"
                attempt "${shard_line//shard-2/shard-$i}" "0 1" "runner $i of 4"
            done ;;
        "flowmatrix bench all")
            if [ "$quick" = 1 ]; then
                attempt "flowmatrix bench --quick shards" "0" "reduced: one small suite"
            else
                attempt "flowmatrix bench --quick all" "0" "reduced: --quick"
            fi ;;
        "flowmatrix run Matrices/parity.json"*)
            if [ "$quick" = 1 ]; then
                attempt "$line --shard 1/9" "0 1" "reduced: one configuration of nine"
            else
                attempt "$line" "0 1"
            fi ;;
        "flowmatrix "*|"od "*)
            attempt "$line" "0 1" ;;
        *)
            echo "FAILED: README's tour has a line this script does not know how to run: $raw" >&2
            exit 1 ;;
    esac
done
echo "README tour: every line ran ($step commands)"
