#!/usr/bin/env bash
# Prints the lines of code of each file given: lines that are neither blank nor comments, where a comment line is one
# whose first non-space characters are // (so /// doc comments too). Block comments (/* */) are not recognized; the
# repository does not use them. Used to compare implementations of one benchmark, e.g.
#
#   bash benchmarks/tools/count-loc.sh benchmarks/Boc.Benchmarks/Experiments/ReasonableBanking.*.cs
set -euo pipefail
if [ "$#" -eq 0 ]; then
  echo "usage: $0 FILE..." >&2
  exit 2
fi

for file in "$@"; do
  [ -r "$file" ] || { echo "count-loc: cannot read $file" >&2; exit 1; }
  # grep -c exits 1 when it counts 0 lines; that is a count, not an error.
  count="$(grep -c -v -E '^[[:space:]]*(//.*)?$' "$file" || true)"
  printf '%6d  %s\n' "$count" "$file"
done
