using System.Diagnostics;
using Boc.Orleans.Grains;

namespace Boc.Orleans;

// The write-back (docs/distributed.md, "Commit"). Read-only grants are validated before the decision, so a body that
// ran on a grant its cown no longer vouches for (its activation was lost mid-body) is never counted. Written cowns
// other than the coordinator prepare (durably), then the coordinator commits: its state and the commit record in one
// storage write, and tells the prepared cowns to apply. The spawner tells the coordinator it has its answer; the record
// goes once that is said and every prepared cown has answered Applied.
public sealed partial class BocCluster
{
    private sealed partial class Attempt
    {
        /// <summary>The write-back; returns null once committed, or why the attempt was abandoned (nothing written).</summary>
        private async Task<string?> CommitAsync()
        {
            CownEntry? coordinator = _plan.Coordinator;
            CownEntry[] reads = [.. _entries.Where(e => !e.Write)];
            if (coordinator is null)
            {
                // Nothing to write: the release of each read-only cown is its validation.
                ReleaseReply[] released = await Task.WhenAll(reads.Select(e => ReleaseQuietly(e, apply: false))).ConfigureAwait(true);
                await _renewer.StopAsync().ConfigureAwait(true);
                return Array.TrueForAll(released, r => r == ReleaseReply.Released) ? null : "unvalidated";
            }

            CownEntry[] participants = [.. _entries.Where(e => e.Write && e != coordinator)];
            long stepStart = Stopwatch.GetTimestamp();
            CownReply[] ready;
            try
            {
                ready = await Task.WhenAll(participants.Select(e => e.Prepare(Id, coordinator.GrainId)).Concat(reads.Select(e => e.Validate(Id)))).ConfigureAwait(true);
            }
#pragma warning disable CA1031 // A cown that cannot prepare or vouch for its grant abandons the attempt before anything commits.
            catch (Exception)
#pragma warning restore CA1031
            {
                ready = [CownReply.Lost];
            }

            if (Array.Exists(ready, r => r != CownReply.Ready))
            {
                await AbandonAsync().ConfigureAwait(true);
                return "lost";
            }

            stepStart = StepTimes.Record(StepTimes.Prepare, stepStart);
            await _spawner.Step(SpawnerStep.Prepared, Id).ConfigureAwait(true);
            Decision decision = await DecideAsync(coordinator, [.. participants.Select(p => p.GrainId)]).ConfigureAwait(true);
            stepStart = StepTimes.Record(StepTimes.Commit, stepStart);
            switch (decision)
            {
                case Decision.Committed:
                    await _renewer.StopAsync().ConfigureAwait(true);
                    await _spawner.Step(SpawnerStep.Committed, Id).ConfigureAwait(true);
                    await FinishAsync(coordinator, reads).ConfigureAwait(true);
                    StepTimes.Record(StepTimes.Finish, stepStart);
                    await _spawner.Step(SpawnerStep.Finished, Id).ConfigureAwait(true);
                    return null;
                case Decision.Aborted:
                    await AbandonAsync().ConfigureAwait(true);
                    return "aborted";
                case Decision.Duplicate:
                    await AbandonAsync().ConfigureAwait(true);
                    throw new BocClusterDuplicateException(_spawner._idempotencyKey!, coordinator.Name);
                case Decision.Fenced:
                    await AbandonAsync().ConfigureAwait(true);
                    BocClusterMetrics.Count(BocClusterMetrics.Failed);
                    throw new BocClusterException(Fenced(coordinator));
                default:
                    await _renewer.StopAsync().ConfigureAwait(true);
                    throw OutcomeUnknown(coordinator, reads, null);
            }
        }

        /// <summary>
        /// Commits at the coordinator. Transport failures and a reloading coordinator are retried (Commit is idempotent
        /// by behaviour id) until two leases have passed and three calls have failed (a call to a dead silo can take
        /// Orleans' whole response timeout, and the cown's new activation exists only once the silo is declared dead);
        /// then the outcome is unknown.
        /// </summary>
        private async Task<Decision> DecideAsync(CownEntry coordinator, GrainId[] participants)
        {
            long deadline = Environment.TickCount64 + 2 * (long)Options.LeaseDuration.TotalMilliseconds;
            int delay = 10;
            bool first = true;
            int failures = 0;
            Exception? lastFailure = null;
            while (true)
            {
                try
                {
                    Task<Decision> commit = coordinator.Commit(Id, participants, Stopwatch.GetElapsedTime(_started), _spawner._idempotencyKey);
                    if (first)
                    {
                        first = false;
                        await _spawner.Step(SpawnerStep.CommitSent, Id).ConfigureAwait(true);
                    }

                    Decision decision = await commit.ConfigureAwait(true);
                    if (decision != Decision.Pending)
                    {
                        return decision;
                    }

                    // Its request is there but not granted: not a state this spawner's attempt can be in; ask again.
                    failures++;
                }
                catch (Exception failure) when (failure is not SpawnerCrashException)
                {
                    lastFailure = failure;
                    failures++;
                }

                if (Environment.TickCount64 >= deadline && failures >= 3)
                {
                    await _renewer.StopAsync().ConfigureAwait(true);
                    throw OutcomeUnknown(coordinator, [], lastFailure);
                }

                await Task.Delay(delay).ConfigureAwait(true);
                delay = Math.Min(delay * 2, 1000);
            }
        }

        /// <summary>
        /// After the commit: the coordinator applies the prepared values itself (it tells the participants); the spawner
        /// releases its read-only cowns and tells the coordinator it has its answer, so the record may go once every
        /// participant has applied.
        /// </summary>
        private async Task FinishAsync(CownEntry coordinator, CownEntry[] reads)
        {
            Task released = Task.WhenAll(reads.Select(e => ReleaseQuietly(e, apply: false)));
            try
            {
                await coordinator.Forget(Id).ConfigureAwait(true);
            }
#pragma warning disable CA1031 // A record nobody forgets is dropped after the retention (docs/distributed.md).
            catch (Exception)
#pragma warning restore CA1031
            {
            }

            await released.ConfigureAwait(true);
        }

        /// <summary>A release whose failure is logged, not thrown: the cowns recover by themselves (docs/distributed.md, "Failures").</summary>
        private async Task<ReleaseReply> ReleaseQuietly(CownEntry entry, bool apply)
        {
            try
            {
                return await entry.Release(Id, apply).ConfigureAwait(true);
            }
#pragma warning disable CA1031 // See the summary.
            catch (Exception failure)
#pragma warning restore CA1031
            {
                Log.FinishFailed(_spawner._logger, failure, _plan.Describe(), Id, entry.Name);
                return ReleaseReply.NotHeld;
            }
        }

        private BocClusterOutcomeUnknownException OutcomeUnknown(CownEntry coordinator, CownEntry[] reads, Exception? failure)
        {
            // Read-only cowns have nothing to settle: free them now. The written ones resolve through the coordinator.
            foreach (CownEntry read in reads)
            {
                _ = ReleaseQuietly(read, apply: false);
            }

            BocClusterMetrics.Count(BocClusterMetrics.Ambiguous);
            Log.OutcomeUnknown(_spawner._logger, failure, _plan.Describe(), Id);
            return new BocClusterOutcomeUnknownException(
                $"The commit's outcome is unknown: the coordinator cown {coordinator.Name} could not be reached for two leases. Its writes are applied everywhere or nowhere once it answers; look the outcome up by idempotency key (IBocCluster.GetOutcomeAsync) if the behaviour had one.",
                _spawner._idempotencyKey,
                coordinator.Name,
                failure);
        }
    }
}
