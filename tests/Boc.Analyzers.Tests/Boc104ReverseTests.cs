using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// BOC104 and <c>Reverse</c> (issue 47): on .NET 10 <c>array.Reverse()</c> binds to LINQ's lazy
/// <c>Enumerable.Reverse&lt;T&gt;(T[])</c>, which writes nothing; the in-place reversals (<c>Array.Reverse</c>,
/// <c>List&lt;T&gt;.Reverse()</c>, <c>Span&lt;T&gt;.Reverse()</c>) still write.
/// </summary>
public class Boc104ReverseTests
{
    private const string Shelf = """

        sealed class Shelf
        {
            public string[] Items = ["a", "b"];
            public List<string> Names { get; } = new();
        }
        """;

    [Fact]
    public void An_array_receiver_binds_to_linq_reverse_on_this_runtime()
    {
        // The premise of the tests below: if this runtime's LINQ had no Reverse for arrays, the call would bind to the
        // Enumerable.Reverse of IEnumerable<T>, and the negative tests would pass without the fix.
        CSharpCompilation compilation = Compile([Usings + "static class P { static object M(string[] a) => a.Reverse(); }"]);
        SyntaxTree tree = compilation.SyntaxTrees[0];
        InvocationExpressionSyntax call = tree.GetRoot().DescendantNodes().OfType<InvocationExpressionSyntax>().Single();
        var method = (IMethodSymbol)compilation.GetSemanticModel(tree).GetSymbolInfo(call).Symbol!;
        Assert.Equal("System.Linq.Enumerable", method.ContainingType.ToDisplayString());
        Assert.Equal(TypeKind.Array, method.ReducedFrom!.Parameters[0].Type.TypeKind);
    }

    [Fact]
    public Task Does_not_flag_linq_reverse_of_an_array_under_read() => VerifyAsync("""
        class C
        {
            void M(Cown<Shelf> c) => When(Read(c), s =>
            {
                var reversed = s.Items.Reverse().ToArray();
                foreach (var item in s.Items.Reverse()) Console.WriteLine(item);
                string last = s.Items.Reverse().First();
                var again = Enumerable.Reverse(s.Items).Count();
                var names = s.Names.AsEnumerable().Reverse().ToList();
                var lengths = s.Items.Select(x => x.Length).Reverse().Sum();
            });
        }
        """ + Shelf);

    [Fact]
    public Task Flags_in_place_reversals_under_read() => VerifyAsync("""
        class C
        {
            void M(Cown<Shelf> c) => When(Read(c), s =>
            {
                {|BOC104:Array.Reverse(s.Items)|};
                {|BOC104:s.Names.Reverse()|};
                {|BOC104:s.Items.AsSpan().Reverse()|};
                {|BOC104:MemoryExtensions.Reverse(s.Items.AsSpan(0, 1))|};
                {|BOC104:s.Names.Reverse(0, 1)|};
            });
        }
        """ + Shelf);

    [Fact]
    public Task Does_not_flag_in_place_reversals_of_copies() => VerifyAsync("""
        class C
        {
            void M(Cown<Shelf> c) => When(Read(c), s =>
            {
                var copy = s.Items.ToArray();
                Array.Reverse(copy);
                var names = s.Names.ToList();
                names.Reverse();
                copy.AsSpan().Reverse();
            });
        }
        """ + Shelf);
}
