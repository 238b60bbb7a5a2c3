namespace Boc.Orleans;

// The WhenAsync overloads: validate every argument and build the plan before anything is sent, then run it.
public sealed partial class BocCluster
{
    /// <inheritdoc/>
    public Task WhenAsync<T1>(ClusterAcquirable<T1> c1, Action<T1> body)
        where T1 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        var plan = new SpawnPlan(this);
        plan.Add(c1, nameof(c1));
        plan.Build();
        return RunAsync<object?>(plan, () =>
        {
            body(plan.Arg<T1>(0));
            return Task.FromResult<object?>(null);
        });
    }

    /// <inheritdoc/>
    public Task<TResult> WhenAsync<T1, TResult>(ClusterAcquirable<T1> c1, Func<T1, TResult> body)
        where T1 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        var plan = new SpawnPlan(this);
        plan.Add(c1, nameof(c1));
        plan.Build();
        return RunAsync(plan, () => Task.FromResult(body(plan.Arg<T1>(0))));
    }

    /// <inheritdoc/>
    public Task WhenAsync<T1>(ClusterAcquirable<T1> c1, Func<T1, Task> body)
        where T1 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        var plan = new SpawnPlan(this);
        plan.Add(c1, nameof(c1));
        plan.Build();
        return RunAsync<object?>(plan, async () =>
        {
            await body(plan.Arg<T1>(0)).ConfigureAwait(true);
            return null;
        });
    }

    /// <inheritdoc/>
    public Task<TResult> WhenAsync<T1, TResult>(ClusterAcquirable<T1> c1, Func<T1, Task<TResult>> body)
        where T1 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        var plan = new SpawnPlan(this);
        plan.Add(c1, nameof(c1));
        plan.Build();
        return RunAsync(plan, () => body(plan.Arg<T1>(0)));
    }

    /// <inheritdoc/>
    public Task WhenAsync<T1, T2>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Action<T1, T2> body)
        where T1 : class, new()
        where T2 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        var plan = new SpawnPlan(this);
        plan.Add(c1, nameof(c1));
        plan.Add(c2, nameof(c2));
        plan.Build();
        return RunAsync<object?>(plan, () =>
        {
            body(plan.Arg<T1>(0), plan.Arg<T2>(1));
            return Task.FromResult<object?>(null);
        });
    }

    /// <inheritdoc/>
    public Task<TResult> WhenAsync<T1, T2, TResult>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Func<T1, T2, TResult> body)
        where T1 : class, new()
        where T2 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        var plan = new SpawnPlan(this);
        plan.Add(c1, nameof(c1));
        plan.Add(c2, nameof(c2));
        plan.Build();
        return RunAsync(plan, () => Task.FromResult(body(plan.Arg<T1>(0), plan.Arg<T2>(1))));
    }

    /// <inheritdoc/>
    public Task WhenAsync<T1, T2>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Func<T1, T2, Task> body)
        where T1 : class, new()
        where T2 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        var plan = new SpawnPlan(this);
        plan.Add(c1, nameof(c1));
        plan.Add(c2, nameof(c2));
        plan.Build();
        return RunAsync<object?>(plan, async () =>
        {
            await body(plan.Arg<T1>(0), plan.Arg<T2>(1)).ConfigureAwait(true);
            return null;
        });
    }

    /// <inheritdoc/>
    public Task<TResult> WhenAsync<T1, T2, TResult>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Func<T1, T2, Task<TResult>> body)
        where T1 : class, new()
        where T2 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        var plan = new SpawnPlan(this);
        plan.Add(c1, nameof(c1));
        plan.Add(c2, nameof(c2));
        plan.Build();
        return RunAsync(plan, () => body(plan.Arg<T1>(0), plan.Arg<T2>(1)));
    }

    /// <inheritdoc/>
    public Task WhenAsync<T1, T2, T3>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, ClusterAcquirable<T3> c3, Action<T1, T2, T3> body)
        where T1 : class, new()
        where T2 : class, new()
        where T3 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        var plan = new SpawnPlan(this);
        plan.Add(c1, nameof(c1));
        plan.Add(c2, nameof(c2));
        plan.Add(c3, nameof(c3));
        plan.Build();
        return RunAsync<object?>(plan, () =>
        {
            body(plan.Arg<T1>(0), plan.Arg<T2>(1), plan.Arg<T3>(2));
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
        var plan = new SpawnPlan(this);
        plan.Add(c1, nameof(c1));
        plan.Add(c2, nameof(c2));
        plan.Add(c3, nameof(c3));
        plan.Build();
        return RunAsync(plan, () => Task.FromResult(body(plan.Arg<T1>(0), plan.Arg<T2>(1), plan.Arg<T3>(2))));
    }

    /// <inheritdoc/>
    public Task WhenAsync<T1, T2, T3>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, ClusterAcquirable<T3> c3, Func<T1, T2, T3, Task> body)
        where T1 : class, new()
        where T2 : class, new()
        where T3 : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        var plan = new SpawnPlan(this);
        plan.Add(c1, nameof(c1));
        plan.Add(c2, nameof(c2));
        plan.Add(c3, nameof(c3));
        plan.Build();
        return RunAsync<object?>(plan, async () =>
        {
            await body(plan.Arg<T1>(0), plan.Arg<T2>(1), plan.Arg<T3>(2)).ConfigureAwait(true);
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
        var plan = new SpawnPlan(this);
        plan.Add(c1, nameof(c1));
        plan.Add(c2, nameof(c2));
        plan.Add(c3, nameof(c3));
        plan.Build();
        return RunAsync(plan, () => body(plan.Arg<T1>(0), plan.Arg<T2>(1), plan.Arg<T3>(2)));
    }

    /// <inheritdoc/>
    public Task WhenAsync<T>(IReadOnlyList<ClusterAcquirable<T>> cowns, Action<IReadOnlyList<T>> body)
        where T : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        var plan = new SpawnPlan(this);
        plan.AddAll(cowns, nameof(cowns));
        plan.Build();
        return RunAsync<object?>(plan, () =>
        {
            body(plan.Args<T>());
            return Task.FromResult<object?>(null);
        });
    }

    /// <inheritdoc/>
    public Task<TResult> WhenAsync<T, TResult>(IReadOnlyList<ClusterAcquirable<T>> cowns, Func<IReadOnlyList<T>, TResult> body)
        where T : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        var plan = new SpawnPlan(this);
        plan.AddAll(cowns, nameof(cowns));
        plan.Build();
        return RunAsync(plan, () => Task.FromResult(body(plan.Args<T>())));
    }

    /// <inheritdoc/>
    public Task WhenAsync<T>(IReadOnlyList<ClusterAcquirable<T>> cowns, Func<IReadOnlyList<T>, Task> body)
        where T : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        var plan = new SpawnPlan(this);
        plan.AddAll(cowns, nameof(cowns));
        plan.Build();
        return RunAsync<object?>(plan, async () =>
        {
            await body(plan.Args<T>()).ConfigureAwait(true);
            return null;
        });
    }

    /// <inheritdoc/>
    public Task<TResult> WhenAsync<T, TResult>(IReadOnlyList<ClusterAcquirable<T>> cowns, Func<IReadOnlyList<T>, Task<TResult>> body)
        where T : class, new()
    {
        ArgumentNullException.ThrowIfNull(body);
        var plan = new SpawnPlan(this);
        plan.AddAll(cowns, nameof(cowns));
        plan.Build();
        return RunAsync(plan, () => body(plan.Args<T>()));
    }
}
