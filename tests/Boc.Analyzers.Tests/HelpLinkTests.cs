using System.Text.RegularExpressions;
using Microsoft.CodeAnalysis;

namespace Boc.Analyzers.Tests;

/// <summary>Help links are absolute, point into the repository named in Directory.Build.props, and name existing pages.</summary>
public partial class HelpLinkTests
{
    [Fact]
    public void The_repository_url_is_the_one_the_packages_declare()
    {
        string props = File.ReadAllText(Path.Combine(InRepoCodeTests.RepoRoot(), "Directory.Build.props"));
        Match declared = RepositoryUrl().Match(props);
        Assert.True(declared.Success, "BocRepositoryUrl not found in Directory.Build.props");
        Assert.Equal(Descriptors.RepositoryUrl, declared.Groups[1].Value);
    }

    [Fact]
    public void Every_rule_links_to_its_page_by_an_absolute_url()
    {
        var descriptors = AnalyzerHarness.AllAnalyzers.SelectMany(a => a.SupportedDiagnostics).ToList();
        Assert.NotEmpty(descriptors);
        foreach (DiagnosticDescriptor descriptor in descriptors)
        {
            Assert.True(Uri.TryCreate(descriptor.HelpLinkUri, UriKind.Absolute, out Uri? link) && link.Scheme == "https", $"{descriptor.Id}: {descriptor.HelpLinkUri}");
            string expected = $"{Descriptors.RepositoryUrl}/blob/main/docs/analyzers/{descriptor.Id}.md";
            Assert.Equal(expected, descriptor.HelpLinkUri);
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
                string prefix = Descriptors.RepositoryUrl + "/";
                Assert.StartsWith(prefix, link, StringComparison.Ordinal);
                // blob/main/<path> or tree/main/<path>
                string path = string.Join('/', link[prefix.Length..].Split('/').Skip(2)).Split('#')[0];
                Assert.True(File.Exists(Path.Combine(root, path)) || Directory.Exists(Path.Combine(root, path)), $"{readme}: {link} names {path}, which does not exist");
            }
        }
    }

    [GeneratedRegex(@"\]\(([^)\s]+)\)")]
    private static partial Regex MarkdownLink();

    [GeneratedRegex("<BocRepositoryUrl>([^<]+)</BocRepositoryUrl>")]
    private static partial Regex RepositoryUrl();
}
