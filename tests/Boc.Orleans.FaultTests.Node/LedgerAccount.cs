namespace Boc.Orleans.FaultTests.Node;

/// <summary>An account that records which transfers it took part in, so storage alone shows what committed.</summary>
[GenerateSerializer]
public sealed class LedgerAccount
{
    [Id(0)]
    public long Balance { get; set; }

    [Id(1)]
    public List<int> Transfers { get; set; } = [];
}
