using System.Reflection;
using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// The analyzer and code fix are built against Roslyn 4.8, the compiler of the oldest .NET 8 SDKs, so that every SDK
/// that builds for net8.0 loads them (a compiler older than an analyzer's Roslyn reference skips the analyzer with
/// CS8032). The tests run them on a newer Roslyn.
/// </summary>
public class AnalyzerRoslynVersionTests
{
    private static readonly Version Oldest = new(4, 8, 0, 0);

    [Theory]
    [InlineData(typeof(NonAcquiredStateAnalyzer))]
    [InlineData(typeof(Boc.Analyzers.CodeFixes.AcquireOuterCownCodeFix))]
    public void Analyzer_assemblies_reference_no_Roslyn_newer_than_the_oldest_net8_SDK(Type type)
    {
        AssemblyName[] roslyn = type.Assembly.GetReferencedAssemblies().Where(a => a.Name!.StartsWith("Microsoft.CodeAnalysis", StringComparison.Ordinal)).ToArray();
        Assert.NotEmpty(roslyn);
        Assert.All(roslyn, a => Assert.True(a.Version <= Oldest, $"{type.Assembly.GetName().Name} references {a.Name} {a.Version}, newer than {Oldest}"));
    }

    [Fact]
    public Task Collection_expression_of_read_only_cowns_is_a_read_only_set_although_built_without_its_operation_type() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c1, Cown<Account> c2)
            {
                When([Read(c1), Read(c2)], all => {|BOC104:all[0].Balance|}++);
            }
        }
        """);
}
