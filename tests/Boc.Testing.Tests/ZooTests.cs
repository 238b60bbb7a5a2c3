using Boc.Testing.Tests.Zoo;
using Xunit.Abstractions;

namespace Boc.Testing.Tests;

/// <summary>
/// Each buggy program of the zoo: the explorer finds the bug within the budget, replaying the reported (strategy,
/// seed) reproduces it with the identical schedule twice, and the fixed program passes the same budget.
/// </summary>
public sealed class ZooTests(ITestOutputHelper output)
{
    private const int Budget = 1000;

    public static TheoryData<string> Cases => new(ZooCase.All.Select(c => c.Name));

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task The_explorer_finds_the_bug_and_replay_reproduces_it_exactly(string name)
    {
        ZooCase zoo = ZooCase.All.Single(c => c.Name == name);

        BocTestFailureException found = await Assert.ThrowsAsync<BocTestFailureException>(
            () => BocTest.ExploreAsync(Budget, zoo.Buggy));
        output.WriteLine($"{name}: found in iteration {found.Iteration} by {found.Strategy}, seed {found.Seed}, {found.Trace.Count} steps");
        output.WriteLine(found.Message);
        Assert.Equal(zoo.Symptom, found.Kind);
        if (zoo.Symptom == BocTestFailureKind.ScenarioFailed)
        {
            Assert.IsType<ZooBugException>(found.InnerException);
        }

        Assert.Contains($"seed {found.Seed}", found.Message, StringComparison.Ordinal);

        // Replay twice: the same failure with the same schedule, step for step.
        BocTestFailureException first = Assert.Throws<BocTestFailureException>(() => BocTest.Replay(found.Strategy, found.Seed, zoo.Buggy));
        BocTestFailureException second = Assert.Throws<BocTestFailureException>(() => BocTest.Replay(found.Strategy, found.Seed, zoo.Buggy));
        Assert.Equal(found.Kind, first.Kind);
        Assert.Equal(found.Kind, second.Kind);
        Assert.Equal(found.Trace, first.Trace);
        Assert.Equal(first.Trace, second.Trace);
        Assert.Equal(found.InnerException?.Message, first.InnerException?.Message);
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task The_fixed_program_passes_the_same_budget(string name)
    {
        ZooCase zoo = ZooCase.All.Single(c => c.Name == name);

        BocTestReport report = await BocTest.ExploreAsync(Budget, zoo.Fixed);

        Assert.Equal(Budget, report.Iterations);
        output.WriteLine($"{name} (fixed): {report.Iterations} schedules, {report.TotalSteps} steps, longest {report.LongestRun}");
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Each_strategy_alone_finds_the_bug(string name)
    {
        ZooCase zoo = ZooCase.All.Single(c => c.Name == name);
        foreach (BocTestStrategy strategy in new[] { BocTestStrategy.Random, BocTestStrategy.Pct() })
        {
            var options = new BocTestOptions { Iterations = Budget, Strategies = [strategy], Seed = 1000 };
            BocTestFailureException found = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(zoo.Buggy, options));
            Assert.Equal(zoo.Symptom, found.Kind);
            output.WriteLine($"{name}: {strategy} found it in iteration {found.Iteration}");
        }
    }
}
