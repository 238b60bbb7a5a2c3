using Orleans.Transactions.Abstractions;

namespace Boc.Orleans.Bench;

// What an Orleans user writes today for an atomic transfer: an account grain with transactional state, joined by a
// transaction the client starts (ITransactionClient.RunTransaction, as the Orleans transactions documentation shows).

[GenerateSerializer]
public sealed class TxBalance
{
    [Id(0)]
    public long Value { get; set; }
}

public interface ITxAccount : IGrainWithIntegerKey
{
    [Transaction(TransactionOption.Join)]
    Task Add(long amount);
}

public sealed class TxAccount([TransactionalState("balance", "TransactionStore")] ITransactionalState<TxBalance> balance) : Grain, ITxAccount
{
    public Task Add(long amount) => balance.PerformUpdate(b => b.Value += amount);
}

[GenerateSerializer]
public sealed class BocAccount
{
    [Id(0)]
    public long Balance { get; set; }
}
