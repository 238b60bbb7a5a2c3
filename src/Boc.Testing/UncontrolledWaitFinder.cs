using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text;

namespace Boc.Testing;

/// <summary>
/// When a run is stuck, finds what a suspended async method is waiting for: it follows the chain of awaits from the
/// scenario's task or a suspended body's task (each async method's task is its state machine, whose awaiter field holds
/// the awaited task) down to the innermost awaited thing, and says whether that thing is outside the run's control: a
/// <c>Task.Delay</c> on the system clock, a task queued to another scheduler (<c>Task.Run</c>: the thread pool), or an
/// I/O operation (a <c>System.Net</c> or <c>System.IO</c> value-task source). Only then is the run's stall an
/// uncontrolled wait rather than a deadlock: a task completed by code (a <c>TaskCompletionSource</c>), a Boc awaitable
/// or anything not recognised is left to be reported as a deadlock, as before.
/// </summary>
/// <remarks>
/// This reads private fields of the compiler's state machines (<c>&lt;&gt;u__N</c>) and of the awaiters and tasks of
/// the .NET libraries (<c>m_task</c>, <c>_value</c>, <c>_obj</c>, <c>m_action</c>, <c>m_taskScheduler</c>): fields that
/// have kept their names since .NET Core 2.1, but are not a contract. If one is missing, the wait is not recognised and
/// the run is reported as a deadlock, as before; the tests of each kind of uncontrolled wait run on .NET 8 and .NET 10.
/// It runs only when a run is already stuck, so it costs nothing otherwise.
/// </remarks>
internal static class UncontrolledWaitFinder
{
    private const BindingFlags Instance = BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic;
    private const int MaxDepth = 64;

    /// <summary>
    /// Describes the uncontrolled wait at the end of <paramref name="root"/>'s chain of awaits (the methods on the way,
    /// outermost first, then what the innermost one awaits), or null if there is none.
    /// </summary>
    public static string? Find(Task root, TaskScheduler controlled)
    {
        var methods = new List<string>();
        object current = root;
        for (int depth = 0; depth < MaxDepth; depth++)
        {
            if (current is Task { IsCompleted: true })
            {
                return null;
            }

            if (StateMachineOf(current) is { } machine)
            {
                Type type = machine.GetType();
                if (type.Assembly == typeof(BocRuntime).Assembly)
                {
                    // The runtime's own waits (quiescence, scopes, results) complete when behaviours run: controlled.
                    return null;
                }

                methods.Add(MethodName(type));
                if (AwaitedBy(machine) is not { } awaited)
                {
                    return null;
                }

                current = awaited;
                continue;
            }

            string? what = Classify(current, controlled);
            return what is null ? null : Describe(methods, what);
        }

        return null;
    }

    private static string? Classify(object awaited, TaskScheduler controlled)
    {
        Type type = awaited.GetType();
        if (awaited is Task task)
        {
            if (type.DeclaringType == typeof(Task) && type.Name.StartsWith("DelayPromise", StringComparison.Ordinal))
            {
                // A delay on the run's TimeProvider has a virtual timer, which a stuck run would have fired.
                return "Task.Delay on the system clock (use Task.Delay(delay, rt.TimeProvider))";
            }

            // ValueTask.AsTask of a value-task source (Socket.ReceiveAsync(byte[], …) returns one): look at the source.
            if (type.Name.StartsWith("ValueTaskSourceAsTask", StringComparison.Ordinal) && Field(type, "_source")?.GetValue(task) is { } source)
            {
                return Classify(source, controlled);
            }

            if (type.Name.StartsWith("UnwrapPromise", StringComparison.Ordinal))
            {
                return "a task started with Task.Run on the thread pool";
            }

            if (Field(typeof(Task), "m_action")?.GetValue(task) is not null
                && Field(typeof(Task), "m_taskScheduler")?.GetValue(task) is TaskScheduler scheduler
                && !ReferenceEquals(scheduler, controlled))
            {
                return ReferenceEquals(scheduler, TaskScheduler.Default)
                    ? "a task started with Task.Run on the thread pool (queue it to rt.Scheduler, or spawn a behaviour)"
                    : $"a task queued to another scheduler ({scheduler.GetType().Name})";
            }

            return null;
        }

        // A value-task source: sockets, pipes, files.
        return type.Namespace is { } ns && (ns.StartsWith("System.Net", StringComparison.Ordinal) || ns.StartsWith("System.IO", StringComparison.Ordinal))
            ? $"I/O ({type.FullName})"
            : null;
    }

    /// <summary>The state machine of an async method's task (its <c>AsyncStateMachineBox</c>), or null.</summary>
    private static object? StateMachineOf(object awaited) =>
        awaited is Task && awaited.GetType().Name.StartsWith("AsyncStateMachineBox", StringComparison.Ordinal)
            ? awaited.GetType().GetField("StateMachine", Instance)?.GetValue(awaited) as IAsyncStateMachine
            : null;

    /// <summary>What a suspended state machine awaits: the task or value-task source in its one set awaiter field.</summary>
    private static object? AwaitedBy(object machine)
    {
        foreach (FieldInfo field in machine.GetType().GetFields(Instance))
        {
            if (!field.Name.StartsWith("<>u__", StringComparison.Ordinal) || field.GetValue(machine) is not { } awaiter)
            {
                continue;
            }

            if (Unwrap(awaiter) is { } awaited)
            {
                return awaited;
            }
        }

        return null;
    }

    /// <summary>The task (or value-task source) inside an awaiter; null for an empty one or an awaiter not recognised.</summary>
    private static object? Unwrap(object awaiter)
    {
        Type type = awaiter.GetType();
        if (Field(type, "m_task")?.GetValue(awaiter) is Task task)
        {
            return task;
        }

        // ValueTaskAwaiter, ConfiguredValueTaskAwaiter: a ValueTask, whose _obj is a Task or a value-task source.
        if (Field(type, "_value")?.GetValue(awaiter) is { } valueTask && Field(valueTask.GetType(), "_obj")?.GetValue(valueTask) is { } inner)
        {
            return inner;
        }

        // Another awaiter (a Boc awaitable's, a library's): if it holds a task, follow it.
        foreach (FieldInfo field in type.GetFields(Instance))
        {
            if (typeof(Task).IsAssignableFrom(field.FieldType) && field.GetValue(awaiter) is Task held)
            {
                return held;
            }
        }

        return null;
    }

    private static FieldInfo? Field(Type type, string name) => type.GetField(name, Instance);

    /// <summary>The method an async state machine belongs to: <c>Type.Method</c>, or "a lambda in Type.Method".</summary>
    private static string MethodName(Type machine)
    {
        string name = machine.Name;
        Type? owner = machine.DeclaringType;
        while (owner is not null && owner.Name.StartsWith('<'))
        {
            owner = owner.DeclaringType;   // a closure class (<>c, <>c__DisplayClass0_0)
        }

        string ownerName = owner?.Name ?? "?";
        // <Method>d__3, or <<Method>b__0_0>d for a lambda.
        if (name.StartsWith("<<", StringComparison.Ordinal) && name.IndexOf('>', 2) is int end and > 2)
        {
            return $"a lambda in {ownerName}.{name[2..end]}";
        }

        return name.StartsWith('<') && name.IndexOf('>', 1) is int close and > 1 ? $"{ownerName}.{name[1..close]}" : $"{ownerName}.{name}";
    }

    private static string Describe(List<string> methods, string what)
    {
        var text = new StringBuilder();
        for (int i = 0; i < methods.Count; i++)
        {
            text.Append(i == 0 ? string.Empty : " → ").Append(methods[i]);
        }

        return text.Append(methods.Count == 0 ? "awaits " : " awaits ").Append(what).ToString();
    }
}
