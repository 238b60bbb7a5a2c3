#!/usr/bin/env bash
# Runs benchmarks twice in one BenchmarkDotNet run: "before" against the Boc package packed from an older commit,
# "after" against the working tree (see benchmarks/Boc.Benchmarks/BeforeAfter.cs).
#
#   bash eng/bench-before-after.sh <commit> [BenchmarkDotNet arguments...]
#   bash eng/bench-before-after.sh 7249553 --filter 'Boc.Benchmarks.Micro*'
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

BOC_BASELINE_VERSION="$version" BOC_BASELINE_FEED="$work/feed" BOC_BASELINE_PACKAGE="$package" \
  dotnet run -c Release --project benchmarks/Boc.Benchmarks -- "$@"
