#!/usr/bin/env bash
# The analyzer's build-cost benchmark in one command (see Program.cs for what it measures and how):
#
#   bash benchmarks/AnalyzerCost/run.sh                          # corpora of 1k, 3k, 7k and 15k lines, 3 rounds each
#   bash benchmarks/AnalyzerCost/run.sh --sizes 7000 --rounds 5  # one size, more rounds
#
# Builds Boc and the analyzer (Release) first. Measures CPU time, not wall time; still, run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
dotnet build src/Boc/Boc.csproj -c Release -f net10.0 --nologo -v:q >/dev/null
dotnet build analyzers/Boc.Analyzers/Boc.Analyzers.csproj -c Release --nologo -v:q >/dev/null
dotnet build benchmarks/AnalyzerCost/AnalyzerCost.csproj -c Release --nologo -v:q >/dev/null
exec dotnet benchmarks/AnalyzerCost/bin/Release/net10.0/AnalyzerCost.dll run "$@"
