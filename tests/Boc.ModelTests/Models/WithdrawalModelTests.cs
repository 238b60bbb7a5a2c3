using Boc.ModelTests.Exploration;
using Boc.ModelTests.Support;
using Xunit.Abstractions;

namespace Boc.ModelTests.Models;

/// <summary>
/// Withdrawal against grant (Protocol/Behaviour.Cancellation.cs): a cancellable writer queued between a holder and a
/// successor on one cown (and a cancellable reader on another cown behind a writer), canceled by its token while the
/// holder's release grants it the turn; an awaiter takes the outcome; two workers run what becomes ready. The
/// withdrawal delivers the outcome when the canceller has marked the slots, before the behaviour completes, and
/// completes at the join of the canceller and the dispatch. Oracle: each cancellable behaviour either ran its body or
/// was withdrawn, and its awaitable says which, exactly once; a withdrawn one's awaitable was complete when the
/// canceller returned (the early delivery), whoever still held its cowns; the core suite's exclusivity and order for
/// everything that ran; quiescence (the join happened, every turn was passed on); and no livelock.
/// </summary>
public sealed class WithdrawalModelTests(ITestOutputHelper output)
{
    internal const int Schedules = 1_500;

    [Fact]
    public void WithdrawalAgainstGrant_PassesEveryTurnOnOnce_AndDeliversAtTheCancellation()
    {
        var seen = new HashSet<string>();
        ModelChecks.Holds(output, "withdrawal against grant", Schedules, seed: 63_005, s => Build(s, seen));
        output.WriteLine($"outcomes seen: {string.Join(", ", seen.Order())}");

        // The exploration reached both sides of each race: withdrawn before the turn came, and started first.
        Assert.Superset(new HashSet<string> { "writer ran", "writer withdrawn", "reader ran", "reader withdrawn" }, seen);
    }

    [Fact]
    public void SeededBug_WithdrawIgnoresHeld_IsFound()
    {
        ModelChecks.FindsSeededBug(output, ModelMutations.WithdrawIgnoresHeld, "withdrawal against grant", Schedules, seed: 63_005, s => Build(s, []));
    }

    private static void Build(Scenario scenario, HashSet<string> seen)
    {
        var model = new ModelRuntime { LiveProducers = 3 };
        BocRuntime runtime = model.Runtime;
        var c = new Cown<object>(new object());
        var d = new Cown<object>(new object());
        const int C = 0;
        const int D = 1;
        var cancel = new CancellationTokenSource();
        ValueTask writer = default;
        ValueTask reader = default;
        int writerId = -1;
        int readerId = -1;
        bool spawned = false;
        string? writerOutcome = null;
        string? readerOutcome = null;
        bool deliveredAtCancel = true;
        bool checkedAtCancel = false;

        scenario.Thread("spawner", () =>
        {
            model.Spawn(body => runtime.When(c, _ => body()), (C, true));
            writerId = model.Spawn(body => writer = runtime.WhenAsync(c, _ => body(), cancel.Token), (C, true));
            model.Spawn(body => runtime.When(c, static (_, body) => body(), body), (C, true));
            model.Spawn(body => runtime.When(d, _ => body()), (D, true));
            readerId = model.Spawn(body => reader = runtime.WhenAsync(Cown.Read(d), _ => body(), cancel.Token), (D, false));
            model.Spawn(body => runtime.When(d, static (_, body) => body(), body), (D, true));
            spawned = true;
            model.LiveProducers--;
        });
        scenario.Thread("canceller", () =>
        {
            Scenario.WaitUntil(() => spawned);
            cancel.Cancel();

            // A withdrawn behaviour's awaitable is complete once the canceller has marked its slots, even while a
            // holder ahead of it still runs (the wait ends at the cancellation).
            deliveredAtCancel = (model.Started(writerId) || writer.IsCompleted) && (model.Started(readerId) || reader.IsCompleted);
            checkedAtCancel = true;
            model.LiveProducers--;
        });
        scenario.Thread("awaiter", () =>
        {
            // After the canceller's look (a ValueTask may be looked at only until its result is taken).
            Scenario.WaitUntil(() => checkedAtCancel && writer.IsCompleted && reader.IsCompleted);
            writerOutcome = Outcome(writer);
            readerOutcome = Outcome(reader);
            model.LiveProducers--;
        });
        scenario.Thread("worker 1", model.RunWorker);
        scenario.Thread("worker 2", model.RunWorker);
        scenario.Check(outcome =>
        {
            outcome.RequireCleanEnd();
            model.Check(mayBeWithdrawn: new HashSet<int> { writerId, readerId });
            CheckOutcome("writer", model.Runs(writerId), writerOutcome);
            CheckOutcome("reader", model.Runs(readerId), readerOutcome);
            seen.Add($"writer {writerOutcome}");
            seen.Add($"reader {readerOutcome}");
            if (!deliveredAtCancel)
            {
                throw new ModelViolation("promptness: a withdrawn behaviour's awaitable was not complete when its canceller returned");
            }
        });
    }

    private static string Outcome(ValueTask task)
    {
        try
        {
            task.GetAwaiter().GetResult();
            return "ran";
        }
        catch (BehaviourWithdrawnException)
        {
            return "withdrawn";
        }
    }

    private static void CheckOutcome(string name, int runs, string? outcome)
    {
        string expected = runs == 1 ? "ran" : "withdrawn";
        if (outcome != expected)
        {
            throw new ModelViolation($"exactly once: the cancellable {name} ran its body {runs} times, but its awaitable says {outcome ?? "nothing"}");
        }
    }
}
