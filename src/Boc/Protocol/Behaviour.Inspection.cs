namespace Boc;

// Read-only views of a behaviour's requests for Boc.Testing's schedule traces ("which behaviour on which cowns ran").
// Kept apart from the protocol files: nothing here changes state.
internal abstract partial class Behaviour
{
    /// <summary>Gets how many cowns the behaviour requests (after duplicates were merged, once it was enqueued).</summary>
    internal int RequestCount => _slotCount;

    /// <summary>Gets the cown of request <paramref name="index"/> (in cown-id order once enqueued).</summary>
    internal Cown RequestedCown(int index) => SlotAt(index).Target;

    /// <summary>Gets whether request <paramref name="index"/> is read-only.</summary>
    internal bool RequestIsRead(int index) => SlotAt(index).IsRead;

    /// <summary>
    /// Gets the task of the asynchronous body that holds this behaviour's cowns until it completes, or null (a
    /// synchronous body, or none running): Boc.Testing looks at what a suspended body awaits when a run is stuck.
    /// </summary>
    internal Task? SuspendedBodyTask => _extras?.BodyTask?.Task;
}
