using System.Collections.Concurrent;

namespace Boc.ModelTests.Exploration;

/// <summary>
/// The operating-system threads that carry controlled threads, kept across schedules: a model runs thousands of
/// schedules of two or three threads each, and a thread start costs more than a whole small schedule.
/// </summary>
internal static class ModelThreadPool
{
    private static readonly BlockingCollection<Action> s_work = [];
    private static int s_threads;
    private static int s_idle;

    /// <summary>Runs <paramref name="work"/> on a pooled thread (starting one if none is idle).</summary>
    public static void Run(Action work)
    {
        if (Interlocked.Decrement(ref s_idle) < 0)
        {
            Interlocked.Increment(ref s_idle);
            Start();
        }

        s_work.Add(work);
    }

    private static void Start()
    {
        int index = Interlocked.Increment(ref s_threads);
        using (ExecutionContext.SuppressFlow())
        {
            new Thread(Loop) { IsBackground = true, Name = $"Boc model thread {index}" }.Start();
        }
    }

    private static void Loop()
    {
        foreach (Action work in s_work.GetConsumingEnumerable())
        {
            work();
            Interlocked.Increment(ref s_idle);
        }
    }
}
