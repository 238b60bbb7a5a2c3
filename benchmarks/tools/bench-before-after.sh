#!/usr/bin/env bash
# Runs benchmarks twice in one BenchmarkDotNet run: "before" against the Boc package packed from an older commit,
# "after" against the working tree (see benchmarks/Boc.Benchmarks/BeforeAfter.cs).
#
#   bash benchmarks/tools/bench-before-after.sh <commit> [BenchmarkDotNet arguments...]
#   bash benchmarks/tools/bench-before-after.sh 7249553 --filter 'Boc.Benchmarks.Micro*'
#
# BOC_ROUNDS=R (default 1) repeats the whole BenchmarkDotNet run R times, marking each with a "// Round r of R" line.
# Within a run, BenchmarkDotNet runs all of one job's launches of a benchmark before the other job's; on a machine whose
# speed drifts over minutes that can put one side in a slow phase. With rounds, each side gets one launch per round
# (set SAVINA_LAUNCHES=1, or MICRO_LAUNCHES=1 for the micro suite), adjacent to the other side's, with the two sides'
# order swapped every other round, and benchmarks/tools/bench-log-table.py pools the rounds and adds the median of the
# per-round ratios, which cancels a slow phase that both launches of a round shared:
#
#   BOC_ROUNDS=4 SAVINA_LAUNCHES=1 bash benchmarks/tools/bench-before-after.sh 7249553 --filter '*.ThreadRing.*' | tee LOG
#   python3 benchmarks/tools/bench-log-table.py LOG ms
#
# The benchmark code must compile against both versions' public API.
set -euo pipefail
commit=${1:?usage: bench-before-after.sh <commit> [BenchmarkDotNet arguments...]}
shift
root=$(git rev-parse --show-toplevel)
cd "$root"
sha=$(git rev-parse --short=10 "$commit")
version="0.0.0-before.$sha"
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/tree" >/dev/null 2>&1 || true' EXIT

git worktree add --detach "$work/tree" "$sha" >/dev/null
# Pack the runtime (with the analyzer inside, as users get it) at that commit.
if ! dotnet pack "$work/tree/src/Boc/Boc.csproj" -c Release -p:Version="$version" -o "$work/feed" >"$work/pack.log" 2>&1; then
  cat "$work/pack.log" >&2
  exit 1
fi
# The package id changed with the rename (Boc -> BehaviourOrientedConcurrency); take it from the packed file.
nupkg=$(basename "$(ls "$work/feed"/*."$version".nupkg | head -n 1)")
package=${nupkg%."$version".nupkg}
echo "before: $package $version from $sha, in $work/feed"

rounds=${BOC_ROUNDS:-1}
for ((round = 1; round <= rounds; round++)); do
  # Odd rounds run "after" first (BenchmarkDotNet's own order), even rounds "before" first.
  before_first=$((round % 2 == 0 ? 1 : 0))
  if ((rounds > 1)); then
    echo "// Round $round of $rounds ($( ((before_first)) && echo before || echo after ) first)"
  fi
  BOC_BEFORE_FIRST=$before_first BOC_BASELINE_VERSION="$version" BOC_BASELINE_FEED="$work/feed" BOC_BASELINE_PACKAGE="$package" \
    dotnet run -c Release --project benchmarks/Boc.Benchmarks -- "$@"
done
