using System.Text.RegularExpressions;
using Boc.Testing.Tests.Zoo;

namespace Boc.Testing.Tests;

/// <summary>
/// A failure's trace says what each number is: a cown by its name, a behaviour by its body's method, an await by the
/// method it resumes, and a spawn by where it was made (recorded by running the failing schedule once more, so exploring
/// does not pay for stack traces). Replays record spawn sites too.
/// </summary>
public sealed class TraceNamesTests(Xunit.Abstractions.ITestOutputHelper output)
{
    [Fact]
    public async Task A_failures_trace_names_cowns_behaviours_awaits_and_where_each_spawn_was_made()
    {
        BocTestFailureException failure = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(20, Scenario));

        Assert.Equal(BocTestFailureKind.ScenarioFailed, failure.Kind);
        string trace = string.Join("\n", failure.Trace);
        output.WriteLine(trace);
        string method = $"{nameof(TraceNamesTests)}.{nameof(Scenario)}";

        // The named cown by name, the other by number only; each behaviour by its body; each spawn by its call site.
        Assert.Matches(new Regex($@"the scenario spawned b1 \[{Regex.Escape(method)} \(lambda\)\] in {Regex.Escape(method)} \({nameof(TraceNamesTests)}\.cs:\d+\) on c0 ""alice"","), trace);
        Assert.Matches(new Regex($@"behaviour b1 \[{Regex.Escape(method)} \(lambda\)\] runs on c0 ""alice""$", RegexOptions.Multiline), trace);
        Assert.Matches(new Regex($@"spawned b2 \[{Regex.Escape(method)} \(lambda\)\] in {Regex.Escape(method)} \({nameof(TraceNamesTests)}\.cs:\d+\) on c1,"), trace);

        // The scenario's awaits resume in the scenario's method.
        Assert.Contains($"an await resumes in {method}", trace, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_replay_records_spawn_sites_and_exploring_does_not()
    {
        var failure = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(20, Scenario));
        BocTestFailureException replayed = Assert.Throws<BocTestFailureException>(() => BocTest.Replay(failure.Strategy, failure.Seed, Scenario));
        Assert.Equal(failure.Trace, replayed.Trace);
        Assert.Contains(replayed.Trace, line => line.Contains($"({nameof(TraceNamesTests)}.cs:", StringComparison.Ordinal));
    }

    private static async Task Scenario(BocRuntime rt)
    {
        var alice = new Cown<Box>(new Box(), "alice");
        var bob = new Cown<Box>(new Box());
        rt.When(alice, a => a.Value++);
        await rt.WhenAsync(bob, b => b.Value++);
        await Task.Yield();
        throw new InvalidOperationException("the planned failure");
    }
}
