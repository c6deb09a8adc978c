#!/usr/bin/env bash
# Installs the Debian packages FlowMatrix builds against (system C libraries and tools the tests use).
# Idempotent: does nothing when everything is present. Needs root (or sudo) for apt-get.
set -euo pipefail
packages=(libuv1-dev zlib1g-dev libsqlite3-dev libssl-dev libcairo2-dev pkg-config gzip sqlite3 python3)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo_cmd apt-get update -qq
    $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The Swift toolchain lives in /opt/swift on our machines; put it on PATH when a shell did not.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    echo "note: add /opt/swift/usr/bin to PATH" >&2
fi
