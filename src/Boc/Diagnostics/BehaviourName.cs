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
    internal static Delegate? UserBodyOf(Behaviour behaviour)
    {
        Delegate? body = behaviour.Body;
        if (body is not null && body.Method.Module == typeof(BehaviourName).Module && behaviour.StateAsDelegate is { } user)
        {
            return user;
        }

        return body;
    }

    /// <summary>The short and the qualified name of <paramref name="body"/>'s method.</summary>
    internal static (string Short, string Qualified) Of(Delegate body) => s_names.GetOrAdd(body.Method, static m => Compute(m));

    private static (string Short, string Qualified) Compute(MethodInfo method)
    {
        Type? type = method.DeclaringType;

        // Lambdas and local functions live in compiler-generated classes (<>c, <>c__DisplayClass…) nested in the type that
        // declares them.
        while (type is not null && type.IsDefined(typeof(CompilerGeneratedAttribute), inherit: false) && type.DeclaringType is not null)
        {
            type = type.DeclaringType;
        }

        string member = Readable(method.Name);
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
