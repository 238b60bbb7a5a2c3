using System.Diagnostics;
using System.Reflection;
using System.Runtime.CompilerServices;
using Boc.Diagnostics;

namespace Boc.Testing;

/// <summary>
/// What a trace calls things, beside their numbers: a cown by its name (<c>c0 "alice"</c>), a behaviour by its body's
/// method (<c>b3 [Bank.Transfer (lambda)]</c>), a resumed await by the method it resumes, and a spawn by where it was
/// made (<c>at TransferTests.cs:42</c>). A run keeps only references (the body delegates, the cowns, the posted
/// continuations) and formats them when the trace is read, so exploring costs a reference store per spawn. Where a spawn
/// was made needs a stack trace, which is not free: it is recorded only when asked, for a replay or for the one run
/// that reports a failure (<see cref="BocTest"/> runs a failing schedule once more to record it).
/// </summary>
internal sealed class TraceNames(bool recordSpawnSites)
{
    private static readonly Assembly BocAssembly = typeof(BocRuntime).Assembly;
    private static readonly Assembly TestingAssembly = typeof(TraceNames).Assembly;

    // The body and the state-as-delegate of each spawn, as spawned (no reflection while exploring; see Behaviour).
    private readonly Dictionary<int, (Delegate? Body, Delegate? State)> _bodies = [];
    private readonly Dictionary<int, string> _sites = [];

    /// <summary>Notes behaviour <paramref name="number"/>'s body (and, if recording, where its spawn was made).</summary>
    public void OnSpawn(int number, Behaviour behaviour)
    {
        _bodies[number] = (behaviour.Body, behaviour.StateAsDelegate);

        if (recordSpawnSites && SpawnSite() is { } site)
        {
            _sites[number] = site;
        }
    }

    /// <summary>Behaviour <paramref name="number"/> as the trace shows it: <c>b3 [Bank.Transfer (lambda)]</c>, or <c>b3</c>.</summary>
    public string Behaviour(int number) =>
        _bodies.TryGetValue(number, out (Delegate? Body, Delegate? State) spawned) && BehaviourName.UserBodyOf(spawned.Body, spawned.State) is { } body
            ? string.Create(System.Globalization.CultureInfo.InvariantCulture, $"b{number} [{BehaviourName.Of(body).Short}]")
            : string.Create(System.Globalization.CultureInfo.InvariantCulture, $"b{number}");

    /// <summary>Where behaviour <paramref name="number"/> was spawned (<c>TransferTests.Run (TransferTests.cs:42)</c>), if recorded.</summary>
    public string? SiteOf(int number) => _sites.GetValueOrDefault(number);

    /// <summary>The method an await continuation resumes, or null if it cannot be told (a best effort over .NET's types).</summary>
    public static string? Resumed(object? posted)
    {
        for (int depth = 0; depth < 4 && posted is not null; depth++)
        {
            switch (posted)
            {
                case IAsyncStateMachine machine:
                    return MethodOfMachine(machine);
                case Delegate { Target: { } target } when target is not Delegate:
                    posted = target;
                    continue;
                case Delegate continuation:
                    posted = continuation.Target;
                    continue;
            }

            // .NET's AsyncStateMachineBox<T> keeps the state machine in a field named StateMachine; a ValueTask source's
            // continuation arrives as (Action<object?>, object?).
            Type type = posted.GetType();
            if (type.GetField("StateMachine", BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic)?.GetValue(posted) is IAsyncStateMachine boxed)
            {
                return MethodOfMachine(boxed);
            }

            if (posted is ITuple { Length: 2 } pair)
            {
                posted = pair[1] ?? pair[0];
                continue;
            }

            // .NET's internal TupleSlim (a ValueTask source's continuation and its state, posted together).
            FieldInfo? second = type.GetField("Item2", BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic);
            if (second?.GetValue(posted) is { } state)
            {
                posted = state;
                continue;
            }

            return null;
        }

        return null;
    }

    private static string? MethodOfMachine(IAsyncStateMachine machine) =>
        machine.GetType().GetMethod(nameof(IAsyncStateMachine.MoveNext), BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic) is { } moveNext
            ? BehaviourName.Of(moveNext).Short
            : null;

    /// <summary>The first frame of the calling stack outside Boc and .NET: the user code that spawned.</summary>
    private static string? SpawnSite()
    {
        var stack = new StackTrace(2, fNeedFileInfo: true);
        for (int i = 0; i < stack.FrameCount; i++)
        {
            StackFrame frame = stack.GetFrame(i)!;
            if (frame.GetMethod() is not { DeclaringType: { } type } method
                || type.Assembly == BocAssembly || type.Assembly == TestingAssembly
                || type.Namespace is { } ns && (ns.StartsWith("System", StringComparison.Ordinal) || ns.StartsWith("Microsoft", StringComparison.Ordinal)))
            {
                continue;
            }

            string where = BehaviourName.Of(method).Short;
            return frame.GetFileName() is { } file
                ? string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{where} ({Path.GetFileName(file)}:{frame.GetFileLineNumber()})")
                : where;
        }

        return null;
    }
}
