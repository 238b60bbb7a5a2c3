using System.Diagnostics;
using System.Runtime.CompilerServices;
using Boc.ModelTests.Exploration;

[assembly: CollectionBehavior(DisableTestParallelization = true)]

namespace Boc.ModelTests.Support;

/// <summary>
/// The runtime's debug checks (protocol transitions, pool stamps, Debug.Assert), which this assembly compiles in, fail a
/// model run instead of ending the process: a failed check throws, and is recorded as the failure of the controlled
/// thread that made it even if the runtime's own handlers catch the exception (a body's failure is reported, not thrown).
/// </summary>
internal static class DebugChecks
{
    [ModuleInitializer]
    internal static void Install()
    {
        Trace.Listeners.Clear();
        Trace.Listeners.Add(new FailingListener());
    }

    private sealed class FailingListener : TraceListener
    {
        public override void Fail(string? message, string? detailMessage)
        {
            var failure = new DebugCheckFailedException(message ?? "a debug check failed");
            if (ModelPoints.Current is ControlledThread thread)
            {
                thread.ReportFailure(failure);
            }

            throw failure;
        }

        public override void Write(string? message)
        {
        }

        public override void WriteLine(string? message)
        {
        }
    }
}

/// <summary>A debug check of the runtime failed during a model run.</summary>
internal sealed class DebugCheckFailedException(string message) : Exception(message);
