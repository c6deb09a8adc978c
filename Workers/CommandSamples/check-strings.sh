#!/bin/sh
# A shell check run as a command job (docs/COMMAND-JOBS.md): every key of the English strings file must be
# translated in the locale's file. Prints the missing keys to stderr and exits 1 when any is missing.
#   check-strings.sh <strings folder> <locale>
folder="$1"; locale="$2"
base="$folder/en.strings"
target="$folder/$locale.strings"
[ "$locale" = en ] && exit 0
[ -f "$target" ] || { echo "no strings file for $locale ($target)" >&2; exit 1; }
missing=0
for key in $(cut -d= -f1 "$base"); do
    grep -q "^$key=" "$target" || { echo "$locale: missing $key" >&2; missing=1; }
done
exit $missing
