namespace Boc;

// The behaviour's side of scopes (Scopes/BocScope.Members.cs has the argument): which scope a behaviour belongs to, and
// the arbiter that lets the scope withdraw it. Both live in the behaviour's side object, kept with the pooled object,
// so a behaviour outside every scope carries nothing for scopes and a member allocates nothing in steady state.
internal abstract partial class Behaviour
{
    /// <summary>Gets the scope this spawn belongs to, or null (most behaviours).</summary>
    internal BocScope? Scope => _extras?.Scope;

    /// <summary>
    /// Makes this behaviour, initialised and not yet enqueued, a member of <paramref name="scope"/>; returns the
    /// arbiter the scope's registry names it by and the life it names (0 for a spawn's own
    /// <see cref="CancellationRequest"/>, which lives one spawn only). A spawn with a token of its own keeps that
    /// request as its arbiter: the scope withdraws it through the same request, so one state word decides.
    /// </summary>
    internal Withdrawal JoinScope(BocScope scope, out long life)
    {
        AssertLive();
        BehaviourExtras extras = _extras ??= new BehaviourExtras();
        extras.Scope = scope;
        if (extras.Cancellation is { } request)
        {
            life = 0;
            return request;
        }

        ScopeMembership membership = extras.Membership ??= new ScopeMembership(this);
        life = membership.BeginLife();
        extras.Cancellation = membership;
        return membership;
    }

    /// <summary>Gets the behaviour whose body runs in the current flow, given the calling thread's object.</summary>
    internal static Behaviour? CurrentOn(BocThread thread) => s_asyncBody.Value?.Behaviour ?? thread.Running;
}
