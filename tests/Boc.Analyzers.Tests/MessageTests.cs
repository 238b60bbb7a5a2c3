using System.Collections.Immutable;
using System.Globalization;
using Microsoft.CodeAnalysis;
using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// On the command line MSBuild prints a diagnostic's first line only, so every message must read whole on one line,
/// also when it quotes source code that spans several. (The harness checks every diagnostic of every test for line
/// breaks; these tests pin the text of the messages that quote code.)
/// </summary>
public class MessageTests
{
    [Fact]
    public async Task Async_void_lambda_written_over_several_lines_is_quoted_on_one_line()
    {
        string message = await SingleMessageAsync("BOC202", """
            class C
            {
                void M(Cown<Account> c) => When(c, new Action<Account>(async a =>
                {
                    await Task.Yield();
                    a.Balance++;
                }));
            }
            """);
        Assert.Equal(
            "'async a => { await Task.Yield(); a.Balance++; }' is an async void body: the behaviour releases its cowns at the first await; pass an async lambda or a Task-returning method",
            message);
    }

    [Fact]
    public async Task Long_code_is_shortened_on_a_word_boundary()
    {
        string message = await SingleMessageAsync("BOC202", """
            class C
            {
                void M(Cown<Account> c) => When(c, new Action<Account>(async account =>
                {
                    await Task.Delay(TimeSpan.FromMilliseconds(account.Balance));
                    account.Log.Add("a long line of text that the message does not need");
                }));
            }
            """);
        Assert.StartsWith("'async account => { await Task.Delay(TimeSpan.FromMilliseconds(account.Balance)); …' is an async void body", message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task State_argument_written_over_several_lines_is_quoted_on_one_line()
    {
        string message = await SingleMessageAsync("BOC101", """
            class C
            {
                void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) => runtime.When(src, s =>
                    runtime.When(dst, static (d, other) => d.Balance = other.Balance,
                        s.Partner
                            ?? s));
            }
            """);
        Assert.Equal("'s.Partner ?? s' is state acquired by an enclosing behaviour (it holds 's' or part of it), not by this When: acquire that cown here", message);
    }

    [Fact]
    public async Task Cown_written_over_several_lines_is_quoted_on_one_line()
    {
        string message = await SingleMessageAsync("BOC203", """
            class C
            {
                void M(Cown<Account>[] accounts) => When(accounts[
                        0], async a =>
                    a.Balance = await WhenAsync(accounts[0], b => b.Balance));
            }
            """);
        Assert.StartsWith("This behaviour holds 'accounts[ 0]' and awaits a behaviour that needs it", message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Type_names_are_printed_as_written_without_a_nullable_mark()
    {
        // A var local's type is nullable-annotated (List<int>?): the message names the type, not the annotation.
        string local = await SingleMessageAsync("BOC103", """
            class C
            {
                void M(Cown<Account> c)
                {
                    var items = new List<int>();
                    When(c, a => items.Add(1));
                    Console.WriteLine(items.Count);
                }
            }
            """);
        Assert.Equal("'items' is a mutable 'List<int>' that the spawning code (or another spawn) also uses: the accesses race; give the behaviour its own copy, or keep the object in a cown", local);

        string parameter = await SingleMessageAsync("BOC103", """
            class C
            {
                void M(Cown<Account> c, StringBuilder? sb) => When(c, a => sb?.Append(a.Balance));
            }
            """);
        Assert.StartsWith("'sb' is a parameter of mutable type 'StringBuilder':", parameter, StringComparison.Ordinal);

        string state = await SingleMessageAsync("BOC103", """
            class C
            {
                void M(BocRuntime runtime, Cown<Account> c)
                {
                    var log = new Dictionary<string, List<Account>>();
                    runtime.When(c, static (a, l) => l.Clear(), log);
                    log.Clear();
                }
            }
            """);
        Assert.StartsWith("The state argument 'log' is a mutable 'Dictionary<string, List<Account>>' that", state, StringComparison.Ordinal);
    }

    [Fact]
    public void Descriptors_have_one_line_titles_and_message_formats()
    {
        var descriptors = AllAnalyzers.SelectMany(a => a.SupportedDiagnostics).ToList();
        Assert.Equal(9, descriptors.Count);
        foreach (DiagnosticDescriptor descriptor in descriptors)
        {
            foreach (string text in new[] { descriptor.Title.ToString(CultureInfo.InvariantCulture), descriptor.MessageFormat.ToString(CultureInfo.InvariantCulture) })
            {
                Assert.DoesNotContain('\n', text);
            }
        }
    }

    private static async Task<string> SingleMessageAsync(string id, string source)
    {
        ImmutableArray<Diagnostic> diagnostics = await AnalyzeAsync(Compile([Usings + source + SharedTypes]));
        Diagnostic diagnostic = Assert.Single(diagnostics, d => d.Id == id);
        return diagnostic.GetMessage(CultureInfo.InvariantCulture);
    }
}
