namespace Boc.Tests;

/// <summary>
/// The worker loop reads a thread's contexts from its <see cref="Thread"/> object (ThreadContextFields) instead of through
/// the public thread-static APIs: the reads must be available on the runtimes the library targets, and agree with the
/// public APIs at every step a worker relies on.
/// </summary>
public sealed class ThreadContextFieldsTests
{
    private static readonly AsyncLocal<int> s_local = new();

    [Fact]
    public void TheFieldsAreAvailable_AndTrackThePublicContexts()
    {
        // Captured on a thread started without the caller's context, as a worker is: the default context.
        ExecutionContext? clean = null;
        var results = new List<string>();
        var thread = new Thread(() =>
        {
            Thread me = Thread.CurrentThread;
            clean = ExecutionContext.Capture();
            Check(ThreadContextFields.Available(me), "fields available");
            Check(ThreadContextFields.ExecutionContextOf(me) is null, "a fresh thread's context field is null");

            s_local.Value = 42;
            Check(ThreadContextFields.ExecutionContextOf(me) is not null, "an AsyncLocal set makes it non-null");
            Check(!ReferenceEquals(ExecutionContext.Capture(), clean), "and Capture no longer returns the default");

            ExecutionContext.Restore(clean!);
            Check(ThreadContextFields.ExecutionContextOf(me) is null, "Restore of the default context clears it");
            Check(s_local.Value == 0, "and the AsyncLocal is gone");

            var context = new SynchronizationContext();
            SynchronizationContext.SetSynchronizationContext(context);
            Check(ReferenceEquals(ThreadContextFields.SynchronizationContextOf(me), context), "the synchronization context field follows Set");
            SynchronizationContext.SetSynchronizationContext(null);
            Check(ThreadContextFields.SynchronizationContextOf(me) is null, "and its clearing");
        });
        thread.UnsafeStart();
        thread.Join();

        Assert.Empty(results);

        void Check(bool condition, string what)
        {
            if (!condition)
            {
                lock (results)
                {
                    results.Add(what);
                }
            }
        }
    }
}
