using System.Runtime.InteropServices;

namespace Boc.AnalyzerCost;

/// <summary>
/// The CPU time (user + system) of this process's terminated and waited-for children and their descendants, from
/// getrusage(RUSAGE_CHILDREN): the difference across one build is the CPU of the build's whole process tree, whatever
/// else runs on the machine. Linux and macOS.
/// </summary>
internal static class ChildCpu
{
    private const int RusageChildren = -1;

    public static TimeSpan Total()
    {
        if (GetRUsage(RusageChildren, out RUsage usage) != 0)
        {
            throw new InvalidOperationException($"getrusage failed: {Marshal.GetLastPInvokeError()}");
        }

        return Time(usage.UserTime) + Time(usage.SystemTime);
    }

    private static TimeSpan Time(TimeValue value) => TimeSpan.FromSeconds(value.Seconds) + TimeSpan.FromMicroseconds(value.Microseconds);

    // DllImport, not LibraryImport: the in-repo code test compiles this project without source generators.
    [DllImport("libc", EntryPoint = "getrusage", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    private static extern int GetRUsage(int who, out RUsage usage);

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeValue
    {
        public long Seconds;
        public long Microseconds;
    }

    // struct rusage on 64-bit Linux and macOS: two timevals, then fourteen longs.
    [StructLayout(LayoutKind.Sequential)]
    private struct RUsage
    {
        public TimeValue UserTime;
        public TimeValue SystemTime;
        public long MaxResidentSet;
        public long SharedMemory;
        public long UnsharedData;
        public long UnsharedStack;
        public long MinorFaults;
        public long MajorFaults;
        public long Swaps;
        public long BlockInputs;
        public long BlockOutputs;
        public long MessagesSent;
        public long MessagesReceived;
        public long Signals;
        public long VoluntarySwitches;
        public long InvoluntarySwitches;
    }
}
