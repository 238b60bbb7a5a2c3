#!/usr/bin/env bash
# Measures what the Boc analyzer costs the compiler on the repository's own Boc code, as the compiler reports it
# (-p:ReportAnalyzer=true). Rebuilds only the measured project (its dependencies must be built once before), RUNS times
# each, and prints the Boc.Analyzers line, its per-rule lines and the total analyzer time of every build.
#
#   bash analyzers/measure-build-cost.sh            # samples/BankTransfer and benchmarks/Boc.Benchmarks, 2 runs each
#   RUNS=5 bash analyzers/measure-build-cost.sh samples/BankTransfer/BankTransfer.csproj
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${RUNS:-2}"
projects=("$@")
if [ "${#projects[@]}" -eq 0 ]; then
  projects=(samples/BankTransfer/BankTransfer.csproj benchmarks/Boc.Benchmarks/Boc.Benchmarks.csproj)
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
for project in "${projects[@]}"; do
  # One ordinary build first, so that the measured runs rebuild only the project itself.
  dotnet build "$project" -c Release >/dev/null
  for run in $(seq 1 "$runs"); do
    dotnet build "$project" -c Release --no-dependencies -t:Rebuild -p:ReportAnalyzer=true -v:d >"$log" 2>&1
    echo "== $project, run $run"
    grep -m1 'Total analyzer execution time' "$log" | sed 's/^ *//'
    # The assembly line and the indented per-rule lines under it.
    awk '/Boc\.Analyzers, Version=/ { on = 1 } on && NF == 0 { exit } on { sub(/^ +/, ""); print }' "$log"
  done
done
