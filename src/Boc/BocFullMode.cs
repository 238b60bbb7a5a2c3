namespace Boc;

/// <summary>
/// What a spawn from outside a runtime does when the runtime already has
/// <see cref="BocRuntimeOptions.MaxPendingBehaviours"/> behaviours pending. See <see cref="BocRuntimeOptions.FullMode"/>.
/// </summary>
/// <remarks>
/// Neither mode drops work: a behaviour is either accepted whole or not at all. <c>TryWhen</c> never waits and never
/// throws for a full runtime, whatever the mode; it returns false instead.
/// </remarks>
public enum BocFullMode
{
    /// <summary>
    /// <c>When</c> and <c>WhenAsync</c> block the calling thread until a pending behaviour finishes and there is room.
    /// A <c>WhenAsync</c> given a <see cref="System.Threading.CancellationToken"/> also returns when the token is
    /// canceled meanwhile, with a canceled awaitable and nothing enqueued.
    /// Asynchronous producers should not block: they use <c>TryWhen</c> with
    /// <see cref="BocRuntime.WaitForRoomAsync(System.Threading.CancellationToken)"/> instead.
    /// </summary>
    Wait,

    /// <summary>
    /// <c>When</c> and <c>WhenAsync</c> throw <see cref="BocRuntimeFullException"/> before anything is enqueued.
    /// </summary>
    Throw,
}
