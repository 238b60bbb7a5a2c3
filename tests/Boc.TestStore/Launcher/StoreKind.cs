namespace Boc.TestStore;

/// <summary>The server a <see cref="StoreProcess"/> runs; both speak Redis' protocol and are equally durable.</summary>
public enum StoreKind
{
    /// <summary>Microsoft Garnet from NuGet, hosted by tests/Boc.TestStore: needs nothing but the .NET SDK.</summary>
    Garnet,

    /// <summary>redis-server from the PATH (Debian: apt-get install redis-server; .ci/run installs it).</summary>
    Redis,
}
