using System.Collections.Generic;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Operations;
using Microsoft.CodeAnalysis.Text;

namespace Boc.Analyzers;

/// <summary>A scope a body waits for: where it begins, where the body waits for its end, and the code whose spawns are its members.</summary>
internal sealed class ScopeWait
{
    public ScopeWait(IInvocationOperation begin, Wait wait, TextSpan block)
    {
        Begin = begin;
        Wait = wait;
        Block = block;
    }

    /// <summary>The <c>BeginScope(...)</c> call.</summary>
    public IInvocationOperation Begin { get; }

    /// <summary>Where the body waits for the scope's end (the <c>BeginScope</c> of an <c>await using</c>, or the awaited finish).</summary>
    public Wait Wait { get; }

    /// <summary>The source between the scope's begin and its end: spawns the body makes there are members.</summary>
    public TextSpan Block { get; }
}

/// <summary>
/// Scopes (<c>BeginScope</c>) that a behaviour body waits for, and their members. A body waits for a scope's end with
/// <c>await using</c> (a statement, or a declaration: to the end of its block), or by awaiting or blocking on its
/// <c>FinishAsync()</c> or <c>DisposeAsync()</c> (see <see cref="Waits"/>), or by an <c>await using</c> of the local that
/// holds it. The members are the spawns the body itself makes between the begin and that end, and, at any depth, the
/// spawns their bodies make. Spawns in lambdas or methods the body calls are not followed.
/// </summary>
internal static class ScopeWaits
{
    /// <summary>Whether <paramref name="invocation"/> is <c>BeginScope</c> on <c>BocRuntime</c> or <c>Behaviours</c>.</summary>
    public static bool IsBeginScope(IInvocationOperation invocation, BocTypes types) =>
        invocation.TargetMethod.Name == "BeginScope" && invocation.TargetMethod.ContainingType is { } type
        && (SymbolEqualityComparer.Default.Equals(type, types.Runtime) || SymbolEqualityComparer.Default.Equals(type, types.Behaviours));

    /// <summary>The scopes <paramref name="spawn"/>'s body (<paramref name="function"/>) begins and waits for.</summary>
    public static IEnumerable<ScopeWait> Of(BehaviourIndex index, Spawn spawn, IOperation function)
    {
        // Most blocks begin no scope: then no body has one to wait for, and its operations need no second walk.
        if (!index.CallsBeginScope)
        {
            yield break;
        }

        foreach (IOperation operation in index.BodyOperations(spawn))
        {
            if (operation is not IInvocationOperation begin || !IsBeginScope(begin, index.Types) || Operations.EnclosingFunction(begin) != function)
            {
                continue;
            }

            IOperation top = begin;
            while (top.Parent is IConversionOperation)
            {
                top = top.Parent;
            }

            switch (top.Parent)
            {
                case IUsingOperation { IsAsynchronous: true } statement:
                    yield return new ScopeWait(begin, new Wait(begin, "awaits"), TextSpan.FromBounds(begin.Syntax.Span.End, statement.Syntax.Span.End));
                    break;
                case IVariableInitializerOperation { Parent: IVariableDeclaratorOperation declarator }:
                    if (AwaitUsingEnd(declarator) is { } end)
                    {
                        yield return new ScopeWait(begin, new Wait(begin, "awaits"), TextSpan.FromBounds(begin.Syntax.Span.End, end.Span.End));
                    }
                    else if (EndOfLocal(declarator.Symbol, function, index) is { } ending)
                    {
                        yield return new ScopeWait(begin, ending.Wait, TextSpan.FromBounds(begin.Syntax.Span.End, ending.Span.End));
                    }

                    break;
            }
        }
    }

    /// <summary>
    /// The members of <paramref name="scope"/> that <paramref name="spawn"/>'s body makes, each with whether the body made
    /// it itself (false: a member's body did).
    /// </summary>
    public static IEnumerable<(Spawn Member, bool Direct)> Members(BehaviourIndex index, Spawn spawn, IOperation function, TextSpan block)
    {
        foreach (Spawn candidate in index.Spawns)
        {
            if (candidate != spawn && block.Contains(candidate.Invocation.Syntax.Span)
                && candidate.Invocation.Syntax.SyntaxTree == function.Syntax.SyntaxTree && MemberDepth(index, spawn, function, candidate) is { } depth)
            {
                yield return (candidate, depth == 0);
            }
        }
    }

    /// <summary>0 for a spawn the body makes, n for one made by the body of a member n levels down, null for neither.</summary>
    private static int? MemberDepth(BehaviourIndex index, Spawn spawn, IOperation function, Spawn candidate)
    {
        int depth = 0;
        for (Spawn current = candidate; ; depth++)
        {
            IOperation? made = Operations.EnclosingFunction(current.Invocation);
            if (made == function)
            {
                return depth;
            }

            if (made is null || index.SpawnOfFunction(made) is not { } owner || owner == spawn)
            {
                return null;
            }

            current = owner;
        }
    }

    /// <summary>
    /// Where the scope a declarator holds ends, if the declaration is an <c>await using</c>: the end of the block of a
    /// declaration (<c>await using var scope = …;</c>), or of the statement (<c>await using (var scope = …) { … }</c>).
    /// </summary>
    public static SyntaxNode? AwaitUsingEnd(IVariableDeclaratorOperation declarator)
    {
        IOperation? up = declarator.Parent;
        while (up is IVariableDeclarationOperation or IVariableDeclarationGroupOperation)
        {
            up = up.Parent;
        }

        return up switch
        {
            IUsingDeclarationOperation { IsAsynchronous: true } declaration => declaration.Syntax.Parent ?? declaration.Syntax,
            IUsingOperation { IsAsynchronous: true } statement => statement.Syntax,
            _ => null,
        };
    }

    /// <summary>
    /// Where the body waits for the end of the scope in <paramref name="local"/>: an awaited (or blocked-on)
    /// <c>FinishAsync()</c>/<c>DisposeAsync()</c> on it, or an <c>await using</c> of it.
    /// </summary>
    private static (Wait Wait, TextSpan Span)? EndOfLocal(ILocalSymbol local, IOperation function, BehaviourIndex index)
    {
        if (!index.References.TryGetValue(local, out List<IOperation>? references))
        {
            return null;
        }

        foreach (IOperation reference in references)
        {
            if (Operations.EnclosingFunction(reference) != function)
            {
                continue;
            }

            IOperation top = reference;
            while (top.Parent is IConversionOperation)
            {
                top = top.Parent;
            }

            switch (top.Parent)
            {
                case IInvocationOperation { TargetMethod.Name: "FinishAsync" or "DisposeAsync" } end when end.Instance == top
                    && Waits.WaitOn(end, function, index) is { } wait:
                    return (wait, end.Syntax.Span);
                case IUsingOperation { IsAsynchronous: true } statement:
                    return (new Wait(reference, "awaits"), statement.Syntax.Span);
            }
        }

        return null;
    }
}
