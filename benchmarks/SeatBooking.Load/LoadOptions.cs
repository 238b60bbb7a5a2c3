using System.Globalization;

namespace SeatBooking.Load;

/// <summary>The command line of the load generator (see Program.cs for what each option does).</summary>
internal sealed record LoadOptions
{
    public const string Usage =
        "usage: [--clients N[,N…]] [--seconds S>0] [--warmup S>=0] [--warmup-max S>=warmup] [--runs N>0] [--impl boc,boc-scheduler,lock,channel] "
        + "[--contended] [--hot-seats N>0] [--hot-share 0-100] [--pricing-us N>=0] [--deadline-ms N>=0] [--seed N] [--in-process]";

    private static readonly string[] KnownImplementations = ["boc", "boc-scheduler", "lock", "channel"];

    public required IReadOnlyList<int> Clients { get; init; }

    public required double Seconds { get; init; }

    /// <summary>Gets the shortest warm-up, in seconds; it goes on while the service's JIT is busy.</summary>
    public required double Warmup { get; init; }

    /// <summary>Gets the longest warm-up, in seconds, however busy the JIT still is.</summary>
    public required double WarmupMax { get; init; }

    /// <summary>Gets the JIT rate (methods compiled in one second) below which, two seconds in a row, the service is warm.</summary>
    public int JitQuietPerSecond { get; init; } = 20;

    public required int Runs { get; init; }

    public required IReadOnlyList<string> Implementations { get; init; }

    /// <summary>Gets whether bookings favour a hot set of seats (and pricing defaults to 20 µs).</summary>
    public required bool Contended { get; init; }

    /// <summary>Gets how many seats (the first ones) are hot, in contended mode.</summary>
    public required int HotSeats { get; init; }

    /// <summary>Gets the percentage of bookings that take their seats from the hot set, in contended mode.</summary>
    public required int HotShare { get; init; }

    /// <summary>Gets the pricing work inside each booking's critical section, in microseconds.</summary>
    public required int PricingMicroseconds { get; init; }

    /// <summary>
    /// Gets the request deadline the service is started with, in milliseconds, or 0 for the service's default. With a
    /// deadline, a 503 answer to a booking or a cancellation is a timed-out request (not an error), and the run reports
    /// how far past the deadline those answers came (the overshoot).
    /// </summary>
    public required int DeadlineMilliseconds { get; init; }

    public required int Seed { get; init; }

    /// <summary>Gets whether the service runs in this process (quick, for CI) rather than in one of its own per run.</summary>
    public required bool InProcess { get; init; }

    public static LoadOptions Parse(string[] args)
    {
        var known = new HashSet<string>(StringComparer.Ordinal)
        {
            "--clients", "--seconds", "--warmup", "--warmup-max", "--runs", "--impl", "--hot-seats", "--hot-share", "--pricing-us", "--deadline-ms", "--seed",
        };
        for (int i = 0; i < args.Length; i++)
        {
            if (args[i] is "--contended" or "--in-process")
            {
                continue;
            }

            if (!known.Contains(args[i]) || i + 1 >= args.Length)
            {
                throw new FormatException($"unknown option or missing value: {args[i]}");
            }

            i++;
        }

        bool contended = args.Contains("--contended");
        var options = new LoadOptions
        {
            Clients = Option(args, "--clients", "16").Split(',').Select(Int).ToArray(),
            Seconds = Double(Option(args, "--seconds", "5")),
            Warmup = Double(Option(args, "--warmup", "5")),
            WarmupMax = Double(Option(args, "--warmup-max", "60")),
            Runs = Int(Option(args, "--runs", "1")),
            Implementations = Option(args, "--impl", "boc,boc-scheduler,lock,channel").Split(',', StringSplitOptions.RemoveEmptyEntries),
            Contended = contended,
            HotSeats = Int(Option(args, "--hot-seats", "10")),
            HotShare = Int(Option(args, "--hot-share", "90")),
            PricingMicroseconds = Int(Option(args, "--pricing-us", contended ? "20" : "0")),
            DeadlineMilliseconds = Int(Option(args, "--deadline-ms", "0")),
            Seed = Int(Option(args, "--seed", "1")),
            InProcess = args.Contains("--in-process"),
        };

        if (options.Clients.Any(c => c < 1) || options.Seconds <= 0 || options.Warmup < 0 || options.WarmupMax < options.Warmup || options.Runs < 1
            || options.Implementations.Count == 0 || options.Implementations.Any(i => !KnownImplementations.Contains(i))
            || options.Implementations.Distinct().Count() != options.Implementations.Count
            || options.HotSeats < 4 || options.HotShare is < 0 or > 100 || options.PricingMicroseconds < 0 || options.DeadlineMilliseconds < 0)
        {
            throw new FormatException("an option is out of range (hot seats must be at least 4, the most seats a client books at once)");
        }

        return options;
    }

    private static string Option(string[] args, string name, string fallback)
    {
        int i = Array.IndexOf(args, name);
        return i >= 0 && i + 1 < args.Length ? args[i + 1] : fallback;
    }

    private static int Int(string text) =>
        int.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out int value) ? value : throw new FormatException($"not an integer: {text}");

    private static double Double(string text) =>
        double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out double value) ? value : throw new FormatException($"not a number: {text}");
}
