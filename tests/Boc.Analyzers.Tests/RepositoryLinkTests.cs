using System.Diagnostics;
using System.Text.RegularExpressions;

namespace Boc.Analyzers.Tests;

/// <summary>
/// Nothing in the repository points at a file or a markdown section that is not there, or at a file that lives outside
/// it: a reader who follows a reference must arrive. The whole-repository check runs over every file git tracks (or
/// would track); the others show, on small fixtures, that the checker fails when it should.
/// </summary>
public class RepositoryLinkTests
{
    [Fact]
    public void Every_reference_in_the_repository_resolves_inside_it()
    {
        string root = InRepoCodeTests.RepoRoot();
        Dictionary<string, string?> files = RepositoryFiles(root);
        Assert.Contains("README.md", files.Keys);
        List<string> problems = RepositoryLinks.Check(files);
        Assert.True(problems.Count == 0, $"{problems.Count} broken references:\n{string.Join('\n', problems)}");
    }

    [Fact]
    public void A_link_to_an_existing_file_and_heading_passes()
    {
        Assert.Empty(RepositoryLinks.Check(new()
        {
            ["README.md"] = "See [the guide](docs/guide.md#getting-started), [here](#usage) and [the samples](samples/).\n## Usage\n",
            ["docs/guide.md"] = "# Guide\n## Getting started\nBack to [the top](../README.md).\n",
            ["samples/App/Program.cs"] = "// docs/guide.md#getting-started says why; ../../README.md too.\n",
        }));
    }

    [Fact]
    public void A_link_to_a_missing_file_fails()
    {
        Assert.Equal(
            ["README.md:2: docs/gone.md -> no such file"],
            RepositoryLinks.Check(new() { ["README.md"] = "# Title\nSee [it](docs/gone.md).\n" }));
    }

    [Fact]
    public void A_link_to_a_missing_heading_fails()
    {
        Assert.Equal(
            ["README.md:1: docs/guide.md#usage -> no heading #usage in docs/guide.md", "README.md:1: #intro -> no heading #intro in README.md"],
            RepositoryLinks.Check(new()
            {
                ["README.md"] = "See [it](docs/guide.md#usage) and [above](#intro).\n",
                ["docs/guide.md"] = "# Guide\n## Use\n",
            }));
    }

    [Fact]
    public void A_repeated_heading_is_reached_with_a_numbered_suffix()
    {
        string readme = "## Example\n## Example\n## Example\n[first](#example) [second](#example-1) [third](#example-2) [none](#example-3)\n";
        Assert.Equal(["README.md:4: #example-3 -> no heading #example-3 in README.md"], RepositoryLinks.Check(new() { ["README.md"] = readme }));
    }

    [Theory]
    [InlineData("## Dispatchers: the .NET thread pool, or BocScheduler", "dispatchers-the-net-thread-pool-or-bocscheduler")]
    [InlineData("### `When` and `WhenAsync`", "when-and-whenasync")]
    [InlineData("## Cost of issue 12's features, when unused", "cost-of-issue-12s-features-when-unused")]
    [InlineData("## Seat booking [service](x.md) under HTTP load ##", "seat-booking-service-under-http-load")]
    [InlineData("# snake_case and kebab-case", "snake_case-and-kebab-case")]
    public void Headings_get_GitHubs_anchors(string heading, string anchor)
    {
        Assert.Empty(RepositoryLinks.Check(new() { ["x.md"] = $"{heading}\n[here](#{anchor})\n" }));
    }

    [Fact]
    public void An_html_anchor_is_a_target_too()
    {
        Assert.Empty(RepositoryLinks.Check(new() { ["x.md"] = "<a id=\"proof\"></a>\nText <a name=\"old-name\"></a>\n[a](#proof) [b](#old-name)\n" }));
    }

    [Fact]
    public void Links_in_code_fences_and_code_spans_and_urls_are_not_checked()
    {
        string readme = "```markdown\n[a](missing.md)\n```\n~~~\n[b](#nowhere)\n~~~\n`[c](missing.md)` [d](https://example.com/x.md#y) [e](mailto:a@b.c)\n";
        Assert.Empty(RepositoryLinks.Check(new() { ["README.md"] = readme }));
    }

    [Fact]
    public void A_markdown_file_named_in_source_must_exist_with_its_heading()
    {
        Assert.Equal(
            [
                "src/A.cs:1: docs/gone.md -> no such file",
                "src/A.cs:2: docs/guide.md#nowhere -> no heading #nowhere in docs/guide.md",
                "src/A.cs:3: docs/guide.md, \"Why it is fast\" -> no heading \"Why it is fast\" in docs/guide.md",
                "tools/run.sh:1: elsewhere.md -> no such file",
            ],
            RepositoryLinks.Check(new()
            {
                ["docs/guide.md"] = "# Guide\n## Why it is correct\n",
                ["src/A.cs"] = "// see docs/gone.md\n// see docs/guide.md#nowhere\n// (docs/guide.md, \"Why it is fast\"), (docs/guide.md, \"Why it is correct\"), guide.md\n",
                ["tools/run.sh"] = "# writes elsewhere.md\n",
            }));
    }

    [Fact]
    public void A_mention_of_a_file_outside_the_repository_fails()
    {
        Assert.Equal(
            [
                "README.md:2: design.md -> names a file outside the repository",
                "README.md:3: ../shared -> names a file outside the repository",
                "src/A.cs:1: ../shared -> names a file outside the repository",
            ],
            RepositoryLinks.Check(new()
            {
                ["README.md"] = "# Title\nAs design.md §5 says.\nSee [the spec](../shared/savina-spec.md).\n",
                ["src/A.cs"] = "// from ../shared/seeds\n",
            }));
    }

    // Every file git tracks or would track (not ignored), or, without git, the tree less build output; text files with
    // their text, other files (null) only as link targets.
    private static Dictionary<string, string?> RepositoryFiles(string root)
    {
        IEnumerable<string> paths;
        try
        {
            using var git = Process.Start(new ProcessStartInfo("git", "ls-files -z --cached --others --exclude-standard")
            {
                WorkingDirectory = root,
                RedirectStandardOutput = true,
            })!;
            string output = git.StandardOutput.ReadToEnd();
            git.WaitForExit();
            paths = git.ExitCode == 0 ? output.Split('\0', StringSplitOptions.RemoveEmptyEntries) : throw new InvalidOperationException("git ls-files failed");
        }
        catch (Exception e) when (e is System.ComponentModel.Win32Exception or InvalidOperationException)
        {
            string[] skipped = ["bin", "obj", ".git", "BenchmarkDotNet.Artifacts"];
            paths = Directory.EnumerateFiles(root, "*", SearchOption.AllDirectories)
                .Select(f => Path.GetRelativePath(root, f).Replace('\\', '/'))
                .Where(p => !p.Split('/').Any(skipped.Contains));
        }

        var files = new Dictionary<string, string?>(StringComparer.Ordinal);
        foreach (string path in paths.Where(p => File.Exists(Path.Combine(root, p))))
        {
            string text = File.ReadAllText(Path.Combine(root, path));
            files[path] = text.Contains('\0', StringComparison.Ordinal) ? null : text;
        }

        return files;
    }
}

/// <summary>
/// The checker: given the repository's files (relative paths with '/', and their text, or null for a binary file),
/// lists every reference that does not resolve, as "file:line: reference -> problem".
/// </summary>
internal static partial class RepositoryLinks
{
    // This file names the outside files (and broken links) on purpose.
    private const string Self = "tests/Boc.Analyzers.Tests/RepositoryLinkTests.cs";

    // The kinds of file whose comments, strings and commands may name a markdown file; markdown files have links.
    private static readonly string[] SourceExtensions = [".cs", ".sh", ".py", ".csproj", ".props", ".targets"];

    public static List<string> Check(Dictionary<string, string?> files)
    {
        var problems = new List<string>();
        foreach ((string file, string? text) in files.OrderBy(f => f.Key, StringComparer.Ordinal))
        {
            if (text is null || file == Self)
            {
                continue;
            }

            bool markdown = file.EndsWith(".md", StringComparison.Ordinal);
            bool source = SourceExtensions.Contains(Path.GetExtension(file)) || file == ".ci/run";
            string[] lines = text.Split('\n');
            bool[] code = markdown ? FencedLines(lines) : new bool[lines.Length];
            for (int i = 0; i < lines.Length; i++)
            {
                void Report(string reference, string problem) => problems.Add($"{file}:{i + 1}: {reference} -> {problem}");

                // Files that live beside the repository, not in it: a reader of the repository does not have them.
                Match outside = OutsideFile().Match(lines[i]);
                if (outside.Success)
                {
                    Report(outside.Value, "names a file outside the repository");
                }

                if (markdown && !code[i])
                {
                    // Relative links, inline or as reference definitions; a code span shows its text, not a link.
                    string line = CodeSpan().Replace(lines[i], "");
                    foreach (Match link in MarkdownLink().Matches(line).Concat(LinkDefinition().Matches(line)))
                    {
                        string target = link.Groups["target"].Value;
                        if (target.Length > 0 && !UrlScheme().IsMatch(target) && !OutsideFile().IsMatch(target) && Resolve(files, file, target) is string problem)
                        {
                            Report(target, problem);
                        }
                    }
                }
                else if (source)
                {
                    // A markdown file named in a comment, a string or a script, with an optional #anchor or a section
                    // quoted by its title ("benchmarks/README.md, \"Floods are appended\"").
                    foreach (Match mention in MarkdownMention().Matches(lines[i]))
                    {
                        if (!OutsideFile().IsMatch(mention.Value) && ResolveMention(files, file, mention) is string problem)
                        {
                            Report(mention.Value, problem);
                        }
                    }
                }
            }
        }

        return problems;
    }

    // A markdown link: relative to the linking file (to the root with a leading '/'), "#anchor" alone for the file itself.
    private static string? Resolve(Dictionary<string, string?> files, string from, string target)
    {
        int hash = target.IndexOf('#', StringComparison.Ordinal);
        string path = Uri.UnescapeDataString(hash < 0 ? target : target[..hash]);
        string? anchor = hash < 0 ? null : target[(hash + 1)..];
        string? resolved = path.Length == 0 ? from : Normalize(path.StartsWith('/') ? path[1..] : Combine(Folder(from), path));
        if (resolved is null)
        {
            return "outside the repository";
        }

        return !Exists(files, resolved) ? "no such file" : CheckAnchor(files, resolved, anchor);
    }

    // A markdown file named in source: a path from the root or from the naming file, or else a bare name of a file
    // anywhere in the tree (a package readme, a help page named by a URL built in code).
    private static string? ResolveMention(Dictionary<string, string?> files, string from, Match mention)
    {
        string path = mention.Groups["path"].Value;
        string? resolved = new[] { Normalize(path), Normalize(Combine(Folder(from), path)) }.FirstOrDefault(p => p is not null && files.ContainsKey(p))
            ?? (path.Contains('/', StringComparison.Ordinal) ? null : files.Keys.Order(StringComparer.Ordinal).FirstOrDefault(f => f.EndsWith("/" + path, StringComparison.Ordinal)));
        if (resolved is null)
        {
            return "no such file";
        }

        if (mention.Groups["title"].Success)
        {
            string title = mention.Groups["title"].Value;
            bool found = Headings(files[resolved] ?? "").Any(h => h.Contains(title, StringComparison.OrdinalIgnoreCase));
            return found ? null : $"no heading \"{title}\" in {resolved}";
        }

        return CheckAnchor(files, resolved, mention.Groups["anchor"].Success ? mention.Groups["anchor"].Value : null);
    }

    private static string? CheckAnchor(Dictionary<string, string?> files, string resolved, string? anchor)
    {
        if (string.IsNullOrEmpty(anchor) || !resolved.EndsWith(".md", StringComparison.Ordinal))
        {
            return null;
        }

        return Anchors(files[resolved] ?? "").Contains(anchor) ? null : $"no heading #{anchor} in {resolved}";
    }

    // GitHub's anchors: each heading's slug (a repeated one with -1, -2, … in order), and explicit <a id/name="…">.
    private static HashSet<string> Anchors(string markdown)
    {
        var anchors = new HashSet<string>(StringComparer.Ordinal);
        var seen = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (string text in Headings(markdown))
        {
            string slug = Slug(text);
            int n = seen.GetValueOrDefault(slug);
            seen[slug] = n + 1;
            anchors.Add(n == 0 ? slug : $"{slug}-{n}");
        }

        foreach (Match html in HtmlAnchor().Matches(markdown))
        {
            anchors.Add(html.Groups[1].Value);
        }

        return anchors;
    }

    // The heading as GitHub renders it (links show their text, HTML tags vanish), lowercased, without punctuation other
    // than '-' and '_', spaces made hyphens.
    private static string Slug(string heading)
    {
        string text = InlineLink().Replace(HtmlTag().Replace(heading, ""), "${text}").Trim().ToLowerInvariant();
        return NotInSlug().Replace(text, "").Replace(' ', '-');
    }

    private static IEnumerable<string> Headings(string markdown)
    {
        string[] lines = markdown.Split('\n');
        bool[] code = FencedLines(lines);
        for (int i = 0; i < lines.Length; i++)
        {
            Match heading = Heading().Match(lines[i]);
            if (!code[i] && heading.Success)
            {
                yield return heading.Groups[1].Value;
            }
        }
    }

    // Lines inside a fenced code block, fences included: ``` or ~~~ opens, a bare fence of the same character at least
    // as long closes.
    private static bool[] FencedLines(string[] lines)
    {
        var code = new bool[lines.Length];
        string? open = null;
        for (int i = 0; i < lines.Length; i++)
        {
            Match fence = Fence().Match(lines[i]);
            code[i] = open is not null || fence.Success;
            if (open is null && fence.Success)
            {
                open = fence.Groups[1].Value;
            }
            else if (open is not null && fence.Success && fence.Groups[1].Value[0] == open[0] && fence.Groups[1].Length >= open.Length && fence.Groups[2].Value.Trim().Length == 0)
            {
                open = null;
            }
        }

        return code;
    }

    private static bool Exists(Dictionary<string, string?> files, string path) =>
        files.ContainsKey(path) || path.Length == 0 || files.Keys.Any(f => f.StartsWith(path.TrimEnd('/') + "/", StringComparison.Ordinal));

    private static string Folder(string file) => file.Contains('/', StringComparison.Ordinal) ? file[..file.LastIndexOf('/')] : "";

    private static string Combine(string directory, string path) => directory.Length == 0 ? path : directory + "/" + path;

    // Resolves "." and ".."; null if the path climbs out of the repository.
    private static string? Normalize(string path)
    {
        var parts = new List<string>();
        foreach (string part in path.Split('/'))
        {
            if (part == "..")
            {
                if (parts.Count == 0)
                {
                    return null;
                }

                parts.RemoveAt(parts.Count - 1);
            }
            else if (part is not ("." or ""))
            {
                parts.Add(part);
            }
        }

        return string.Join('/', parts);
    }

    // The files that live beside this repository (the brief it was built from, the benchmark suite's specification,
    // the seed material), not in it.
    [GeneratedRegex(@"(?<![\w.-])(?:design|savina-spec)\.md|\.\./shared(?![\w-])|(?<![\w-])shared/seeds")]
    private static partial Regex OutsideFile();

    [GeneratedRegex(@"\]\(\s*<?(?<target>[^)\s>]*)>?(?:\s+""[^""]*"")?\s*\)")]
    private static partial Regex MarkdownLink();

    [GeneratedRegex(@"^ {0,3}\[[^\]]+\]:\s*<?(?<target>[^\s>]+)")]
    private static partial Regex LinkDefinition();

    [GeneratedRegex(@"``.*?``|`[^`]*`")]
    private static partial Regex CodeSpan();

    [GeneratedRegex(@"^[a-zA-Z][a-zA-Z0-9+.-]*:")]
    private static partial Regex UrlScheme();

    [GeneratedRegex(@"(?<![\w./-])(?<path>(?:\.{1,2}/)*(?:[\w.-]+/)*[\w.-]+\.md)(?:#(?<anchor>[\w-]+)|, ""(?<title>[^""]+)"")?(?![\w/])")]
    private static partial Regex MarkdownMention();

    [GeneratedRegex(@"^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")]
    private static partial Regex Heading();

    [GeneratedRegex(@"^ {0,3}(`{3,}|~{3,})(.*)$")]
    private static partial Regex Fence();

    [GeneratedRegex(@"<a\s+(?:id|name)\s*=\s*""([^""]+)""")]
    private static partial Regex HtmlAnchor();

    [GeneratedRegex(@"<[^>]+>")]
    private static partial Regex HtmlTag();

    [GeneratedRegex(@"!?\[(?<text>[^\]]*)\]\([^)]*\)")]
    private static partial Regex InlineLink();

    [GeneratedRegex(@"[^\p{L}\p{M}\p{N}\p{Pc} -]")]
    private static partial Regex NotInSlug();
}
