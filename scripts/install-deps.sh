#!/usr/bin/env bash
# Installs the Debian packages FlowMatrix needs. Idempotent: does nothing when everything is present.
# Needs root (or sudo) for apt-get.
#   scripts/install-deps.sh        what the build and `flowmatrix run` need (system C libraries)
#   scripts/install-deps.sh test   also what the tests need:
#     chromium           headless browser for the report's DOM tests (Tests/ReportsTests/BrowserTests.swift)
#     libxml2-utils      xmllint, to validate junit.xml against Tests/ReportsTests/Fixtures/junit.xsd
#     python3            drives Chromium over the DevTools protocol (Tests/ReportsTests/Fixtures/click_cell.py)
#     fonts-dejavu-core  a font with the heat map's symbols
#     systemd            systemd-analyze verify, for the units 'flowmatrix ci systemd-worker' prints
#     python3-pip + PyPI pyyaml, check-jsonschema (vendored GitHub workflow / GitLab CI schemas),
#                        kubernetes-validate (Kubernetes schemas): Tests/EndToEndTests/EngineFileTests.swift
#     PyPI pytest        the command-job sample suite (Workers/PytestSample, Matrices/pytest-locale-window.json)
#   scripts/install-deps.sh bench  also what `flowmatrix bench` compares with:
#     parallel           GNU parallel, beside xargs in `flowmatrix bench command`
set -euo pipefail
packages=(libuv1-dev zlib1g-dev libsqlite3-dev libssl-dev libcairo2-dev pkg-config gzip)
if [ "${1:-}" = "test" ]; then
    packages+=(chromium libxml2-utils python3 python3-pip fonts-dejavu-core sqlite3 systemd)
fi
if [ "${1:-}" = "bench" ]; then
    packages+=(parallel python3)
fi
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
if [ "${1:-}" = "test" ]; then
    python_packages=(pyyaml check-jsonschema kubernetes-validate pytest)
    if ! python3 -c "import yaml" 2>/dev/null || ! command -v check-jsonschema >/dev/null \
        || ! command -v kubernetes-validate >/dev/null || ! python3 -c "import pytest" 2>/dev/null; then
        echo "installing from PyPI: ${python_packages[*]}"
        python3 -m pip install -q "${python_packages[@]}" 2>/dev/null \
            || python3 -m pip install -q --break-system-packages "${python_packages[@]}"
    fi
fi
if ! command -v swift >/dev/null 2>&1 && [ ! -x /opt/swift/usr/bin/swift ]; then
    echo "error: no Swift toolchain (expected on PATH or in /opt/swift)" >&2
    exit 1
fi
