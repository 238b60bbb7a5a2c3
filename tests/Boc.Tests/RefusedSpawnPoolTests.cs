using Gate = Boc.Tests.BackpressureTests.Gate;

namespace Boc.Tests;

/// <summary>
/// Spawns that are refused (a full runtime in <see cref="BocFullMode.Throw"/> mode, a disposed runtime) leave no
/// behaviour object outside its pool: either they never rent one (admission comes first), or they return the one they
/// rented. The oracle is the pool itself: its thread cache hands out the object last returned on this thread, so an
/// object put there just before a refused spawn must be the next one rented after it. Debug builds also check that no
/// object is returned twice (run this class with <c>-c Debug</c>).
/// </summary>
public sealed class RefusedSpawnPoolTests
{
    [Fact]
    public async Task ThrowMode_RefusedSpawns_RentNothing_OrGiveItBack()
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 2, MaxPendingBehaviours = 1, FullMode = BocFullMode.Throw });
        await using var drain = runtime.DrainOnExit();
        using var gate = new Gate();
        var cown = new Cown<List<int>>([]);
        BackpressureTests.FillBehindGate(runtime, cown, gate, 1);
        using var live = new CancellationTokenSource();

        // All on this thread, with no await in between: the pool's thread cache is this thread's.
        ExpectReturned<ActionBehaviour<Action>>(() => Assert.Throws<BocRuntimeFullException>(() => runtime.When(() => { })));
        ExpectReturned<ActionBehaviour<List<int>, Action<List<int>>>>(() => Assert.Throws<BocRuntimeFullException>(() => runtime.When(cown, l => l.Add(-1))));
        ExpectReturned<FuncBehaviour<List<int>, Func<List<int>, int>, int>>(() => Assert.Throws<BocRuntimeFullException>(() => Drop(runtime.WhenAsync(cown, l => l.Count))));
        ExpectReturned<AwaitedActionBehaviour<Action>>(() => Assert.Throws<BocRuntimeFullException>(() => Drop(runtime.WhenAsync(() => { }, live.Token))));
        ExpectReturned<ActionBehaviour<List<int>, Action<List<int>>>>(() => Assert.False(runtime.TryWhen(cown, l => l.Add(-2))));
        Assert.Equal(1, runtime.PendingCount);

        gate.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(new[] { 0 }, await runtime.WhenAsync(cown, l => l.ToArray()).Guard());
    }

    [Theory]
    [InlineData(null)]
    [InlineData(4)]
    public async Task SpawnsOnADisposedRuntime_GiveBackWhatTheyRented(int? bound)
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 1, MaxPendingBehaviours = bound });
        await runtime.DisposeAsync();
        using var live = new CancellationTokenSource();
        using var canceled = new CancellationTokenSource();
        canceled.Cancel();
        var cown = new Cown<List<int>>([]);

        ExpectReturned<ActionBehaviour<Action>>(() => Assert.Throws<ObjectDisposedException>(() => runtime.When(() => { })));
        ExpectReturned<ActionBehaviour<List<int>, Action<List<int>>>>(() => Assert.Throws<ObjectDisposedException>(() => runtime.When(cown, l => l.Add(1))));
        ExpectReturned<AwaitedActionBehaviour<Action>>(() => Assert.Throws<ObjectDisposedException>(() => Drop(runtime.WhenAsync(() => { }))));
        ExpectReturned<AwaitedActionBehaviour<Action>>(() => Assert.Throws<ObjectDisposedException>(() => Drop(runtime.WhenAsync(() => { }, live.Token))));
        ExpectReturned<AwaitedActionBehaviour<Action>>(() => Assert.Throws<ObjectDisposedException>(() => Drop(runtime.WhenAsync(() => { }, canceled.Token))));
        ExpectReturned<FuncBehaviour<List<int>, Func<List<int>, int>, int>>(() => Assert.Throws<ObjectDisposedException>(() => Drop(runtime.WhenAsync(cown, l => l.Count))));
        ExpectReturned<ActionBehaviour<Action>>(() => Assert.Throws<ObjectDisposedException>(() => runtime.TryWhen(() => { })));
        Assert.Equal(0, runtime.PendingCount);
    }

    /// <summary>Takes a spawn's awaitable that the test never awaits (the spawn is expected to throw first).</summary>
    private static void Drop(ValueTask awaitable) => Assert.Fail($"the spawn returned an awaitable ({awaitable.IsCompleted})");

    private static void Drop<T>(ValueTask<T> awaitable) => Assert.Fail($"the spawn returned an awaitable ({awaitable.IsCompleted})");

    /// <summary>
    /// Puts a fresh object on top of this thread's cache of <typeparamref name="T"/>, runs the refused spawn, and checks
    /// that the next object rented is that one: the spawn either did not rent, or returned what it rented.
    /// </summary>
    private static void ExpectReturned<T>(Action refusedSpawn)
        where T : Behaviour, new()
    {
        T marker = BehaviourPool<T>.Rent();
        BehaviourPool<T>.Return(marker, BocThread.Current);
        refusedSpawn();
        T next = BehaviourPool<T>.Rent();
        BehaviourPool<T>.Return(next, BocThread.Current);
        Assert.True(ReferenceEquals(marker, next), $"a refused spawn left a {typeof(T).Name} outside the pool");
    }
}
