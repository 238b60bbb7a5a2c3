#if DEBUG
namespace Boc;

/// <summary>
/// Debug builds only: points in the protocol where a test can watch or pause a thread mid-step (ProtocolWaitTests).
/// Process-wide, so a hook filters on its own cowns and threads; every other spawn only pays the null check.
/// </summary>
internal static class ProtocolTestHooks
{
    /// <summary>Called by a spawner right after its Exchange on a cown's tail, before it links or is Scheduled there.</summary>
    public static volatile Action<Cown>? Exchanged;

    /// <summary>Called at every iteration of a protocol wait on a cown, with the iterations so far.</summary>
    public static volatile Action<Cown, int>? Waiting;

    /// <summary>Called by a spawner after a scope member's enqueue, before it registers it for the scope's cancellation.</summary>
    public static volatile Action<BocScope>? ScopeRegistering;
}
#endif
