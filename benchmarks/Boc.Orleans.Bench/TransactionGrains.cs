using Orleans.Concurrency;
using Orleans.Transactions.Abstractions;

namespace Boc.Orleans.Bench;

// What an Orleans user writes today for an atomic transfer: an account grain with transactional state, and a stateless
// worker that starts the transaction and joins both accounts (the pattern of the Orleans transactions documentation).

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

public interface ITxTeller : IGrainWithIntegerKey
{
    [Transaction(TransactionOption.Create)]
    Task Transfer(long source, long target, long amount);
}

public sealed class TxAccount([TransactionalState("balance", "TransactionStore")] ITransactionalState<TxBalance> balance) : Grain, ITxAccount
{
    public Task Add(long amount) => balance.PerformUpdate(b => b.Value += amount);
}

[StatelessWorker]
public sealed class TxTeller : Grain, ITxTeller
{
    public Task Transfer(long source, long target, long amount) => Task.WhenAll(
        GrainFactory.GetGrain<ITxAccount>(source).Add(-amount),
        GrainFactory.GetGrain<ITxAccount>(target).Add(amount));
}

[GenerateSerializer]
public sealed class BocAccount
{
    [Id(0)]
    public long Balance { get; set; }
}
