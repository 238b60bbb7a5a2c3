using Boc.Orleans.Grains;
using Microsoft.Extensions.Logging.Abstractions;

namespace Boc.Orleans.Tests;

/// <summary>
/// Renewals run in parallel, each bounded below the lease: one cown that never answers cannot make the others' leases
/// run out while its call waits.
/// </summary>
public sealed class LeaseRenewerTests
{
    [Fact]
    public async Task A_renewal_that_never_answers_does_not_hold_back_the_other_cowns_renewals()
    {
        var hung = new FakeEntry("a", hang: true);
        var healthy = new FakeEntry("b", hang: false);
        var renewer = new LeaseRenewer([hung, healthy], Guid.NewGuid(), TimeSpan.FromMilliseconds(300), NullLogger.Instance);
        renewer.AddEnqueued();
        renewer.AddEnqueued();
        try
        {
            // Three renewals of b while a's first renewal is still waiting: with one renewal at a time, b gets none.
            Task third = healthy.Renewed(3);
            Assert.True(await Task.WhenAny(third, Task.Delay(TimeSpan.FromSeconds(30))) == third, $"b was renewed {healthy.Count} times while a hung");
            Assert.False(hung.Answered);
        }
        finally
        {
            hung.Answer();
            await renewer.StopAsync();
        }
    }

    private sealed class FakeEntry(string key, bool hang) : CownEntry(key, write: true)
    {
        private readonly TaskCompletionSource _never = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly List<(int Count, TaskCompletionSource Reached)> _waiters = [];

        public int Count { get; private set; }

        public bool Answered => _never.Task.IsCompleted;

        /// <summary>Lets the hung renewal answer at last, so the renewer can stop.</summary>
        public void Answer() => _never.TrySetResult();

        public override GrainId GrainId => GrainId.Create("fake", SortKey);

        public Task Renewed(int count)
        {
            lock (_waiters)
            {
                var reached = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                _waiters.Add((count, reached));
                if (Count >= count)
                {
                    reached.TrySetResult();
                }

                return reached.Task;
            }
        }

        public override async Task<CownReply> Renew(Guid behaviour)
        {
            lock (_waiters)
            {
                Count++;
                foreach ((int count, TaskCompletionSource reached) in _waiters)
                {
                    if (Count >= count)
                    {
                        reached.TrySetResult();
                    }
                }
            }

            if (hang)
            {
                await _never.Task;
            }

            return CownReply.Ready;
        }

        public override Task<CownReply> Enqueue(Guid behaviour, bool first, bool last, TimeSpan wait, string? idempotencyKey) => throw new NotSupportedException();

        public override Task Schedule(Guid behaviour) => throw new NotSupportedException();

        public override Task<CownReply> Acquire(Guid behaviour, TimeSpan wait) => throw new NotSupportedException();

        public override Task Prepare(Guid behaviour, GrainId coordinator) => throw new NotSupportedException();

        public override Task ReadDone(Guid behaviour, GrainId coordinator) => throw new NotSupportedException();

        public override Task<ReleaseReply> Finish(Guid behaviour) => throw new NotSupportedException();

        public override Task<Decision> Commit(Guid behaviour, GrainId[] participants, GrainId[] readers, TimeSpan attemptAge, string? idempotencyKey) => throw new NotSupportedException();

        public override Task<CownReply> KeepKey(string idempotencyKey) => throw new NotSupportedException();

        public override Task<ReleaseReply> Release(Guid behaviour, bool apply) => throw new NotSupportedException();

        public override Task Forget(Guid behaviour) => throw new NotSupportedException();
    }
}
