using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

/// <summary>
/// A function declared outside a behaviour body that the body runs in place: a local function it calls (or passes as a
/// method group to code that runs it before returning), or a lambda held in a local that it invokes or passes so
/// (<c>Func&lt;int&gt; next = () =&gt; ++seq;</c> then <c>next()</c>). What the function does, the behaviour does.
/// </summary>
internal sealed class RunFunction
{
    public RunFunction(IOperation function, ISymbol runner, IOperation via)
    {
        Function = function;
        Runner = runner;
        Via = via;
    }

    /// <summary>The <see cref="ILocalFunctionOperation"/> or <see cref="IAnonymousFunctionOperation"/>.</summary>
    public IOperation Function { get; }

    /// <summary>The symbol whose references run the function: the local function, or the local that holds the lambda.</summary>
    public ISymbol Runner { get; }

    /// <summary>The operation in the body through which the function is reached (where a finding inside it is reported).</summary>
    public IOperation Via { get; }

    public bool IsLambda => Function is IAnonymousFunctionOperation;

    /// <summary>How messages name it: <c>local function 'Note'</c>, <c>the lambda held by 'next'</c>.</summary>
    public string Description => IsLambda ? $"the lambda held by '{Runner.Name}'" : $"local function '{Runner.Name}'";
}
