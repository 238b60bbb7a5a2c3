using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.Operations;
using Microsoft.CodeAnalysis.Text;

namespace Boc.Analyzers;

/// <summary>Small queries over IOperation trees shared by the rules.</summary>
internal static class Operations
{
    /// <summary>
    /// The operation under conversions and query syntax (<c>from x in s.Log select x</c> is the calls it translates to:
    /// whatever holds for <c>s.Log.Select(x =&gt; x)</c> holds for it).
    /// </summary>
    public static IOperation Strip(IOperation operation)
    {
        IOperation current = operation;
        while (true)
        {
            switch (current)
            {
                case IConversionOperation conversion:
                    current = conversion.Operand;
                    continue;
                case ITranslatedQueryOperation query:
                    current = query.Operation;
                    continue;
                default:
                    return current;
            }
        }
    }

    /// <summary>The symbol a local, parameter, local-function or method-group operation refers to.</summary>
    public static ISymbol? ReferencedSymbol(IOperation operation) => operation switch
    {
        ILocalReferenceOperation local => local.Local,
        IParameterReferenceOperation parameter => parameter.Parameter,
        IMethodReferenceOperation { Method.MethodKind: MethodKind.LocalFunction } method => method.Method.OriginalDefinition,
        IInvocationOperation { TargetMethod.MethodKind: MethodKind.LocalFunction } call => call.TargetMethod.OriginalDefinition,
        _ => null,
    };

    // Types in messages as a reader writes them: no namespaces, keywords for special types, and no nullable mark (a var
    // local's type is annotated nullable, which says nothing about the object).
    private static readonly SymbolDisplayFormat s_typeFormat = new(
        typeQualificationStyle: SymbolDisplayTypeQualificationStyle.NameAndContainingTypes,
        genericsOptions: SymbolDisplayGenericsOptions.IncludeTypeParameters,
        miscellaneousOptions: SymbolDisplayMiscellaneousOptions.UseSpecialTypes | SymbolDisplayMiscellaneousOptions.EscapeKeywordIdentifiers);

    /// <summary>A type's name as messages print it (<c>List&lt;Account&gt;</c>, not <c>System.Collections.Generic.List&lt;Account&gt;?</c>).</summary>
    public static string TypeName(ITypeSymbol type) => type.ToDisplayString(s_typeFormat);

    private const int MaxQuoteLength = 80;

    /// <summary>
    /// Source code as a message quotes it: on one line (MSBuild prints only a message's first line) and, past
    /// <see cref="MaxQuoteLength"/> characters, shortened at a space with an ellipsis.
    /// </summary>
    public static string Quote(SyntaxNode node) => Quote(node.ToString());

    public static string Quote(string code)
    {
        var text = new System.Text.StringBuilder(code.Length);
        bool space = false;
        foreach (char c in code)
        {
            if (char.IsWhiteSpace(c))
            {
                space = text.Length > 0;
                continue;
            }

            if (space)
            {
                text.Append(' ');
                space = false;
            }

            text.Append(c);
        }

        if (text.Length <= MaxQuoteLength)
        {
            return text.ToString();
        }

        string whole = text.ToString();
        int cut = whole.LastIndexOf(' ', MaxQuoteLength);
        return (cut > 0 ? whole.Substring(0, cut) : whole.Substring(0, MaxQuoteLength)) + " \u2026";
    }

    public static TextSpan DeclarationSpan(ISymbol symbol) =>
        symbol.DeclaringSyntaxReferences.FirstOrDefault()?.Span ?? default;

    /// <summary>
    /// Whether a local, parameter or local function is declared inside <paramref name="function"/> (a lambda or local
    /// function operation), by its chain of containing symbols: asking a symbol for its declaring syntax is far dearer,
    /// and this is asked for every reference in every body.
    /// </summary>
    public static bool IsDeclaredInside(ISymbol symbol, IOperation function)
    {
        IMethodSymbol? owner = function switch
        {
            IAnonymousFunctionOperation lambda => lambda.Symbol,
            ILocalFunctionOperation local => local.Symbol,
            _ => null,
        };
        if (owner is null)
        {
            return IsDeclaredInsideBySyntax(symbol, function);
        }

        for (ISymbol? container = symbol.ContainingSymbol; container is IMethodSymbol { MethodKind: MethodKind.AnonymousFunction or MethodKind.LocalFunction } method;
            container = container.ContainingSymbol)
        {
            if (SymbolEqualityComparer.Default.Equals(method, owner) || SymbolEqualityComparer.Default.Equals(method.OriginalDefinition, owner))
            {
                return true;
            }
        }

        return false;
    }

    private static bool IsDeclaredInsideBySyntax(ISymbol symbol, IOperation function)
    {
        // The range variables of query syntax are parameters of compiler-made lambdas and have no declaring syntax of
        // their own: they are declared where their lambda is, inside the query.
        SyntaxReference? reference = symbol.DeclaringSyntaxReferences.FirstOrDefault()
            ?? (symbol is IParameterSymbol { ContainingSymbol: IMethodSymbol owner } ? owner.DeclaringSyntaxReferences.FirstOrDefault() : null);
        return reference is not null && reference.SyntaxTree == function.Syntax.SyntaxTree
            && function.Syntax.Span.Contains(reference.Span);
    }

    public static bool IsInside(IOperation operation, IOperation container) =>
        operation.Syntax.SyntaxTree == container.Syntax.SyntaxTree && container.Syntax.Span.Contains(operation.Syntax.Span);

    /// <summary>
    /// The name of the API that runs <paramref name="operation"/> (a lambda or delegate argument) after the call returns,
    /// if it is an argument of one (see <see cref="RunsLater"/>): such code does not run inside the behaviour.
    /// </summary>
    public static string? OffloadingApi(IOperation operation)
    {
        IOperation? current = operation.Parent;
        while (current is IDelegateCreationOperation or IConversionOperation)
        {
            current = current.Parent;
        }

        if (current is not IArgumentOperation argument)
        {
            return null;
        }

        return argument.Parent switch
        {
            IInvocationOperation invocation => RunsLater.Api(invocation.TargetMethod, argument.Parameter),
            IObjectCreationOperation { Constructor: { } constructor } => RunsLater.Api(constructor, argument.Parameter),
            _ => null,
        };
    }

    public static bool IsOffloaded(IOperation operation) => OffloadingApi(operation) is not null;

    /// <summary>Whether <paramref name="reference"/> (a local or parameter reference) is written by its parent.</summary>
    public static bool IsWrite(IOperation reference)
    {
        IOperation? parent = reference.Parent;
        switch (parent)
        {
            case IAssignmentOperation assignment when assignment.Target == reference:
            case IIncrementOrDecrementOperation increment when increment.Target == reference:
                return true;
            case IArgumentOperation argument when argument.Value == reference:
                return argument.Parameter?.RefKind is RefKind.Ref or RefKind.Out;
            case ITupleOperation:
                // Deconstruction targets are tuples of references.
                for (IOperation? up = parent; up is ITupleOperation; up = up.Parent)
                {
                    if (up.Parent is IDeconstructionAssignmentOperation deconstruction && deconstruction.Target == up)
                    {
                        return true;
                    }
                }

                return false;
            case IMemberReferenceOperation member when reference.Type?.IsValueType == true && member.Parent is IAssignmentOperation a
                && a.Target == member:
                // Writing a field of a struct variable writes the variable.
                return true;
            default:
                return false;
        }
    }

    /// <summary>The innermost lambda or local function containing <paramref name="operation"/>.</summary>
    public static IOperation? EnclosingFunction(IOperation operation)
    {
        for (IOperation? current = operation.Parent; current is not null; current = current.Parent)
        {
            if (current is IAnonymousFunctionOperation or ILocalFunctionOperation)
            {
                return current;
            }
        }

        return null;
    }

    /// <summary>
    /// Whether <paramref name="later"/> can run after <paramref name="spawn"/> in the same function, without a loop:
    /// it follows in an enclosing block, and no <c>return</c> or <c>throw</c> comes between. Code in the other branch
    /// of an <c>if</c>, or after a <c>return</c>, cannot. Loops are handled by the callers.
    /// </summary>
    public static bool ReachableAfter(IOperation spawn, IOperation later)
    {
        SyntaxNode target = later.Syntax;
        if (target.SyntaxTree != spawn.Syntax.SyntaxTree || target.SpanStart < spawn.Syntax.Span.End)
        {
            return false;
        }

        for (SyntaxNode node = spawn.Syntax; node.Parent is { } parent; node = parent)
        {
            if (parent is AnonymousFunctionExpressionSyntax or LocalFunctionStatementSyntax or BaseMethodDeclarationSyntax
                or AccessorDeclarationSyntax or CompilationUnitSyntax)
            {
                // Top-level statements: the compilation unit's statements run in order.
                return parent is CompilationUnitSyntax && parent.Span.Contains(target.Span);
            }

            SyntaxList<StatementSyntax> statements = parent switch
            {
                BlockSyntax block => block.Statements,
                SwitchSectionSyntax section => section.Statements,
                _ => default,
            };
            int at = node is StatementSyntax statement ? statements.IndexOf(statement) : -1;
            if (at < 0)
            {
                continue;
            }

            for (int i = at + 1; i < statements.Count; i++)
            {
                if (statements[i].Span.Contains(target.Span))
                {
                    return true;
                }

                if (statements[i] is ReturnStatementSyntax or ThrowStatementSyntax
                    || statements[i] is ExpressionStatementSyntax { Expression: ThrowExpressionSyntax })
                {
                    return false;
                }

                if (statements[i] is BreakStatementSyntax or ContinueStatementSyntax or GotoStatementSyntax)
                {
                    break;
                }
            }
        }

        return false;
    }
}
