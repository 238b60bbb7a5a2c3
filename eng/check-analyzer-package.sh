#!/usr/bin/env bash
# Proves that a plain PackageReference to the Boc package brings the analyzer: packs src/Boc into a local folder feed
# (in a temp dir), checks the package's metadata, builds a throw-away console project for every target framework of the
# library that references the package (not the project) and contains a bad capture, and fails unless the build output
# shows the diagnostic.
#
#   bash eng/check-analyzer-package.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

version="0.0.0-analyzer-check"
expected="BOC101"

# The package id is not the namespace (the id Boc is taken on nuget.org): ask the project for it.
id="$(dotnet msbuild "$repo/src/Boc/Boc.csproj" -getProperty:PackageId)"
frameworks="$(dotnet msbuild "$repo/src/Boc/Boc.csproj" -getProperty:TargetFrameworks)"

dotnet pack "$repo/src/Boc/Boc.csproj" -c Release -o "$work/feed" -p:Version="$version" --nologo >"$work/pack.log" 2>&1 \
  || { cat "$work/pack.log"; echo "check-analyzer-package: dotnet pack failed" >&2; exit 1; }
nupkg="$work/feed/$id.$version.nupkg"
[ -f "$work/feed/$id.$version.snupkg" ] || { ls "$work/feed"; echo "check-analyzer-package: no symbol package (.snupkg)" >&2; exit 1; }
# List into a variable first: under pipefail, `unzip -l | grep -q` fails whenever grep exits on the first match before
# unzip has written the rest (unzip dies of SIGPIPE), which made this check flaky on CI.
listing="$(unzip -l "$nupkg")"
if ! grep -q 'analyzers/dotnet/cs/Boc.Analyzers.dll' <<<"$listing"; then
  printf '%s\n' "$listing"
  echo "check-analyzer-package: Boc.Analyzers.dll is not under analyzers/dotnet/cs in the package" >&2
  exit 1
fi
IFS=';' read -r -a tfms <<<"$frameworks"
for tfm in "${tfms[@]}"; do
  grep -q "lib/$tfm/Boc.dll" <<<"$listing" || { printf '%s\n' "$listing"; echo "check-analyzer-package: no lib/$tfm/Boc.dll" >&2; exit 1; }
done
nuspec="$(unzip -p "$nupkg" "$id.nuspec")"
for needle in '<license type="expression">MIT</license>' '<readme>PACKAGE.md</readme>' '<repository type="git"' '<projectUrl>'; do
  grep -qF "$needle" <<<"$nuspec" || { printf '%s\n' "$nuspec"; echo "check-analyzer-package: the nuspec lacks $needle" >&2; exit 1; }
done

mkdir -p "$work/app"
# The local feed is added to the sources configured on the machine, so anything else still restores as usual.
cat >"$work/app/nuget.config" <<XML
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <add key="boc-check" value="$work/feed" />
  </packageSources>
</configuration>
XML
cat >"$work/app/App.csproj" <<XML
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <OutputType>Exe</OutputType>
    <TargetFrameworks>$frameworks</TargetFrameworks>
    <Nullable>enable</Nullable>
    <ImplicitUsings>enable</ImplicitUsings>
  </PropertyGroup>
  <ItemGroup>
    <PackageReference Include="$id" Version="$version" />
  </ItemGroup>
</Project>
XML
cat >"$work/app/Program.cs" <<'CS'
using Boc;
using static Boc.Behaviours;

var src = new Cown<Account>(new Account());
var dst = new Cown<Account>(new Account());

// The inner behaviour runs after the outer one released src: reading s there races (BOC101).
When(src, s => When(dst, d => d.Balance += s.Balance));
await WaitForQuiescenceAsync();

internal sealed class Account
{
    public long Balance { get; set; }
}
CS

# A private package cache for the throw-away app only: the check package never lands in (or is served stale from) the
# user's global cache. The pack above keeps the normal cache, so the repository's own restore is left alone.
set +e
(cd "$work/app" && NUGET_PACKAGES="$work/packages" dotnet build -c Release --nologo 2>&1) >"$work/build.log"
build_status=$?
set -e
# Every target framework's compilation must report it (the analyzer loads once per compilation).
reported=$(grep -E "warning $expected" "$work/build.log" | grep -oE "TargetFramework=[a-z0-9.]+" | sort -u | wc -l)
if [ "$build_status" -ne 0 ] || [ "$reported" -ne "${#tfms[@]}" ]; then
  cat "$work/build.log"
  echo "check-analyzer-package: building against the $id package did not report $expected for every one of $frameworks (exit $build_status)" >&2
  exit 1
fi
grep -m1 "warning $expected" "$work/build.log" | sed "s|$work/app/||"
echo "check-analyzer-package: OK, a PackageReference to $id $version reports $expected on $frameworks"
