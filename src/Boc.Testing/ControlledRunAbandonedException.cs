namespace Boc.Testing;

/// <summary>
/// Thrown out of a spawn (a <c>When</c> call) in a step that was paused there when its controlled run ended (it
/// failed, or everything else finished): the step is unwound so that its thread can be reused. Code under test sees it
/// only in <c>catch</c> or <c>finally</c> blocks around a spawn, after the run's outcome is decided.
/// </summary>
internal sealed class ControlledRunAbandonedException : Exception
{
    public ControlledRunAbandonedException()
        : base("The controlled Boc run ended while this code was paused at a spawn; it is unwound.")
    {
    }
}
