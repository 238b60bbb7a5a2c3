using System.Globalization;

#pragma warning disable CA1050 // The runtime finds a startup hook by this exact name, in no namespace.

/// <summary>
/// Loaded into the service process by <c>DOTNET_STARTUP_HOOKS</c> (ServiceProcess): reports how many methods its JIT
/// has compiled, four times a second, so that the load generator can warm the service up until the JIT is done.
/// </summary>
/// <remarks>
/// Tiered compilation keeps a freshly started ASP.NET service compiling for several seconds under load on 2 cores (500
/// to 1,000 methods a second for 6-7 s in the seat-booking service, at about half its steady throughput). A fixed
/// 2 s warm-up measured mostly that, and Boc, with more generic code to compile, came out slower than it is.
/// </remarks>
internal static class StartupHook
{
    /// <summary>The prefix of the lines this hook writes; <see cref="SeatBooking.Load.ServiceProcess"/> parses them.</summary>
    public const string Prefix = "seat-booking-load: compiled methods ";

    /// <summary>Called by the runtime before the service's Main.</summary>
    public static void Initialize()
    {
        var reporter = new Thread(() =>
        {
            while (true)
            {
                Console.Out.WriteLine(Prefix + System.Runtime.JitInfo.GetCompiledMethodCount().ToString(CultureInfo.InvariantCulture));
                Thread.Sleep(250);
            }
        })
        {
            IsBackground = true,
            Name = "JIT count reporter",
        };
        reporter.Start();
    }
}
