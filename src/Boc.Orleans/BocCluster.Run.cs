using System.Diagnostics;
using Boc.Orleans.Grains;

namespace Boc.Orleans;

// =====================================================================================================================
// The spawner's side of the protocol (docs/distributed.md, "The protocol", "Commit" and "Failures"). One BocCluster is
// one spawner: spawns from it that share a cown run their enqueue phases in call order (SpawnSequencer), which is what
// makes "WhenAsync called first" mean "ahead on every shared cown" without awaiting.
//
// An attempt: sequence, enqueue in the global order one acknowledgement at a time, schedule-and-acquire, run the body,
// then the write-back (BocCluster.Commit.cs). An attempt that loses a cown before its commit decision (a silo died, a
// lease expired, a cown's storage failed) is abandoned: every cown is released unchanged, a prepared value dropped
// (the coordinator never committed, or answered a fenced Aborted), and the behaviour is spawned again with a new id.
// The body's own exception is never retried. Every await keeps the caller's context (ConfigureAwait(true)): a spawner
// inside a grain must run the body on its activation.
// =====================================================================================================================
public sealed partial class BocCluster
{
    /// <summary>The result of the forms without one.</summary>
    private static readonly Task<object?> NoResult = Task.FromResult<object?>(null);

    private async Task<TResult> RunAsync<TResult>(SpawnPlan plan, Func<Task<TResult>> body, CancellationToken cancellationToken)
    {
        long started = Stopwatch.GetTimestamp();
        using Activity? span = BocClusterMetrics.Source.StartActivity(BocClusterMetrics.BehaviourSpanName);
        span?.SetTag("boc.cowns", plan.Entries.Length);
        BocClusterMetrics.Count(BocClusterMetrics.Spawned);
        Exception? lastFailure = null;
        KeyKeeper? keeper = KeyKeeper.Start(plan.Coordinator, _idempotencyKey, _options.LeaseDuration, _logger);
        try
        {
            for (int attempt = 0; attempt < _options.MaxAttempts; attempt++)
            {
                if (attempt > 0)
                {
                    // A lost cown usually means a dead silo: give the membership time to declare it and the grain to move.
                    await Task.Delay(Math.Min(50 << Math.Min(attempt, 6), 2000), cancellationToken).ConfigureAwait(true);
                }

                Interlocked.Increment(ref s_attempts);
                var run = new Attempt(this, plan, attempt, started);
                (bool committed, TResult result, string? reason, Exception? failure) = await run.ExecuteAsync(body, cancellationToken).ConfigureAwait(true);
                if (committed)
                {
                    BocClusterMetrics.Count(BocClusterMetrics.Committed);
                    BocClusterMetrics.Duration.Record(Stopwatch.GetElapsedTime(started).TotalMilliseconds);
                    span?.SetTag("boc.attempts", attempt + 1);
                    return result;
                }

                Interlocked.Increment(ref s_abandoned);
                BocClusterMetrics.Abandon(reason!);
                Log.AttemptAbandoned(_logger, failure, plan.Describe(), attempt + 1, run.Id, reason!);
                lastFailure = failure ?? new CownLostException(reason!);
                await (Root.BetweenAttemptsHook?.Invoke(run.Id) ?? Task.CompletedTask).ConfigureAwait(true);
            }
        }
        catch (Exception failure) when (SetError(span, failure))
        {
            throw;
        }
        finally
        {
            if (keeper is not null)
            {
                await keeper.StopAsync().ConfigureAwait(true);
            }
        }

        BocClusterMetrics.Count(BocClusterMetrics.Failed);
        var error = new BocClusterException(
            $"The behaviour over {plan.Describe()} could not be run in {_options.MaxAttempts} attempts: a cown was unavailable. Nothing was written.",
            lastFailure!);
        SetError(span, error);
        throw error;
    }

    private static bool SetError(Activity? span, Exception failure)
    {
        span?.SetStatus(ActivityStatusCode.Error, failure.Message);
        if (failure is OperationCanceledException)
        {
            BocClusterMetrics.Count(BocClusterMetrics.Canceled);
        }

        return false;
    }

    /// <summary>One attempt of a spawn: its id, its leases, and the steps up to its outcome.</summary>
    private sealed partial class Attempt
    {
        private readonly BocCluster _spawner;
        private readonly SpawnPlan _plan;
        private readonly CownEntry[] _entries;
        private readonly LeaseRenewer _renewer;
        private readonly long _started = Stopwatch.GetTimestamp();
        private readonly long _callStarted;

        public Attempt(BocCluster spawner, SpawnPlan plan, int number, long callStarted)
        {
            _spawner = spawner;
            _callStarted = callStarted;
            _plan = plan;
            _entries = plan.Entries;
            foreach (CownEntry entry in _entries)
            {
                entry.Granted = false;
            }

            Number = number;
            _renewer = new LeaseRenewer(_entries, Id, spawner._options.LeaseDuration, spawner._logger);
        }

        public Guid Id { get; } = Guid.NewGuid();

        public int Number { get; }

        private BocClusterOptions Options => _spawner._options;

        /// <summary>
        /// Runs the attempt to its outcome: committed with the body's result, or abandoned (nothing written, to be
        /// retried) with a reason. The body's exception, cancellation before the body, a duplicate idempotency key and
        /// an unknown outcome are thrown.
        /// </summary>
        public async Task<(bool Committed, TResult Result, string? Reason, Exception? Failure)> ExecuteAsync<TResult>(Func<Task<TResult>> body, CancellationToken cancellationToken)
        {
            try
            {
                return await RunStepsAsync(body, cancellationToken).ConfigureAwait(true);
            }
            catch (SpawnerCrashException)
            {
                // A test's crash: the spawner sends nothing more for this attempt, not even a release.
                await _renewer.StopAsync().ConfigureAwait(true);
                throw;
            }
        }

        private async Task<(bool Committed, TResult Result, string? Reason, Exception? Failure)> RunStepsAsync<TResult>(Func<Task<TResult>> body, CancellationToken cancellationToken)
        {
            try
            {
                await AcquireAllAsync(cancellationToken).ConfigureAwait(true);
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                // Withdrawn before holding its cowns: the body never runs and the cowns pass on.
                await AbandonAsync().ConfigureAwait(true);
                throw;
            }
            catch (SpawnerCrashException)
            {
                throw;
            }
            catch (KeyFencedException fenced)
            {
                // Definitive, not retried: no attempt with the key may commit any more.
                await AbandonAsync().ConfigureAwait(true);
                BocClusterMetrics.Count(BocClusterMetrics.Failed);
                throw new BocClusterException(fenced.Message, fenced);
            }
#pragma warning disable CA1031 // Any failure to reach a cown abandons the attempt; the last one is reported.
            catch (Exception failure)
#pragma warning restore CA1031
            {
                await AbandonAsync().ConfigureAwait(true);
                return (false, default!, failure is CownUnavailableException ? "unavailable" : "lost", failure);
            }

            TResult result;
            long stepStart = Stopwatch.GetTimestamp();
            try
            {
                using (HeldCowns.Enter(_entries))
                {
                    result = await body().ConfigureAwait(true);
                }
            }
            catch (Exception failure) when (failure is not SpawnerCrashException)
            {
                // The body's exception surfaces only if the states it saw count: a body may have run on the write-back of
                // a behaviour that was then aborted (a failure), and such a run is retried, not reported.
                await _renewer.StopAsync().ConfigureAwait(true);
                ReleaseReply[] released = await Task.WhenAll(_entries.Select(e => ReleaseQuietly(e, finish: true))).ConfigureAwait(true);
                if (!Array.TrueForAll(released, r => r == ReleaseReply.Released))
                {
                    return (false, default!, "unvalidated", failure);
                }

                BocClusterMetrics.Count(BocClusterMetrics.Faulted);
                throw;
            }

            StepTimes.Record(StepTimes.Body, stepStart);
            await _spawner.Step(SpawnerStep.BodyRan, Id).ConfigureAwait(true);
            string? abandoned = await CommitAsync().ConfigureAwait(true);
            return abandoned is null ? (true, result, null, null) : (false, default!, abandoned, null);
        }

        /// <summary>Enqueue (sequenced, one acknowledgement at a time, in the global order), schedule, acquire.</summary>
        private async Task AcquireAllAsync(CancellationToken cancellationToken)
        {
            TimeSpan poll = Options.PollInterval;
            long stepStart = Stopwatch.GetTimestamp();
            var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            Task[] predecessors = _spawner._sequencer.Register(_entries, done.Task);
            try
            {
                await Task.WhenAll(predecessors).WaitAsync(cancellationToken).ConfigureAwait(true);
                GrainId? coordinator = _plan.Coordinator?.GrainId;
                foreach (CownEntry entry in _entries)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    _renewer.AddEnqueued();

                    // The first call is awaited even when canceled: the request it creates must exist before the release
                    // that withdraws it is sent, or the release could overtake it and the request wait out its lease.
                    string? key = entry.GrainId == coordinator ? _spawner._idempotencyKey : null;
                    if (key is not null && Stopwatch.GetElapsedTime(_callStarted) > Options.CommitRecordRetention / 2)
                    {
                        // A fence lasts the retention from the lookup that set it: a call this old no longer queues with
                        // its key, so a lookup's NotCommitted stays true after its fence is gone.
                        throw new KeyFencedException($"The behaviour over {_plan.Describe()} with the idempotency key '{key}' was not run again: it has been retried for half of CommitRecordRetention, after which a fenced key's refusal could have expired. Nothing was written.");
                    }

                    // A cown that can grant at once does so with its acknowledgement; the others are asked below. The
                    // last cown's acknowledgement completes the enqueue phase, so it schedules the request there too.
                    bool last = entry == _entries[^1];
                    CownReply reply = await entry.Enqueue(Id, first: true, last, poll, key).ConfigureAwait(true);
                    while (reply != CownReply.Ready)
                    {
                        ThrowIfLost(reply, entry);
                        reply = await entry.Enqueue(Id, first: false, last, poll, null).WaitAsync(cancellationToken).ConfigureAwait(true);
                    }
                }
            }
            finally
            {
                _spawner._sequencer.End(_entries, done, predecessors);
            }

            stepStart = StepTimes.Record(StepTimes.Enqueue, stepStart);
            await _spawner.Step(SpawnerStep.Enqueued, Id).ConfigureAwait(true);
            foreach (CownEntry granted in _entries.Take(_entries.Length - 1).Where(e => e.Granted))
            {
                // Granted with its acknowledgement, before the enqueue phase ended: scheduled now, so requests behind it
                // can be acknowledged.
                Send(granted.Schedule(Id));
            }

            await Task.WhenAll(_entries.Where(e => !e.Granted).Select(e => AcquireAsync(e, cancellationToken))).ConfigureAwait(true);
            StepTimes.Record(StepTimes.Acquire, stepStart);
            await _spawner.Step(SpawnerStep.Acquired, Id).ConfigureAwait(true);
        }

        private async Task AcquireAsync(CownEntry entry, CancellationToken cancellationToken)
        {
            while (true)
            {
                CownReply reply = await entry.Acquire(Id, Options.PollInterval).WaitAsync(cancellationToken).ConfigureAwait(true);
                if (reply == CownReply.Ready)
                {
                    return;
                }

                ThrowIfLost(reply, entry);
            }
        }

        private string Fenced(CownEntry coordinator) =>
            $"The behaviour over {_plan.Describe()} was not run: its idempotency key '{_spawner._idempotencyKey}' is fenced at the coordinator {coordinator.Name} (a lookup answered NotCommitted for it), so nothing with the key may commit there. Nothing was written; spawn it under a new key if it is still wanted.";

        /// <summary>
        /// Releases every cown the attempt may have reached, unchanged (a prepared value dropped). Only after a decision
        /// that nothing commits: before the commit was sent, or on a fenced Aborted. Bounded: a cown that misses it evicts
        /// the request when its lease ends, and the next attempt has a new id.
        /// </summary>
        private async Task AbandonAsync()
        {
            await _renewer.StopAsync().ConfigureAwait(true);
            Task releases = Task.WhenAll(_entries.Take(_renewer.Enqueued).Select(async e =>
            {
                try
                {
                    await e.Release(Id, apply: false).ConfigureAwait(true);
                }
#pragma warning disable CA1031 // Best effort: the cown's lease frees it otherwise.
                catch (Exception)
#pragma warning restore CA1031
                {
                }
            }));
            await Task.WhenAny(releases, Task.Delay(Options.LeaseDuration / 3)).ConfigureAwait(true);
        }

        private void ThrowIfLost(CownReply reply, CownEntry entry)
        {
            if (reply == CownReply.Fenced)
            {
                throw new KeyFencedException(Fenced(entry));
            }

            if (reply == CownReply.Lost)
            {
                throw new CownLostException($"{entry.Name} no longer holds the behaviour's request.");
            }
        }
    }
}
