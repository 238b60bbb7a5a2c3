namespace Boc.Orleans;

// The WhenAsync overloads: each shape's three simpler body forms adapt their body to the asynchronous result form, and
// Spawn validates every argument and builds the plan before anything is sent, then runs it.
public sealed partial class BocCluster
{
    /// <inheritdoc/>
    public Task WhenAsync<T1>(ClusterAcquirable<T1> c1, Action<T1> body)
        where T1 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        return Spawn(c1, x1 =>
        {
            body(x1);
            return Task.FromResult<object?>(null);
        });
    }

    /// <inheritdoc/>
    public Task<TResult> WhenAsync<T1, TResult>(ClusterAcquirable<T1> c1, Func<T1, TResult> body)
        where T1 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        return Spawn(c1, x1 => Task.FromResult(body(x1)));
    }

    /// <inheritdoc/>
    public Task WhenAsync<T1>(ClusterAcquirable<T1> c1, Func<T1, Task> body)
        where T1 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        return Spawn<T1, object?>(c1, async x1 =>
        {
            await body(x1).ConfigureAwait(true);
            return null;
        });
    }

    /// <inheritdoc/>
    public Task<TResult> WhenAsync<T1, TResult>(ClusterAcquirable<T1> c1, Func<T1, Task<TResult>> body)
        where T1 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        return Spawn(c1, body);
    }

    /// <inheritdoc/>
    public Task WhenAsync<T1, T2>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Action<T1, T2> body)
        where T1 : class, new()
        where T2 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        return Spawn(c1, c2, (x1, x2) =>
        {
            body(x1, x2);
            return Task.FromResult<object?>(null);
        });
    }

    /// <inheritdoc/>
    public Task<TResult> WhenAsync<T1, T2, TResult>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Func<T1, T2, TResult> body)
        where T1 : class, new()
        where T2 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        return Spawn(c1, c2, (x1, x2) => Task.FromResult(body(x1, x2)));
    }

    /// <inheritdoc/>
    public Task WhenAsync<T1, T2>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Func<T1, T2, Task> body)
        where T1 : class, new()
        where T2 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        return Spawn<T1, T2, object?>(c1, c2, async (x1, x2) =>
        {
            await body(x1, x2).ConfigureAwait(true);
            return null;
        });
    }

    /// <inheritdoc/>
    public Task<TResult> WhenAsync<T1, T2, TResult>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Func<T1, T2, Task<TResult>> body)
        where T1 : class, new()
        where T2 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        return Spawn(c1, c2, body);
    }

    /// <inheritdoc/>
    public Task WhenAsync<T1, T2, T3>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, ClusterAcquirable<T3> c3, Action<T1, T2, T3> body)
        where T1 : class, new()
        where T2 : class, new()
        where T3 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        return Spawn(c1, c2, c3, (x1, x2, x3) =>
        {
            body(x1, x2, x3);
            return Task.FromResult<object?>(null);
        });
    }

    /// <inheritdoc/>
    public Task<TResult> WhenAsync<T1, T2, T3, TResult>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, ClusterAcquirable<T3> c3, Func<T1, T2, T3, TResult> body)
        where T1 : class, new()
        where T2 : class, new()
        where T3 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        return Spawn(c1, c2, c3, (x1, x2, x3) => Task.FromResult(body(x1, x2, x3)));
    }

    /// <inheritdoc/>
    public Task WhenAsync<T1, T2, T3>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, ClusterAcquirable<T3> c3, Func<T1, T2, T3, Task> body)
        where T1 : class, new()
        where T2 : class, new()
        where T3 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        return Spawn<T1, T2, T3, object?>(c1, c2, c3, async (x1, x2, x3) =>
        {
            await body(x1, x2, x3).ConfigureAwait(true);
            return null;
        });
    }

    /// <inheritdoc/>
    public Task<TResult> WhenAsync<T1, T2, T3, TResult>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, ClusterAcquirable<T3> c3, Func<T1, T2, T3, Task<TResult>> body)
        where T1 : class, new()
        where T2 : class, new()
        where T3 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        return Spawn(c1, c2, c3, body);
    }

    /// <inheritdoc/>
    public Task WhenAsync<T>(IReadOnlyList<ClusterAcquirable<T>> cowns, Action<IReadOnlyList<T>> body)
        where T : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        return Spawn(cowns, states =>
        {
            body(states);
            return Task.FromResult<object?>(null);
        });
    }

    /// <inheritdoc/>
    public Task<TResult> WhenAsync<T, TResult>(IReadOnlyList<ClusterAcquirable<T>> cowns, Func<IReadOnlyList<T>, TResult> body)
        where T : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        return Spawn(cowns, states => Task.FromResult(body(states)));
    }

    /// <inheritdoc/>
    public Task WhenAsync<T>(IReadOnlyList<ClusterAcquirable<T>> cowns, Func<IReadOnlyList<T>, Task> body)
        where T : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        return Spawn<T, object?>(cowns, async states =>
        {
            await body(states).ConfigureAwait(true);
            return null;
        });
    }

    /// <inheritdoc/>
    public Task<TResult> WhenAsync<T, TResult>(IReadOnlyList<ClusterAcquirable<T>> cowns, Func<IReadOnlyList<T>, Task<TResult>> body)
        where T : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        return Spawn(cowns, body);
    }

    private Task<TResult> Spawn<T1, TResult>(ClusterAcquirable<T1> c1, Func<T1, Task<TResult>> body)
        where T1 : class, new()
    {
        var plan = new SpawnPlan(this);
        plan.Add(c1, nameof(c1));
        plan.Build();
        return RunAsync(plan, () => body(plan.Arg<T1>(0)));
    }

    private Task<TResult> Spawn<T1, T2, TResult>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Func<T1, T2, Task<TResult>> body)
        where T1 : class, new()
        where T2 : class, new()
    {
        var plan = new SpawnPlan(this);
        plan.Add(c1, nameof(c1));
        plan.Add(c2, nameof(c2));
        plan.Build();
        return RunAsync(plan, () => body(plan.Arg<T1>(0), plan.Arg<T2>(1)));
    }

    private Task<TResult> Spawn<T1, T2, T3, TResult>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, ClusterAcquirable<T3> c3, Func<T1, T2, T3, Task<TResult>> body)
        where T1 : class, new()
        where T2 : class, new()
        where T3 : class, new()
    {
        var plan = new SpawnPlan(this);
        plan.Add(c1, nameof(c1));
        plan.Add(c2, nameof(c2));
        plan.Add(c3, nameof(c3));
        plan.Build();
        return RunAsync(plan, () => body(plan.Arg<T1>(0), plan.Arg<T2>(1), plan.Arg<T3>(2)));
    }

    private Task<TResult> Spawn<T, TResult>(IReadOnlyList<ClusterAcquirable<T>> cowns, Func<IReadOnlyList<T>, Task<TResult>> body)
        where T : class, new()
    {
        var plan = new SpawnPlan(this);
        plan.AddAll(cowns, nameof(cowns));
        plan.Build();
        return RunAsync(plan, () => body(plan.Args<T>()));
    }
}
