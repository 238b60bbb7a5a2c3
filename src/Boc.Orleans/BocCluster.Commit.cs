using System.Diagnostics;
using Boc.Orleans.Grains;

namespace Boc.Orleans;

// The write-back (docs/distributed.md, "Commit"). Every cown gets its part at once: the participants their new states
// (Prepare), the readers their release (ReadDone), and the coordinator its state with the lists of both (Commit). Each
// cown releases the request as it gets its part, so the next behaviour there starts at once, on the new state. The
// participants prepare in storage and the readers validate their grants, and each votes to the coordinator, which commits
// (its state and the commit record in one storage write) once every vote is yes and answers the spawner. A behaviour
// that writes nothing validates its reads with their release. The spawner tells the coordinator it has its answer; the
// record goes once that is said and every participant has applied.
public sealed partial class BocCluster
{
    private sealed partial class Attempt
    {
        /// <summary>The write-back; returns null once committed, or why the attempt was abandoned (nothing written).</summary>
        private async Task<string?> CommitAsync()
        {
            CownEntry? coordinator = _plan.Coordinator;
            CownEntry[] reads = [.. _entries.Where(e => !e.Write)];
            await _renewer.StopAsync().ConfigureAwait(true);
            if (coordinator is null)
            {
                // Nothing to write: the release of each read-only cown is its validation.
                ReleaseReply[] released = await Task.WhenAll(reads.Select(e => ReleaseQuietly(e, finish: true))).ConfigureAwait(true);
                return Array.TrueForAll(released, r => r == ReleaseReply.Released) ? null : "unvalidated";
            }

            CownEntry[] participants = [.. _entries.Where(e => e.Write && e != coordinator)];
            long stepStart = Stopwatch.GetTimestamp();
            foreach (CownEntry participant in participants)
            {
                Send(participant.Prepare(Id, coordinator.GrainId));
            }

            foreach (CownEntry read in reads)
            {
                Send(read.ReadDone(Id, coordinator.GrainId));
            }

            await _spawner.Step(SpawnerStep.Prepared, Id).ConfigureAwait(true);
            Decision decision = await DecideAsync(coordinator, [.. participants.Select(p => p.GrainId)], [.. reads.Select(r => r.GrainId)]).ConfigureAwait(true);
            stepStart = StepTimes.Record(StepTimes.Commit, stepStart);
            switch (decision)
            {
                case Decision.Committed:
                    await _spawner.Step(SpawnerStep.Committed, Id).ConfigureAwait(true);
                    Send(coordinator.Forget(Id));
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
                    throw OutcomeUnknown(coordinator, null);
            }
        }

        /// <summary>
        /// Commits at the coordinator. Pending (it waits for votes, or for write-backs before it) is asked again; transport
        /// failures and a reloading coordinator are retried (Commit is idempotent by behaviour id) until two leases have
        /// passed and three calls have failed (a call to a dead silo can take Orleans' whole response timeout, and the
        /// cown's new activation exists only once the silo is declared dead); then the outcome is unknown.
        /// </summary>
        private async Task<Decision> DecideAsync(CownEntry coordinator, GrainId[] participants, GrainId[] readers)
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
                    Task<Decision> commit = coordinator.Commit(Id, participants, readers, Stopwatch.GetElapsedTime(_started), _spawner._idempotencyKey);
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

                    continue;
                }
                catch (Exception failure) when (failure is not SpawnerCrashException)
                {
                    lastFailure = failure;
                    failures++;
                }

                if (Environment.TickCount64 >= deadline && failures >= 3)
                {
                    throw OutcomeUnknown(coordinator, lastFailure);
                }

                await Task.Delay(delay).ConfigureAwait(true);
                delay = Math.Min(delay * 2, 1000);
            }
        }

        /// <summary>A one-way call: sent, never awaited for an answer (the cowns' votes and deadlines cover a lost one).</summary>
        private void Send(Task oneWay) => _ = oneWay.ContinueWith(
            static (t, logger) => Log.FinishFailed((Microsoft.Extensions.Logging.ILogger)logger!, t.Exception!, "", Guid.Empty, "a one-way message"),
            _spawner._logger,
            CancellationToken.None,
            TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);

        /// <summary>A release whose failure is logged, not thrown: the cowns recover by themselves (docs/distributed.md, "Failures").</summary>
        private async Task<ReleaseReply> ReleaseQuietly(CownEntry entry, bool finish)
        {
            try
            {
                return finish ? await entry.Finish(Id).ConfigureAwait(true) : await entry.Release(Id, apply: false).ConfigureAwait(true);
            }
#pragma warning disable CA1031 // See the summary.
            catch (Exception failure)
#pragma warning restore CA1031
            {
                Log.FinishFailed(_spawner._logger, failure, _plan.Describe(), Id, entry.Name);
                return ReleaseReply.NotHeld;
            }
        }

        private BocClusterOutcomeUnknownException OutcomeUnknown(CownEntry coordinator, Exception? failure)
        {
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
