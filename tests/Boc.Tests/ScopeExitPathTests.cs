using System.Collections.Concurrent;
using Xunit.Abstractions;

namespace Boc.Tests;

/// <summary>
/// Scopes opened and ended through every exit path, at random: <c>await using</c>, a block that throws, an explicit
/// <c>FinishAsync</c>, a block ended inside an async helper, a token, a deadline, <c>Cancel()</c>, and (in bodies) a
/// self-wait through a child scope. Nested outside bodies and inside members' bodies. The oracle: every scope finishes
/// (the program completes), the later spawns of a block whose inner block ended in a helper still belong to it, and
/// every exception a fire-and-forget member threw is reported exactly once, to a scope's outcome (possibly inside a
/// timeout, a cancellation, or a failure that flowed up through bodies), never to the runtime's handler and never lost.
/// Seeded; the seed and round are printed on failure.
/// </summary>
public sealed class ScopeExitPathTests(ITestOutputHelper output)
{
    private const int Rounds = 60;
    private const int CownCount = 5;

    private enum Exit
    {
        AwaitUsing,
        BlockThrows,
        Finish,
        Helper,
        Token,
        Deadline,
        Cancel,
        SelfWait,
    }

    public static TheoryData<int, BocDispatcher> Seeds()
    {
        var data = new TheoryData<int, BocDispatcher>();
        for (int seed = 1; seed <= 3; seed++)
        {
            data.Add(seed, BocDispatcher.BocScheduler);
            data.Add(seed + 100, BocDispatcher.ThreadPool);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task EveryScopeFinishes_ThroughEveryExitPath_AndEveryMembersFailureIsReportedExactlyOnce(int seed, BocDispatcher dispatcher)
    {
        var random = new Random(seed);
        for (int round = 0; round < Rounds; round++)
        {
            Block plan = Block.Random(random, depth: 0, inBody: false, lowestCown: 0);
            var run = new ProgramRun(dispatcher);
            Task program = run.RunAsync(plan);
            if (await Task.WhenAny(program, Task.Delay(Progress.Limit)) != program)
            {
                Assert.Fail($"seed {seed}, round {round}: the program did not finish (a scope never finished?)\n{plan}");
            }

            await program;
            List<string> problems = await run.CheckAsync();
            if (problems.Count > 0)
            {
                output.WriteLine($"seed {seed}, round {round}:\n{plan}");
                Assert.Fail($"seed {seed}, round {round}: {string.Join("; ", problems)}\n{plan}");
            }
        }
    }

    /// <summary>One block: how it ends, and what it does in order.</summary>
    private sealed record Block(Exit Exit, List<Step> Steps, int Depth)
    {
        public static Block Random(Random random, int depth, bool inBody, int lowestCown)
        {
            Exit[] exits = inBody
                ? [Exit.AwaitUsing, Exit.BlockThrows, Exit.Finish, Exit.Token, Exit.Deadline, Exit.Cancel, Exit.SelfWait]
                : [Exit.AwaitUsing, Exit.BlockThrows, Exit.Finish, Exit.Helper, Exit.Token, Exit.Deadline, Exit.Cancel];
            Exit exit = exits[random.Next(exits.Length)];
            var steps = new List<Step>();
            int count = random.Next(1, 5);
            for (int i = 0; i < count; i++)
            {
                // Members of a block inside a body use only cowns above the body's (lowestCown): a body never waits for a
                // behaviour that needs a cown held by it or by a body waiting for it, so no program deadlocks by design.
                int cown = random.Next(lowestCown, CownCount);
                int kind = random.Next(depth < 2 && cown < CownCount - 1 ? 5 : 3);
                steps.Add(kind switch
                {
                    0 or 1 => new Step.Member(cown, Throws: random.Next(3) == 0, Child: null),
                    2 => new Step.Awaited(cown),
                    3 => new Step.Member(cown, Throws: random.Next(3) == 0, Child: Random(random, depth + 1, inBody: true, cown + 1)),
                    _ => inBody ? new Step.Awaited(cown) : new Step.Nested(Random(random, depth + 1, inBody: false, lowestCown)),
                });
            }

            if (exit is Exit.Helper)
            {
                // The spawn after an inner block ended in a helper: it must still belong to this block's scope.
                steps.Add(new Step.Member(random.Next(lowestCown, CownCount), Throws: true, Child: null));
            }

            return new Block(exit, steps, depth);
        }

        public override string ToString() =>
            $"{new string(' ', Depth * 2)}{Exit}\n{string.Concat(Steps.Select(s => s.Describe(Depth)))}";
    }

    private abstract record Step
    {
        public abstract string Describe(int depth);

        public sealed record Member(int Cown, bool Throws, Block? Child) : Step
        {
            public override string Describe(int depth) =>
                $"{new string(' ', depth * 2 + 1)}member c{Cown}{(Throws ? " throws" : "")}\n{Child}";
        }

        public sealed record Awaited(int Cown) : Step
        {
            public override string Describe(int depth) => $"{new string(' ', depth * 2 + 1)}awaited c{Cown}\n";
        }

        public sealed record Nested(Block Block) : Step
        {
            public override string Describe(int depth) => Block.ToString();
        }
    }

    /// <summary>A failure a member threw on purpose, with an id the oracle counts.</summary>
    private sealed class MemberFailure(int id) : Exception($"member failure {id}")
    {
        public int Id { get; } = id;
    }

    /// <summary>An exception a block throws on purpose (exit path BlockThrows).</summary>
    private sealed class BlockException() : Exception("the block threw");

    private sealed class ProgramRun(BocDispatcher dispatcher)
    {
        private readonly ManualClock _clock = new();
        private readonly ConcurrentQueue<Exception> _unhandled = new();
        private readonly ConcurrentQueue<Exception> _observed = new();
        private readonly ConcurrentDictionary<int, bool> _thrown = new();
        private BocRuntime _runtime = null!;
        private Cown<int[]>[] _cowns = [];
        private int _nextFailure;

        public async Task RunAsync(Block plan)
        {
            _runtime = new BocRuntime(new BocRuntimeOptions
            {
                Dispatcher = dispatcher,
                TimeProvider = _clock,
                UnhandledExceptionHandler = _unhandled.Enqueue,
            });
            _cowns = Enumerable.Range(0, CownCount).Select(i => new Cown<int[]>(new int[1], $"c{i}")).ToArray();

            // An enclosing scope, as a request's: a helper-ended block's later spawns join it.
            try
            {
                await using (_runtime.BeginScope())
                {
                    await RunObservedAsync(plan, held: null);
                }
            }
            catch (Exception e)
            {
                _observed.Enqueue(e);
            }

            await _runtime.WaitForQuiescenceAsync();
        }

        public async Task<List<string>> CheckAsync()
        {
            await _runtime.DisposeAsync();
            var problems = new List<string>();
            foreach (Exception e in _unhandled)
            {
                problems.Add($"the runtime's handler got {e.GetType().Name}: {e.Message}");
            }

            var seen = new Dictionary<int, int>();
            foreach (Exception e in _observed)
            {
                Count(e, seen);
            }

            foreach (int id in _thrown.Keys)
            {
                seen.TryGetValue(id, out int times);
                if (times != 1)
                {
                    problems.Add($"member failure {id} was reported {times} times");
                }
            }

            foreach ((int id, int times) in seen)
            {
                if (!_thrown.ContainsKey(id))
                {
                    problems.Add($"member failure {id} was reported {times} times but never thrown");
                }
            }

            return problems;
        }

        private static void Count(Exception e, Dictionary<int, int> seen)
        {
            if (e is MemberFailure failure)
            {
                seen[failure.Id] = seen.GetValueOrDefault(failure.Id) + 1;
            }

            if (e is AggregateException aggregate)
            {
                foreach (Exception inner in aggregate.InnerExceptions)
                {
                    Count(inner, seen);
                }
            }
            else if (e.InnerException is { } inner)
            {
                Count(inner, seen);
            }
        }

        /// <summary>Runs a block and records whatever it throws, as a caller that handles the outcome would.</summary>
        private async Task RunObservedAsync(Block block, Cown<int[]>? held)
        {
            try
            {
                await RunBlockAsync(block, held);
            }
            catch (BlockException)
            {
            }
            catch (Exception e)
            {
                _observed.Enqueue(e);
            }
        }

        private async Task RunBlockAsync(Block block, Cown<int[]>? held)
        {
            using var cts = new CancellationTokenSource();
            BocScope scope = block.Exit switch
            {
                Exit.Token => _runtime.BeginScope(cts.Token),
                Exit.Deadline => _runtime.BeginScope(TimeSpan.FromSeconds(1)),
                _ => _runtime.BeginScope(),
            };
            int cancelAt = block.Steps.Count / 2;
            switch (block.Exit)
            {
                case Exit.Finish:
                    await RunStepsAsync(block, cancelAt, scope, cts, held);
                    await scope.FinishAsync();
                    await scope.DisposeAsync();
                    break;
                case Exit.Helper:
                    // The last step runs after the helper ended the block: the ambient scope in this flow is then the
                    // ended one, and the step's spawn must still join the enclosing scope.
                    var inner = new Block(Exit.AwaitUsing, block.Steps[..^1], block.Depth);
                    await RunStepsAsync(inner, -1, scope, cts, held);
                    await EndInAHelperAsync(scope);
                    await RunStepAsync(block.Steps[^1], held);
                    break;
                case Exit.SelfWait:
                    await using (scope)
                    {
                        await RunStepsAsync(block, -1, scope, cts, held);
                        Spawn(held!, throws: true, child: null);   // needs the cown this body holds
                    }

                    break;
                default:
                    await using (scope)
                    {
                        await RunStepsAsync(block, cancelAt, scope, cts, held);
                        if (block.Exit == Exit.BlockThrows)
                        {
                            throw new BlockException();
                        }
                    }

                    break;
            }
        }

        private static async Task EndInAHelperAsync(BocScope scope)
        {
            await Task.Yield();
            await scope.DisposeAsync();
        }

        private async Task RunStepsAsync(Block block, int cancelAt, BocScope scope, CancellationTokenSource cts, Cown<int[]>? held)
        {
            for (int i = 0; i < block.Steps.Count; i++)
            {
                if (i == cancelAt)
                {
                    switch (block.Exit)
                    {
                        case Exit.Token:
                            cts.Cancel();
                            break;
                        case Exit.Deadline:
                            _clock.FireFor(scope);
                            break;
                        case Exit.Cancel:
                            scope.Cancel();
                            break;
                    }
                }

                await RunStepAsync(block.Steps[i], held);
            }
        }

        private async Task RunStepAsync(Step step, Cown<int[]>? held)
        {
            switch (step)
            {
                case Step.Member member:
                    Spawn(_cowns[member.Cown], member.Throws, member.Child);
                    break;
                case Step.Awaited awaited:
                    try
                    {
                        await _runtime.WhenAsync(_cowns[awaited.Cown], c => c[0]++);
                    }
                    catch (OperationCanceledException)
                    {
                        // Withdrawn or refused: the scope was canceled.
                    }

                    break;
                case Step.Nested nested:
                    await RunObservedAsync(nested.Block, held);
                    break;
            }
        }

        private void Spawn(Cown<int[]> cown, bool throws, Block? child)
        {
            int id = Interlocked.Increment(ref _nextFailure);
            try
            {
                _runtime.When(cown, async c =>
                {
                    c[0]++;
                    if (child is not null)
                    {
                        await RunObservedAsync(child, cown);
                    }

                    if (throws)
                    {
                        _thrown[id] = true;
                        throw new MemberFailure(id);
                    }
                });
            }
            catch (OperationCanceledException)
            {
                // Refused: the scope was canceled. Nothing was enqueued, so nothing will throw.
            }
        }
    }
}
