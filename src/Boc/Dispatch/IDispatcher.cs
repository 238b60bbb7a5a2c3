namespace Boc.Dispatch;

/// <summary>
/// Runs behaviours that hold all their cowns. The protocol (<c>Protocol/</c>) decides <em>when</em> a behaviour
/// may run; a dispatcher decides <em>where</em>. Implementations must never run a behaviour inline in
/// <see cref="Dispatch"/>: it is called while cowns are being released, and running a body there would nest
/// behaviours on the releasing thread's stack.
/// </summary>
internal interface IDispatcher
{
    /// <summary>Queues a ready behaviour to run once, on some worker.</summary>
    void Dispatch(Behaviour behaviour);
}
