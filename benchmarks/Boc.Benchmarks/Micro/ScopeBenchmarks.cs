// Scopes do not exist in runtimes before issue 48: the before/after job against an older package skips this file.
#if !BOC_BASELINE
using BenchmarkDotNet.Attributes;
using Boc;

namespace Boc.Benchmarks.Micro;

/// <summary>
/// What a scope costs (docs/guide/scopes.md). (1) Per member: N one-cown behaviours with an empty body spawned from an
/// outside thread onto idle cowns, as in <see cref="SpawnRunBenchmarks"/>, without a scope in a process that never began
/// one (the baseline: the spawn path reads one static flag), without a scope in a process that has begun one (the
/// spawn also looks for an ambient scope and the running body's scope), and as members of one scope begun and finished
/// per invocation (counted in and out, registered for cancellation; the scope's own cost is spread over N members).
/// (2) Per request: one scope around one awaited behaviour, with neither a deadline nor a token, and with both (a
/// request handler's scope: the seat-booking service's), against the awaited behaviour alone. Each BenchmarkDotNet
/// case runs in a process of its own, so the first baseline's process never begins a scope.
/// </summary>
[Config(typeof(MicroConfig))]
public class ScopeBenchmarks : TwoDispatchers
{
    public const int N = 1024;

    private readonly Countdown _countdown = new();

    // A request's token that is never canceled, as a request's is when the client stays.
    private readonly CancellationTokenSource _requestAborted = new();
    private Cown<Cell>[] _cowns = null!;

    [GlobalSetup(Targets = [nameof(NoScopeOnBocScheduler), nameof(NoScopeOnThreadPool), nameof(RequestWithoutScope)])]
    public void SetupWithoutScopes() => Setup();

    [GlobalSetup(Targets = [nameof(NoScopeScopesInUseOnBocScheduler), nameof(NoScopeScopesInUseOnThreadPool)])]
    public void SetupScopesInUse()
    {
        Setup();

        // Once begun, scopes are "in use" for the whole process: every spawn then looks for one.
        PoolRuntime.BeginScope().FinishAsync().GetAwaiter().GetResult();
    }

    [GlobalSetup(Targets = [nameof(MembersOnBocScheduler), nameof(MembersOnThreadPool), nameof(RequestWithScope), nameof(RequestWithDeadlineScope)])]
    public void SetupMembers() => Setup();

    [GlobalCleanup]
    public void Cleanup()
    {
        DisposeRuntimes();
        _requestAborted.Dispose();
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = N, Description = "no scope, BocScheduler")]
    [BenchmarkCategory("member, BocScheduler")]
    public void NoScopeOnBocScheduler() => Spawn(SchedulerRuntime);

    [Benchmark(OperationsPerInvoke = N, Description = "no scope, scopes in use, BocScheduler")]
    [BenchmarkCategory("member, BocScheduler")]
    public void NoScopeScopesInUseOnBocScheduler() => Spawn(SchedulerRuntime);

    [Benchmark(OperationsPerInvoke = N, Description = "member of a scope, BocScheduler")]
    [BenchmarkCategory("member, BocScheduler")]
    public void MembersOnBocScheduler() => SpawnMembers(SchedulerRuntime);

    [Benchmark(Baseline = true, OperationsPerInvoke = N, Description = "no scope, thread pool")]
    [BenchmarkCategory("member, thread pool")]
    public void NoScopeOnThreadPool() => Spawn(PoolRuntime);

    [Benchmark(OperationsPerInvoke = N, Description = "no scope, scopes in use, thread pool")]
    [BenchmarkCategory("member, thread pool")]
    public void NoScopeScopesInUseOnThreadPool() => Spawn(PoolRuntime);

    [Benchmark(OperationsPerInvoke = N, Description = "member of a scope, thread pool")]
    [BenchmarkCategory("member, thread pool")]
    public void MembersOnThreadPool() => SpawnMembers(PoolRuntime);

    [Benchmark(Baseline = true, Description = "awaited behaviour, thread pool")]
    [BenchmarkCategory("request")]
    public void RequestWithoutScope() => PoolRuntime.WhenAsync(_cowns[0], static c => c.Value++).AsTask().GetAwaiter().GetResult();

    [Benchmark(Description = "scope + awaited behaviour, thread pool")]
    [BenchmarkCategory("request")]
    public void RequestWithScope()
    {
        BocScope scope = PoolRuntime.BeginScope();
        PoolRuntime.WhenAsync(_cowns[0], static c => c.Value++).AsTask().GetAwaiter().GetResult();
        scope.FinishAsync().GetAwaiter().GetResult();
    }

    [Benchmark(Description = "scope with a deadline and a token + awaited behaviour, thread pool")]
    [BenchmarkCategory("request")]
    public void RequestWithDeadlineScope()
    {
        // The deadline never fires: it is set and disposed, as a request that ends in time sets and disposes it.
        BocScope scope = PoolRuntime.BeginScope(TimeSpan.FromSeconds(10), _requestAborted.Token);
        PoolRuntime.WhenAsync(_cowns[0], static c => c.Value++).AsTask().GetAwaiter().GetResult();
        scope.FinishAsync().GetAwaiter().GetResult();
    }

    private void Setup()
    {
        CreateRuntimes();
        _cowns = Enumerable.Range(0, N).Select(_ => new Cown<Cell>(new Cell())).ToArray();
    }

    private void Spawn(BocRuntime runtime)
    {
        _countdown.Reset(N);
        for (int i = 0; i < N; i++)
        {
            runtime.When(_cowns[i], static (_, countdown) => countdown.Signal(), _countdown);
        }

        _countdown.Wait();
    }

    private void SpawnMembers(BocRuntime runtime)
    {
        BocScope scope = runtime.BeginScope();
        Spawn(runtime);

        // Every member has signalled; the finish waits for their last count-outs (they have all but ended).
        scope.FinishAsync().GetAwaiter().GetResult();
    }
}
#endif
