namespace Boc.Testing;

/// <summary>
/// Queues every posted callback as a step of the controlled run. A fresh instance is current during each step, so a
/// continuation captured in one step is never inlined into a later one (.NET inlines only when the captured context is
/// the current one): every resumption is a scheduling point.
/// </summary>
internal sealed class ControlledSynchronizationContext(ControlledExecution execution) : SynchronizationContext
{
    public override void Post(SendOrPostCallback d, object? state)
    {
        ArgumentNullException.ThrowIfNull(d);
        execution.Post(d, state);
    }

    public override void Send(SendOrPostCallback d, object? state) =>
        throw new NotSupportedException("Synchronous Send would block the only thread of a controlled Boc run.");

    public override SynchronizationContext CreateCopy() => this;
}
