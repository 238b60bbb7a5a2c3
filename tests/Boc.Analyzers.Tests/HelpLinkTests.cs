using System.Text.RegularExpressions;
using Microsoft.CodeAnalysis;

namespace Boc.Analyzers.Tests;

/// <summary>
/// Help links are absolute, come from the one property Directory.Build.props sets (so publishing the repository changes
/// one line, see docs/releasing.md), and name existing pages; the package readmes point into the same repository.
/// </summary>
public partial class HelpLinkTests
{
    [Fact]
    public void The_help_link_base_is_the_one_Directory_Build_props_sets()
    {
        Assert.Equal(DeclaredHelpLinkBase(), Descriptors.HelpLinkBase);
        Assert.EndsWith("/docs/analyzers/", Descriptors.HelpLinkBase, StringComparison.Ordinal);
    }

    [Fact]
    public void No_analyzer_source_names_an_address_of_its_own()
    {
        // One place: an address written into the analyzer's code would not move when the property does.
        string analyzers = Path.Combine(InRepoCodeTests.RepoRoot(), "analyzers");
        var sources = Directory.EnumerateFiles(analyzers, "*.cs", SearchOption.AllDirectories)
            .Where(f => !f.Split(Path.DirectorySeparatorChar).Any(p => p is "bin" or "obj"))
            .ToList();
        Assert.NotEmpty(sources);
        foreach (string source in sources)
        {
            Assert.DoesNotMatch(Address(), File.ReadAllText(source));
        }
    }

    [Fact]
    public void Every_rule_links_to_its_page_by_an_absolute_url()
    {
        var descriptors = AnalyzerHarness.AllAnalyzers.SelectMany(a => a.SupportedDiagnostics).ToList();
        Assert.NotEmpty(descriptors);
        foreach (DiagnosticDescriptor descriptor in descriptors)
        {
            Assert.True(Uri.TryCreate(descriptor.HelpLinkUri, UriKind.Absolute, out Uri? link) && link.Scheme == "https", $"{descriptor.Id}: {descriptor.HelpLinkUri}");
            Assert.Equal(DeclaredHelpLinkBase() + descriptor.Id + ".md", descriptor.HelpLinkUri);
            Assert.True(File.Exists(Path.Combine(InRepoCodeTests.RepoRoot(), "docs", "analyzers", descriptor.Id + ".md")), $"no page for {descriptor.Id}");
        }
    }

    [Theory]
    [InlineData("src/Boc/PACKAGE.md")]
    [InlineData("src/Boc.Extensions.Hosting/PACKAGE.md")]
    public void Package_readme_links_are_absolute_and_name_files_of_this_repository(string readme)
    {
        string root = InRepoCodeTests.RepoRoot();
        string text = File.ReadAllText(Path.Combine(root, readme));
        var links = MarkdownLink().Matches(text).Select(m => m.Groups[1].Value).ToList();
        Assert.NotEmpty(links);
        foreach (string link in links)
        {
            Assert.True(Uri.IsWellFormedUriString(link, UriKind.Absolute), $"{readme}: relative link {link} (nuget.org shows the README outside the repository)");
            if (link.StartsWith("https://github.com/", StringComparison.Ordinal))
            {
                string prefix = Property("BocRepositoryUrl") + "/";
                Assert.StartsWith(prefix, link, StringComparison.Ordinal);
                // blob/main/<path> or tree/main/<path>
                string path = string.Join('/', link[prefix.Length..].Split('/').Skip(2)).Split('#')[0];
                Assert.True(File.Exists(Path.Combine(root, path)) || Directory.Exists(Path.Combine(root, path)), $"{readme}: {link} names {path}, which does not exist");
            }
        }
    }

    /// <summary>BocAnalyzerHelpLinkBase as MSBuild evaluates it (it may use BocRepositoryUrl).</summary>
    private static string DeclaredHelpLinkBase() =>
        Property("BocAnalyzerHelpLinkBase").Replace("$(BocRepositoryUrl)", Property("BocRepositoryUrl"), StringComparison.Ordinal);

    private static string Property(string name)
    {
        string props = File.ReadAllText(Path.Combine(InRepoCodeTests.RepoRoot(), "Directory.Build.props"));
        Match declared = Regex.Match(props, $"<{name}>([^<]+)</{name}>");
        Assert.True(declared.Success, $"{name} not found in Directory.Build.props");
        return declared.Groups[1].Value;
    }

    [GeneratedRegex(@"\]\(([^)\s]+)\)")]
    private static partial Regex MarkdownLink();

    [GeneratedRegex(@"https?://")]
    private static partial Regex Address();
}
