#!/usr/bin/env bash
# Proves that a plain PackageReference to the Boc package brings the analyzer: packs src/Boc into a local folder feed
# (in a temp dir), checks the package's metadata, builds a throw-away console project for every target framework of the
# library that references the package (not the project) and contains a bad capture, and fails unless the build output
# shows the diagnostic.
#
#   bash eng/check-analyzer-package.sh
#
# Packs what the Release build left (--no-build: a version of its own would otherwise recompile every packed project,
# two minutes of CI); build Release first (.ci/run has).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

version="0.0.0-analyzer-check"
expected="BOC101"

# The package id is not the namespace (the id Boc is taken on nuget.org): ask the project for it.
id="$(dotnet msbuild "$repo/src/Boc/Boc.csproj" -getProperty:PackageId)"
frameworks="$(dotnet msbuild "$repo/src/Boc/Boc.csproj" -getProperty:TargetFrameworks)"

dotnet pack "$repo/src/Boc/Boc.csproj" -c Release --no-build -o "$work/feed" -p:Version="$version" --nologo >"$work/pack.log" 2>&1 \
  || { cat "$work/pack.log"; echo "check-analyzer-package: dotnet pack failed" >&2; exit 1; }
nupkg="$work/feed/$id.$version.nupkg"
hosting_id="$(dotnet msbuild "$repo/src/Boc.Extensions.Hosting/Boc.Extensions.Hosting.csproj" -getProperty:PackageId)"
dotnet pack "$repo/src/Boc.Extensions.Hosting/Boc.Extensions.Hosting.csproj" -c Release --no-build -o "$work/feed" -p:Version="$version" --nologo >>"$work/pack.log" 2>&1 \
  || { cat "$work/pack.log"; echo "check-analyzer-package: dotnet pack of the hosting package failed" >&2; exit 1; }
testing_id="$(dotnet msbuild "$repo/src/Boc.Testing/Boc.Testing.csproj" -getProperty:PackageId)"
testing_frameworks="$(dotnet msbuild "$repo/src/Boc.Testing/Boc.Testing.csproj" -getProperty:TargetFrameworks)"
[ -n "$testing_frameworks" ] || testing_frameworks="$(dotnet msbuild "$repo/src/Boc.Testing/Boc.Testing.csproj" -getProperty:TargetFramework)"
dotnet pack "$repo/src/Boc.Testing/Boc.Testing.csproj" -c Release --no-build -o "$work/feed" -p:Version="$version" --nologo >>"$work/pack.log" 2>&1 \
  || { cat "$work/pack.log"; echo "check-analyzer-package: dotnet pack of the testing package failed" >&2; exit 1; }
orleans_id="$(dotnet msbuild "$repo/src/Boc.Orleans/Boc.Orleans.csproj" -getProperty:PackageId)"
dotnet pack "$repo/src/Boc.Orleans/Boc.Orleans.csproj" -c Release --no-build -o "$work/feed" -p:Version="$version" --nologo >>"$work/pack.log" 2>&1 \
  || { cat "$work/pack.log"; echo "check-analyzer-package: dotnet pack of the Orleans package failed" >&2; exit 1; }
# Boc.Testing uses the runtime's internals: it must depend on exactly the runtime it was built with.
testing_nuspec="$(unzip -p "$work/feed/$testing_id.$version.nupkg" "$testing_id.nuspec")"
for needle in "<dependency id=\"$id\" version=\"[$version]\"" '<license type="expression">MIT</license>' '<readme>testing.md</readme>'; do
  grep -qF "$needle" <<<"$testing_nuspec" || { printf '%s\n' "$testing_nuspec"; echo "check-analyzer-package: the testing package's nuspec lacks $needle" >&2; exit 1; }
done
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

# Builds a throw-away app for every target framework of the library from a package reference (not the project), and
# fails unless every target framework's compilation reports the diagnostic (the analyzer loads once per compilation).
build_consumer() {
  # $4: the consumer's target frameworks, if not every one of the runtime's (a package may target fewer).
  local name="$1" package="$2" program="$3" app="$work/$1" targets="${4:-$frameworks}"
  local -a wanted
  IFS=';' read -r -a wanted <<<"$targets"
  mkdir -p "$app"
  # The local feed is added to the sources configured on the machine, so anything else still restores as usual.
  cat >"$app/nuget.config" <<XML
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <add key="boc-check" value="$work/feed" />
  </packageSources>
</configuration>
XML
  cat >"$app/App.csproj" <<XML
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <OutputType>Exe</OutputType>
    <TargetFrameworks>$targets</TargetFrameworks>
    <Nullable>enable</Nullable>
    <ImplicitUsings>enable</ImplicitUsings>
  </PropertyGroup>
  <ItemGroup>
    <PackageReference Include="$package" Version="$version" />
  </ItemGroup>
</Project>
XML
  printf '%s\n' "$program" >"$app/Program.cs"

  # A private package cache for the throw-away app only: the check package never lands in (or is served stale from)
  # the user's global cache. The pack above keeps the normal cache, so the repository's own restore is left alone.
  local status reported
  set +e
  (cd "$app" && NUGET_PACKAGES="$work/packages" dotnet build -c Release --nologo 2>&1) >"$app/build.log"
  status=$?
  set -e
  # `|| true`: with no diagnostic at all grep fails, and under pipefail the script would end here without a word.
  reported=$({ grep -E "warning $expected" "$app/build.log" || true; } | grep -oE "TargetFramework=[a-z0-9.]+" | sort -u | wc -l)
  if [ "$status" -ne 0 ] || [ "$reported" -ne "${#wanted[@]}" ]; then
    cat "$app/build.log"
    echo "check-analyzer-package: building against the $package package did not report $expected for every one of $targets (exit $status)" >&2
    exit 1
  fi
  grep -m1 "warning $expected" "$app/build.log" | sed "s|$app/||"
  echo "check-analyzer-package: OK, a PackageReference to $package $version reports $expected on $targets"
}

build_consumer app "$id" '
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
}'

# The hosting package alone must bring the runtime and its analyzers (its dependency on Boc must not exclude them).
build_consumer hosted-app "$hosting_id" '
using Boc;
using Microsoft.Extensions.DependencyInjection;

Func<IServiceCollection, Action<BocRuntimeOptions>, IServiceCollection> addBoc = BocServiceCollectionExtensions.AddBoc;
await using var runtime = new BocRuntime();
var src = new Cown<Account>(new Account());
var dst = new Cown<Account>(new Account());
runtime.When(src, s => runtime.When(dst, d => d.Balance += s.Balance));   // BOC101
Console.WriteLine(addBoc.Method.Name);

internal sealed class Account
{
    public long Balance { get; set; }
}'

# So must the testing package alone (its exact dependency on the runtime keeps the runtime's analyzers flowing).
build_consumer testing-app "$testing_id" '
using Boc;
using Boc.Testing;

await using var runtime = new BocRuntime();
var src = new Cown<Account>(new Account());
var dst = new Cown<Account>(new Account());
runtime.When(src, s => runtime.When(dst, d => d.Balance += s.Balance));   // BOC101
Console.WriteLine(typeof(BocTest).Name);

internal sealed class Account
{
    public long Balance { get; set; }
}' "$testing_frameworks"

# Every install line of the documentation works as written: each `dotnet add package` line of a tracked Markdown file
# (a trailing `# comment` dropped) runs, word for word, in a throw-away console project whose sources are the machine's
# and the packed feed. The packages are prereleases, so a line without --prerelease fails here as it fails for a user;
# so does a wrong package id.
installs="$work/installs"
mkdir -p "$installs"
cp "$work/app/nuget.config" "$installs/nuget.config"
cat >"$installs/Install.csproj" <<XML
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <OutputType>Exe</OutputType>
    <TargetFramework>net10.0</TargetFramework>
  </PropertyGroup>
</Project>
XML
echo 'Console.WriteLine();' >"$installs/Program.cs"
mapfile -t lines < <(cd "$repo" && git ls-files -z '*.md' | xargs -0 grep -h '^dotnet add package ' | sed 's/[[:space:]]*#.*$//' | sort -u)
[ "${#lines[@]}" -gt 0 ] || { echo "check-analyzer-package: no 'dotnet add package' line found in the documentation" >&2; exit 1; }
for line in "${lines[@]}"; do
  read -r -a words <<<"$line"
  for word in "${words[@]}"; do
    [[ "$word" =~ ^[A-Za-z0-9._-]+$ ]] || { echo "check-analyzer-package: unexpected word '$word' in the install line: $line" >&2; exit 1; }
  done
  set +e
  (cd "$installs" && NUGET_PACKAGES="$work/packages" "${words[@]}" 2>&1) >"$installs/add.log"
  status=$?
  set -e
  if [ "$status" -ne 0 ]; then
    cat "$installs/add.log"
    echo "check-analyzer-package: the documented install line fails as written (exit $status): $line" >&2
    (cd "$repo" && git grep -n -F "$line" -- '*.md') >&2 || true
    exit 1
  fi
  echo "check-analyzer-package: OK, $line"
done
