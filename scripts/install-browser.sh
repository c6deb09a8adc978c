#!/usr/bin/env bash
# Installs what the report tests need beyond the build dependencies:
#   chromium        headless browser for the report's DOM test (Tests/ReportsTests/BrowserTests.swift)
#   libxml2-utils   xmllint, to validate junit.xml against Tests/ReportsTests/Fixtures/junit.xsd
#   python3         drives Chromium over the DevTools protocol for the click test (Fixtures/click_cell.py)
#   fonts-dejavu-core  a font with the heat map's symbols (optional for the tests, nicer screenshots)
# Idempotent: does nothing when everything is present. Needs root (or sudo) for apt-get.
set -euo pipefail
packages=(chromium libxml2-utils python3 fonts-dejavu-core)
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
command -v chromium >/dev/null && command -v xmllint >/dev/null
