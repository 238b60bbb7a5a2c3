#if BOC_MODEL
namespace Boc;

/// <summary>
/// Model builds only: the seeded bugs of the model tests (docs/internals/model-tests.md), one per model, each a
/// deliberate break of one step of an argument, switched on by name for one test. A model test runs its model once
/// with its mutation on, to show that the exploration finds the break, and once with none, to show the real code holds.
/// </summary>
internal static class ModelMutations
{
    /// <summary>The thief claims the stolen half with a plain store instead of a compare-and-swap (RunQueue.StealHalfInto).</summary>
    internal const string StealWithoutClaim = nameof(StealWithoutClaim);

    /// <summary>
    /// A parked peer takes a next slot's item without checking that its owner is still inside the same body (InBody and
    /// Ticks, in TakeStuckWork).
    /// </summary>
    internal const string ThiefIgnoresOwner = nameof(ThiefIgnoresOwner);

    /// <summary>A spawner visits its cowns in argument order, not in the global order of cown ids (SortAndMerge).</summary>
    internal const string SpawnInArgumentOrder = nameof(SpawnInArgumentOrder);

    /// <summary>A reader that receives the turn passes it on before it counts itself in on the cown (Grant).</summary>
    internal const string ReaderCountsInLate = nameof(ReaderCountsInLate);

    /// <summary>The canceller passes a writer's turn on without the Held/Withdrawn arbitration (WithdrawSlots).</summary>
    internal const string WithdrawIgnoresHeld = nameof(WithdrawIgnoresHeld);

    /// <summary>A join through the ambient scope does not look at the closed flag again after counting in (TryCountIn).</summary>
    internal const string JoinWithoutRecheck = nameof(JoinWithoutRecheck);

    /// <summary>A worker parks without looking at the queues again after registering as a sleeper (WaitForWork).</summary>
    internal const string ParkWithoutRecheck = nameof(ParkWithoutRecheck);

    /// <summary>Gets or sets the mutation switched on, or null (every test sets it on its own controlled run).</summary>
    internal static string? Active { get; set; }

    /// <summary>Whether <paramref name="name"/> is the mutation switched on.</summary>
    internal static bool Is(string name) => ReferenceEquals(Active, name) || Active == name;
}
#endif
