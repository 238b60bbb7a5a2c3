using System.Collections.Concurrent;
using System.Reflection;
using System.Runtime.CompilerServices;

namespace Boc.Diagnostics;

/// <summary>
/// What a span or a trace calls a behaviour: the method its body is, in the words of the source (<c>Bank.Transfer</c>;
/// a lambda as the member it is written in, <c>Bank.TransferAsync (lambda)</c>; a local function as
/// <c>Bank.TransferAsync.Debit</c>), and the fully qualified form for the <c>code.function.name</c> tag. Computed
/// only where something reads it (a sampled span, a test trace), and once per method.
/// </summary>
internal static class BehaviourName
{
    private static readonly ConcurrentDictionary<MethodInfo, (string Short, string Qualified)> s_names = new();

    /// <summary>The user's body of <paramref name="behaviour"/>: its body, or for a form without state the delegate Boc wrapped.</summary>
    internal static Delegate? UserBodyOf(Behaviour behaviour) => UserBodyOf(behaviour.Body, behaviour.StateAsDelegate);

    /// <summary>
    /// The user's body, given a behaviour's <paramref name="body"/> and its state if that is a delegate: the state when the
    /// body is one of Boc's own wrappers (the forms without state), else the body.
    /// </summary>
    internal static Delegate? UserBodyOf(Delegate? body, Delegate? stateAsDelegate) =>
        body is not null && stateAsDelegate is not null && body.Method.Module == typeof(BehaviourName).Module ? stateAsDelegate : body;

    /// <summary>The short and the qualified name of <paramref name="body"/>'s method.</summary>
    internal static (string Short, string Qualified) Of(Delegate body) => Of(body.Method);

    /// <summary>
    /// The short and the qualified name of <paramref name="method"/>, as the source spells it; an async method's or an
    /// async lambda's state machine (<c>MoveNext</c> of <c>&lt;TransferAsync&gt;d__3</c>) is named as the method it runs.
    /// </summary>
    internal static (string Short, string Qualified) Of(MethodBase method) =>
        method is MethodInfo info ? s_names.GetOrAdd(info, static m => Compute(m)) : Compute(method);

    private static (string Short, string Qualified) Compute(MethodBase method)
    {
        Type? type = method.DeclaringType;
        string name = method.Name;
        if (name == "MoveNext" && type is not null && type.Name.StartsWith('<') && type.IsDefined(typeof(CompilerGeneratedAttribute), inherit: false))
        {
            // An async method's (or iterator's) state machine: <Method>d__3, or <<Main>b__0_0>d for an async lambda.
            int end = type.Name.LastIndexOf(">d", StringComparison.Ordinal);
            name = end > 1 ? type.Name[1..end] : type.Name;
            type = type.DeclaringType;
        }

        // Lambdas and local functions live in compiler-generated classes (<>c, <>c__DisplayClass…) nested in the type that
        // declares them.
        while (type is not null && type.IsDefined(typeof(CompilerGeneratedAttribute), inherit: false) && type.DeclaringType is not null)
        {
            type = type.DeclaringType;
        }

        string member = Readable(name);
        string typeName = type is null ? "" : TypeName(type) + ".";
        string ns = type?.Namespace is { Length: > 0 } n ? n + "." : "";
        return (typeName + member, ns + typeName + member);
    }

    /// <summary>
    /// A compiler-generated method name as the source spells it: <c>&lt;Main&gt;b__0_1</c> (a lambda in Main) becomes
    /// "Main (lambda)", <c>&lt;Main&gt;g__Debit|0_2</c> (a local function) "Main.Debit", and top-level statements'
    /// <c>&lt;&lt;Main&gt;$&gt;b__0_0</c> "Main (lambda)".
    /// </summary>
    private static string Readable(string name)
    {
        if (!name.StartsWith('<'))
        {
            return name;
        }

        int close = name.LastIndexOf('>');
        if (close <= 1)
        {
            return name;
        }

        string outer = name[1..close].Trim('<', '>', '$');
        string rest = name[(close + 1)..];
        if (rest.StartsWith("g__", StringComparison.Ordinal))
        {
            int bar = rest.IndexOf('|', StringComparison.Ordinal);
            return $"{outer}.{(bar > 3 ? rest[3..bar] : rest[3..])}";
        }

        return $"{outer} (lambda)";
    }

    private static string TypeName(Type type)
    {
        string name = type.Name;
        int tick = name.IndexOf('`', StringComparison.Ordinal);
        if (tick > 0)
        {
            name = name[..tick];
        }

        return type.IsNested && type.DeclaringType is { } outer ? TypeName(outer) + "." + name : name;
    }
}
