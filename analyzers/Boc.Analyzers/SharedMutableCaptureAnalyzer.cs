using System.Collections.Generic;
using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Operations;
using Microsoft.CodeAnalysis.Text;

namespace Boc.Analyzers;

/// <summary>
/// BOC103: a When body shares mutable state that no cown protects: a captured variable written inside the body or
/// after the spawn (for-loop variables included), a captured mutable object the spawning code keeps using, implicit
/// <c>this</c> with mutable state, a mutable static, or a mutable state argument the spawning code keeps using.
/// </summary>
[DiagnosticAnalyzer(LanguageNames.CSharp)]
public sealed class SharedMutableCaptureAnalyzer : BocAnalyzer
{
    public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics { get; } = ImmutableArray.Create(Descriptors.SharedMutableCapture);

    private protected override void Analyze(BehaviourIndex index, System.Action<Diagnostic> report)
    {
        foreach (Spawn spawn in index.Spawns)
        {
            if (spawn.Body?.Function is not { } function)
            {
                CheckStateArgument(index, spawn, null, new List<Taint>(), report);
                continue;
            }

            // Symbols holding an enclosing behaviour's state are BOC101's business.
            var enclosing = index.EnclosingBehaviours(spawn.Invocation).Select(index.TaintOf).ToList();
            var seen = new HashSet<ISymbol>(SymbolEqualityComparer.Default);
            var scan = new Scan(index, spawn, function, enclosing, seen, report);
            IReadOnlyList<RunFunction> runs = index.FunctionsRunBy(spawn);
            scan.RunBy = new List<(IOperation, ISymbol?)>
            {
                (function, function is ILocalFunctionOperation body ? body.Symbol.OriginalDefinition : null),
            };
            scan.RunBy.AddRange(runs.Select(r => (r.Function, (ISymbol?)r.Runner)));
            scan.Check(index.BodyOperations(spawn), declaredIn: function, via: null, through: null);

            // Local functions and lambdas in locals declared outside the body that the body calls run inside the behaviour
            // too: what they use is reported where the body calls them.
            foreach (RunFunction run in runs)
            {
                scan.Check(BehaviourIndex.OperationsOf(run.Function), declaredIn: run.Function, run.Via, through: run.Description);
            }

            CheckStateArgument(index, spawn, function, enclosing, report);
        }
    }

    /// <summary>One pass over the operations a behaviour runs (its body, or a local function it calls).</summary>
    private sealed class Scan
    {
        private readonly BehaviourIndex _index;
        private readonly Spawn _spawn;
        private readonly IOperation _function;
        private readonly List<Taint> _enclosing;
        private readonly HashSet<ISymbol> _seen;
        private readonly System.Action<Diagnostic> _report;
        private readonly HashSet<(IOperation, ISymbol)> _reportedVia = new();
        private bool _reportedThis;

        public Scan(BehaviourIndex index, Spawn spawn, IOperation function, List<Taint> enclosing, HashSet<ISymbol> seen, System.Action<Diagnostic> report)
        {
            _index = index;
            _spawn = spawn;
            _function = function;
            _enclosing = enclosing;
            _seen = seen;
            _report = report;
        }

        /// <summary>
        /// The body and the functions it runs in place (writes there are writes by the behaviour), each with the symbol
        /// whose references run it (null for a lambda body).
        /// </summary>
        public List<(IOperation Function, ISymbol? Runner)> RunBy { get; set; } = new();

        public void Check(IEnumerable<IOperation> operations, IOperation declaredIn, IOperation? via, string? through)
        {
            Mutability mutability = _index.Mutability;
            string suffix = through is null ? "" : $" (in {through}, which the behaviour calls)";
            foreach (IOperation operation in operations)
            {
                switch (operation)
                {
                    case ILocalReferenceOperation or IParameterReferenceOperation:
                    {
                        ISymbol symbol = Operations.ReferencedSymbol(operation)!;
                        if (Operations.IsDeclaredInside(symbol, declaredIn) || Operations.IsDeclaredInside(symbol, _function)
                            || _enclosing.Any(t => t.Get(symbol) is not null) || !_seen.Add(symbol))
                        {
                            continue;
                        }

                        if (CheckCapture(_index, _spawn, RunBy, symbol) is { } message)
                        {
                            Report(via ?? operation, message + suffix);
                        }

                        break;
                    }

                    case IInstanceReferenceOperation { ReferenceKind: InstanceReferenceKind.ContainingTypeInstance } self when !_reportedThis:
                        if (ThisAccess(self, mutability) is { } access)
                        {
                            _reportedThis = true;
                            Report(via ?? operation.Parent!,
                                $"The behaviour uses 'this' ({access}){suffix}; the object's mutable state is shared with every other thread that holds it: pass what the body needs as immutable values, or keep the state in a cown");
                        }

                        break;
                    case IFieldReferenceOperation { Field: { IsStatic: true, IsConst: false } field } when IsMutableStatic(field, mutability) && Once(via, field):
                        Report(via ?? operation,
                            $"The behaviour uses the mutable static '{field.Name}'{suffix}, shared by every thread; keep it in a cown or make it readonly and immutable");
                        break;
                    case IPropertyReferenceOperation { Property: { IsStatic: true } property } when property.Locations.Any(l => l.IsInSource)
                        && (property.SetMethod is { IsInitOnly: false } || (mutability.IsMutable(property.Type) && !InitializedShareable(property)))
                        && Once(via, property):
                        Report(via ?? operation,
                            $"The behaviour uses the mutable static '{property.Name}'{suffix}, shared by every thread; keep it in a cown or make it immutable");
                        break;
                }
            }
        }

        /// <summary>Every use in the body is reported; through a local function, once per call.</summary>
        private bool Once(IOperation? via, ISymbol symbol) => via is null || _reportedVia.Add((via, symbol));

        private void Report(IOperation at, string message) =>
            _report(Diagnostic.Create(Descriptors.SharedMutableCapture, at.Syntax.GetLocation(), message));
    }

    private static string? CheckCapture(BehaviourIndex index, Spawn spawn, List<(IOperation Function, ISymbol? Runner)> runBy, ISymbol symbol)
    {
        IOperation body = runBy[0].Function;
        List<IOperation> references = index.References.TryGetValue(symbol, out List<IOperation>? list) ? list : new List<IOperation>();
        List<IOperation> writes = references.Where(Operations.IsWrite).ToList();
        string name = symbol.Name;

        // A spawn awaited where it is made runs while the spawning code is suspended: only other functions (other
        // spawns, lambdas, local functions) can use what it captures at the same time.
        bool awaited = Waits.IsAwaitedInPlace(spawn.Invocation);
        bool RunByBehaviour(IOperation operation) => runBy.Any(r => Operations.IsInside(operation, r.Function));
        if (writes.Any(w => Operations.IsInside(w, body)) && (!awaited || SharedOutside(index, spawn, runBy, symbol, references, awaited)))
        {
            return $"'{name}' is captured and assigned inside the behaviour, which runs concurrently with the spawning code: copy it into a local declared inside the body, or keep it in a cown";
        }

        // Written by a function the body runs: a race if something else runs the function too or uses the variable.
        if (writes.Any(w => RunByBehaviour(w) && !Operations.IsInside(w, body)) && SharedOutside(index, spawn, runBy, symbol, references, awaited))
        {
            return $"'{name}' is captured and assigned by code this behaviour runs, which other code also runs or reads '{name}' from: the writes race; keep it in a cown, or give each caller its own";
        }

        if (!awaited && IsEnclosingForVariable(spawn, symbol))
        {
            return $"'{name}' is a for-loop variable: every behaviour spawned by the loop shares it and sees later iterations' values; copy it into a local declared inside the loop body";
        }

        if (writes.Any(w => !RunByBehaviour(w) && !HappensBeforeSpawn(w, spawn, symbol, awaited)))
        {
            return $"'{name}' is captured and assigned after the When (or by other code that may run at the same time), so the behaviour races with that write: copy the value into a local that is never reassigned";
        }

        ITypeSymbol? type = symbol switch { ILocalSymbol l => l.Type, IParameterSymbol p => p.Type, _ => null };
        if (!index.Mutability.IsMutable(type)
            || (symbol is ILocalSymbol local && index.LocalValues.TryGetValue(local, out List<IOperation>? values) && values.All(Mutability.IsShareableValue)))
        {
            // Immutable, or only ever a shareable instance (var rng = Random.Shared).
            return null;
        }

        if (symbol is IParameterSymbol && !awaited)
        {
            return $"'{name}' is a parameter of mutable type '{Operations.TypeName(type!)}': the caller still holds it while the behaviour runs; pass an immutable copy or keep it in a cown";
        }

        if (SharedOutside(index, spawn, runBy, symbol, references, awaited))
        {
            return $"'{name}' is a mutable '{Operations.TypeName(type!)}' that the spawning code (or another spawn) also uses: the accesses race; give the behaviour its own copy, or keep the object in a cown";
        }

        return null;
    }

    private static void CheckStateArgument(BehaviourIndex index, Spawn spawn, IOperation? function, List<Taint> enclosing,
        System.Action<Diagnostic> report)
    {
        if (spawn.StateArgument is not { } state)
        {
            return;
        }

        IOperation value = Operations.Strip(state.Value);
        Mutability mutability = index.Mutability;
        if (value is IFieldReferenceOperation { Field: { IsStatic: true, IsConst: false } field } && IsMutableStatic(field, mutability))
        {
            report(Diagnostic.Create(Descriptors.SharedMutableCapture, state.Syntax.GetLocation(),
                $"The state argument is the mutable static '{field.Name}', shared by every thread; keep it in a cown"));
            return;
        }

        // The state argument is an explicit hand-over: it is flagged only when the spawning code visibly keeps using the
        // object (a later use, a use from another function, or one object handed to every iteration of a loop).
        ISymbol? symbol = Operations.ReferencedSymbol(value);
        if (symbol is not (ILocalSymbol or IParameterSymbol) || !mutability.IsMutable(value.Type) || enclosing.Any(t => t.Get(symbol) is not null))
        {
            return;
        }

        List<IOperation> references = index.References.TryGetValue(symbol, out List<IOperation>? list) ? list : new List<IOperation>();
        if (UsedAfter(spawn, symbol, index) || InLoopWithout(spawn.Invocation, symbol) || references.Any(r => r != value
            && Operations.EnclosingFunction(r) is { } f && f != Operations.EnclosingFunction(spawn.Invocation)
            && (function is null || !Operations.IsInside(r, function))))
        {
            report(Diagnostic.Create(Descriptors.SharedMutableCapture, state.Syntax.GetLocation(),
                $"The state argument '{symbol.Name}' is a mutable '{Operations.TypeName(value.Type!)}' that the spawning code keeps using: the accesses race; hand over an object nobody else uses, or keep it in a cown"));
        }
    }

    private static bool UsedAfter(Spawn spawn, ISymbol symbol, BehaviourIndex index) =>
        index.References.TryGetValue(symbol, out List<IOperation>? references)
        && references.Any(r => Operations.ReachableAfter(spawn.Invocation, r));

    private static bool SharedOutside(BehaviourIndex index, Spawn spawn, List<(IOperation Function, ISymbol? Runner)> runBy, ISymbol symbol,
        List<IOperation> references, bool awaited)
    {
        IOperation? spawnFunction = Operations.EnclosingFunction(spawn.Invocation);
        bool UsedOutside(IOperation use) =>
            !runBy.Any(r => Operations.IsInside(use, r.Function))
            // Used from another lambda or local function (which may run at any time), or after a spawn that is not awaited.
            && (Operations.EnclosingFunction(use) != spawnFunction || (!awaited && Operations.ReachableAfter(spawn.Invocation, use)));

        foreach (IOperation reference in references)
        {
            if (reference is ILocalReferenceOperation { IsDeclaration: true })
            {
                continue;
            }

            if (UsedOutside(reference))
            {
                return true;
            }

            // A use in a function that the behaviour runs (or that is its body) is also a use by whatever else runs that
            // function: another spawn's body, or the spawning code after the spawn.
            foreach ((IOperation function, ISymbol? runner) in runBy)
            {
                if (runner is not null && Operations.IsInside(reference, function)
                    && index.References.TryGetValue(runner, out List<IOperation>? runs) && runs.Any(UsedOutside))
                {
                    return true;
                }
            }
        }

        // One object captured by a spawn in a loop is shared by all the behaviours the loop spawns (one after the other,
        // if each is awaited in place).
        return !awaited && InLoopWithout(spawn.Invocation, symbol);
    }

    private static bool IsEnclosingForVariable(Spawn spawn, ISymbol symbol)
    {
        for (IOperation? current = spawn.Invocation.Parent; current is not null; current = current.Parent)
        {
            if (current is IForLoopOperation loop && symbol is ILocalSymbol local && loop.Locals.Contains(local, SymbolEqualityComparer.Default))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>
    /// A write happens before the spawn if it cannot run after it: it is not reachable after the spawn in straight-line
    /// code, not inside a lambda or local function that may run at any time, and not in a loop (around both) that would
    /// repeat it. For a spawn awaited where it is made, any write by the spawning function itself.
    /// </summary>
    private static bool HappensBeforeSpawn(IOperation write, Spawn spawn, ISymbol symbol, bool awaited)
    {
        if (awaited)
        {
            // The spawning code is suspended until the behaviour has run: its own writes come before or after it.
            return Operations.EnclosingFunction(write) == Operations.EnclosingFunction(spawn.Invocation);
        }

        if (Operations.ReachableAfter(spawn.Invocation, write))
        {
            return false;
        }

        IOperation? writeFunction = Operations.EnclosingFunction(write);
        if (writeFunction is not null && !Operations.IsInside(spawn.Invocation, writeFunction))
        {
            return false;
        }

        return !InLoopWithout(spawn.Invocation, symbol, write);
    }

    /// <summary>Whether a loop around <paramref name="operation"/> (and <paramref name="alsoContaining"/>) lies inside the scope of <paramref name="symbol"/>.</summary>
    private static bool InLoopWithout(IOperation operation, ISymbol symbol, IOperation? alsoContaining = null)
    {
        TextSpan declaration = Operations.DeclarationSpan(symbol);
        for (IOperation? current = operation.Parent; current is not null; current = current.Parent)
        {
            if (current is IAnonymousFunctionOperation or ILocalFunctionOperation)
            {
                // A loop outside the function that holds the spawn repeats the whole function, declaration included.
                return false;
            }

            if (current is ILoopOperation loop && !loop.Syntax.Span.Contains(declaration)
                && (alsoContaining is null || loop.Syntax.Span.Contains(alsoContaining.Syntax.Span))
                && !RepeatsOnlyIfRefused(loop, operation))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>
    /// A loop that retries a <c>TryWhen</c> until it is accepted (<c>while (!runtime.TryWhen(...)) await
    /// runtime.WaitForRoomAsync();</c>) spawns at most one behaviour: it goes round again only when the spawn was
    /// refused, and a refused spawn runs nothing. Its condition is the refusal (<c>!TryWhen(...)</c>,
    /// <c>TryWhen(...) == false</c>, <c>TryWhen(...) is false</c>), alone or as an operand of <c>&amp;&amp;</c>.
    /// </summary>
    private static bool RepeatsOnlyIfRefused(ILoopOperation loop, IOperation spawn)
    {
        IOperation? condition = loop switch
        {
            IWhileLoopOperation { ConditionIsUntil: false } whileLoop => whileLoop.Condition,
            IForLoopOperation forLoop => forLoop.Condition,
            _ => null,
        };
        return condition is not null && IsRefusal(condition, spawn);
    }

    private static bool IsRefusal(IOperation condition, IOperation spawn)
    {
        switch (Operations.Strip(condition))
        {
            case IUnaryOperation { OperatorKind: UnaryOperatorKind.Not } not:
                return Operations.Strip(not.Operand) == spawn;
            case IBinaryOperation { OperatorKind: BinaryOperatorKind.ConditionalAnd } and:
                return IsRefusal(and.LeftOperand, spawn) || IsRefusal(and.RightOperand, spawn);
            case IBinaryOperation { OperatorKind: BinaryOperatorKind.Equals or BinaryOperatorKind.NotEquals } comparison:
                bool refusedWhen = comparison.OperatorKind == BinaryOperatorKind.NotEquals;
                return (Operations.Strip(comparison.LeftOperand) == spawn && IsConstant(comparison.RightOperand, refusedWhen))
                    || (Operations.Strip(comparison.RightOperand) == spawn && IsConstant(comparison.LeftOperand, refusedWhen));
            case IIsPatternOperation { Pattern: IConstantPatternOperation { Value: { } constant } } pattern:
                return Operations.Strip(pattern.Value) == spawn && IsConstant(constant, false);
            default:
                return false;
        }
    }

    private static bool IsConstant(IOperation value, bool expected) =>
        value.ConstantValue is { HasValue: true, Value: bool constant } && constant == expected;

    private static string? ThisAccess(IInstanceReferenceOperation self, Mutability mutability)
    {
        ITypeSymbol? type = self.Type;
        switch (self.Parent)
        {
            case IFieldReferenceOperation { Field: { } field }:
                return !field.IsReadOnly ? $"the mutable field '{field.Name}'"
                    : mutability.IsMutable(field.Type) ? $"the field '{field.Name}' of mutable type" : null;
            case IPropertyReferenceOperation { Property: { } property }:
                if (property.SetMethod is { IsInitOnly: false })
                {
                    return $"the settable property '{property.Name}'";
                }

                bool isAuto = type is not null && type.GetMembers().OfType<IFieldSymbol>().Any(f => SymbolEqualityComparer.Default.Equals(f.AssociatedSymbol, property));
                if (isAuto)
                {
                    return mutability.IsMutable(property.Type) ? $"the property '{property.Name}' of mutable type" : null;
                }

                return mutability.IsMutable(type) ? $"the property '{property.Name}' of an object with mutable state" : null;
            case IInvocationOperation { TargetMethod: { } method }:
                return mutability.IsMutable(type) ? $"the method '{method.Name}' of an object with mutable state" : null;
            default:
                return mutability.IsMutable(type) ? "an object with mutable state" : null;
        }
    }

    private static bool IsMutableStatic(IFieldSymbol field, Mutability mutability)
    {
        if (field.GetAttributes().Any(a => a.AttributeClass?.Name == "ThreadStaticAttribute"))
        {
            // Each thread has its own copy: nothing is shared.
            return false;
        }

        return !field.IsReadOnly || (mutability.IsMutable(field.Type) && !InitializedShareable(field));
    }

    /// <summary>
    /// A readonly static field or get-only static property initialised with a known shareable instance
    /// (<c>static readonly Random s_random = Random.Shared;</c>). Read from the declaration's syntax: the member lives
    /// outside the block under analysis, so no operation tree of it is at hand.
    /// </summary>
    private static bool InitializedShareable(ISymbol member)
    {
        foreach (SyntaxReference reference in member.DeclaringSyntaxReferences)
        {
            ExpressionSyntax? value = reference.GetSyntax() switch
            {
                VariableDeclaratorSyntax declarator => declarator.Initializer?.Value,
                PropertyDeclarationSyntax { AccessorList: null, ExpressionBody: { } body } => body.Expression,
                PropertyDeclarationSyntax { Initializer: { } initializer } => initializer.Value,
                _ => null,
            };
            string? named = value switch
            {
                MemberAccessExpressionSyntax access => access.ToString(),
                InvocationExpressionSyntax { Expression: MemberAccessExpressionSyntax access } => access.ToString(),
                _ => null,
            };
            ITypeSymbol? type = member switch { IFieldSymbol f => f.Type, IPropertySymbol p => p.Type, _ => null };
            if (named is not null && type is INamedTypeSymbol declared && KnownTypes.ShareableMembers.Any(id => Matches(id, declared, named)))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Whether <paramref name="written"/> (<c>Random.Shared</c>, <c>System.Random.Shared</c>) names the member with documentation ID <paramref name="id"/> of <paramref name="type"/>.</summary>
    private static bool Matches(string id, INamedTypeSymbol type, string written)
    {
        string typeName = type.ToDisplayString();
        int paren = id.IndexOf('(');
        string memberId = (paren < 0 ? id : id.Substring(0, paren)).Substring(2);
        if (!memberId.StartsWith(typeName + ".", System.StringComparison.Ordinal))
        {
            return false;
        }

        string member = memberId.Substring(typeName.Length + 1);
        string simple = written.Replace("global::", "");
        return simple == typeName + "." + member || simple == type.Name + "." + member;
    }
}
