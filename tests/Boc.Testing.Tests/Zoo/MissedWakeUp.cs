namespace Boc.Testing.Tests.Zoo;

/// <summary>
/// A missed wake-up built from a flag: the consumer checks the flag in one behaviour and registers to be woken in a
/// later one. If the producer sets the flag in between, it finds no one to wake, and the consumer waits forever.
/// </summary>
internal static class MissedWakeUp
{
    public static ZooCase Case { get; } = new(nameof(MissedWakeUp), Buggy, Fixed, BocTestFailureKind.Deadlock);

    private static async Task Buggy(BocRuntime rt)
    {
        var flag = new Cown<Signal>(new Signal());
        StartProducer(rt, flag);
        bool set = await rt.WhenAsync(flag, f => f.IsSet);
        if (!set)
        {
            var woken = new TaskCompletionSource();
            await rt.WhenAsync(flag, f => f.Waiter = woken);
            await woken.Task;
        }
    }

    // The fix: check and register in the same behaviour.
    private static async Task Fixed(BocRuntime rt)
    {
        var flag = new Cown<Signal>(new Signal());
        StartProducer(rt, flag);
        TaskCompletionSource? registered = await rt.WhenAsync(flag, f =>
        {
            if (f.IsSet)
            {
                return null;
            }

            f.Waiter = new TaskCompletionSource();
            return f.Waiter;
        });
        if (registered is not null)
        {
            await registered.Task;
        }
    }

    private static void StartProducer(BocRuntime rt, Cown<Signal> flag)
    {
        var producer = new Cown<Box>(new Box());
        rt.When(producer, _ => rt.When(flag, f =>
        {
            f.IsSet = true;
            f.Waiter?.TrySetResult();
        }));
    }

    private sealed class Signal
    {
        public bool IsSet { get; set; }

        public TaskCompletionSource? Waiter { get; set; }
    }
}
