using System.Diagnostics;
using System.Globalization;
using System.Net.Http.Json;
using System.Runtime.CompilerServices;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using SeatBooking.Venue;

namespace SeatBooking.Load;

/// <summary>The outcome of one run: one implementation, one client count, one seed.</summary>
/// <remarks>
/// <paramref name="WarmupSeconds"/>: how long the warm-up lasted; <paramref name="JitMethodsMeasured"/>: methods the
/// service's JIT compiled during the measured window (in process, this process's, clients included), or -1 if the
/// service never reported its count; <paramref name="CpuMicrosecondsPerRequest"/>: the service process's processor time
/// (user and kernel, all threads) in the measured window over the requests measured (in process, clients included);
/// <paramref name="TimedOut"/>, <paramref name="OvershootP50"/>, <paramref name="OvershootP99"/>: with a deadline, the
/// measured requests answered 503 and how long after their deadline the answers came, in milliseconds.
/// </remarks>
internal sealed record RunResult(
    double RequestsPerSecond,
    double P50,
    double P99,
    long Booked,
    long Refused,
    long Errors,
    Audit Audit,
    double WarmupSeconds,
    long JitMethodsMeasured,
    double CpuMicrosecondsPerRequest,
    long TimedOut,
    double OvershootP50,
    double OvershootP99)
{
    /// <summary>Gets whether every response was one the service may give and the venue added up afterwards.</summary>
    public bool Good => Errors == 0 && Audit.Consistent;
}

/// <summary>One run: start the service, drive it with the clients, audit it, stop it.</summary>
internal static class LoadRun
{
    public static async Task<RunResult> RunAsync(LoadOptions options, string implementation, int clients, int seed)
    {
        // "boc" is the sample as it ships: the dispatcher is AddBoc's default (the thread pool). "boc-scheduler" is the
        // same service on the runtime's own BocScheduler workers.
        List<string> settings =
        [
            "--Venue:Implementation", implementation.Split('-')[0],
            "--Venue:PricingMicroseconds", options.PricingMicroseconds.ToString(CultureInfo.InvariantCulture),
            "--Logging:LogLevel:Default", "Warning",
        ];
        if (implementation == "boc-scheduler")
        {
            settings.AddRange(["--Boc:Dispatcher", "BocScheduler"]);
        }

        if (options.DeadlineMilliseconds > 0)
        {
            settings.AddRange(["--Venue:RequestTimeoutMilliseconds", options.DeadlineMilliseconds.ToString(CultureInfo.InvariantCulture)]);
        }

        await using IServiceUnderTest service = options.InProcess
            ? await InProcessService.StartAsync(settings)
            : await ServiceProcess.StartAsync(settings);

        using var handler = new SocketsHttpHandler { MaxConnectionsPerServer = clients, PooledConnectionLifetime = Timeout.InfiniteTimeSpan };
        using var http = new HttpClient(handler) { BaseAddress = service.Address };
        var venue = new VenueOptions();
        var clock = Stopwatch.StartNew();
        var window = new MeasurementWindow();
        LoadClient[] workers = Enumerable.Range(0, clients)
            .Select(i => new LoadClient(http, venue, options, new Random((seed * 1000) + i), clock, window))
            .ToArray();
        Task clientsDone = Task.WhenAll(workers.Select(w => Task.Run(w.RunAsync)));

        double warmup = await WarmUpAsync(options, service, clock);
        long from = clock.ElapsedTicks;
        window.Open(from, from + (long)(options.Seconds * Stopwatch.Frequency));
        long jitAtStart = service.CompiledMethods;
        TimeSpan cpuAtStart = service.ProcessorTime;
        await clientsDone;
        long jitMeasured = jitAtStart < 0 ? -1 : service.CompiledMethods - jitAtStart;
        TimeSpan cpu = service.ProcessorTime - cpuAtStart;

        long[] latencies = workers.SelectMany(w => w.Latencies).Order().ToArray();
        long deadlineTicks = options.DeadlineMilliseconds * Stopwatch.Frequency / 1000;
        long[] overshoots = workers.SelectMany(w => w.TimedOut).Select(t => Math.Max(0, t - deadlineTicks)).Order().ToArray();
        Audit audit = (await http.GetFromJsonAsync<Audit>("/audit"))!;
        return new RunResult(
            latencies.Length / options.Seconds,
            Percentile(latencies, 0.50),
            Percentile(latencies, 0.99),
            workers.Sum(w => w.Booked),
            workers.Sum(w => w.Refused),
            workers.Sum(w => w.Errors),
            audit,
            warmup,
            jitMeasured,
            latencies.Length == 0 ? 0 : cpu.TotalMicroseconds / latencies.Length,
            overshoots.Length,
            Percentile(overshoots, 0.50),
            Percentile(overshoots, 0.99));
    }

    /// <summary>
    /// Drives the warm-up: at least <see cref="LoadOptions.Warmup"/> seconds, then on until the service's JIT compiled
    /// fewer than <see cref="LoadOptions.JitQuietPerSecond"/> methods in each of two seconds in a row (tiered
    /// compilation is done with the paths the load uses; one quiet second can fall between two waves of it), or
    /// <see cref="LoadOptions.WarmupMax"/> seconds have passed. Returns its length in seconds.
    /// </summary>
    private static async Task<double> WarmUpAsync(LoadOptions options, IServiceUnderTest service, Stopwatch clock)
    {
        await Task.Delay(TimeSpan.FromSeconds(options.Warmup));
        long last = service.CompiledMethods;
        int quietSeconds = 0;
        while (quietSeconds < 2 && clock.Elapsed.TotalSeconds < options.WarmupMax)
        {
            await Task.Delay(TimeSpan.FromSeconds(Math.Min(1, options.WarmupMax - clock.Elapsed.TotalSeconds)));
            long now = service.CompiledMethods;
            quietSeconds = now - last < options.JitQuietPerSecond ? quietSeconds + 1 : 0;
            last = now;
        }

        return clock.Elapsed.TotalSeconds;
    }

    private static double Percentile(long[] sorted, double p) =>
        sorted.Length == 0 ? 0 : sorted[Math.Min(sorted.Length - 1, (int)Math.Ceiling(p * sorted.Length) - 1)] * 1000.0 / Stopwatch.Frequency;
}

/// <summary>A running seat-booking service and the address it listens on.</summary>
internal interface IServiceUnderTest : IAsyncDisposable
{
    Uri Address { get; }

    /// <summary>Gets how many methods the service's JIT has compiled so far (as last reported).</summary>
    long CompiledMethods { get; }

    /// <summary>Gets the processor time the service's process has used so far.</summary>
    TimeSpan ProcessorTime { get; }
}

/// <summary>The service hosted in this process (quick; clients and server share the thread pool).</summary>
internal sealed class InProcessService(WebApplication app, Uri address) : IServiceUnderTest
{
    public Uri Address { get; } = address;

    /// <summary>This process's count: the service shares it with the clients here.</summary>
    public long CompiledMethods => System.Runtime.JitInfo.GetCompiledMethodCount();

    public TimeSpan ProcessorTime
    {
        get
        {
            using var self = Process.GetCurrentProcess();
            return self.TotalProcessorTime;
        }
    }

    public static async Task<IServiceUnderTest> StartAsync(IEnumerable<string> settings)
    {
        WebApplication app = SeatBookingApp.Create(["--urls", "http://127.0.0.1:0", .. settings]);
        await app.StartAsync();
        string address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.Single();
        return new InProcessService(app, new Uri(address));
    }

    public async ValueTask DisposeAsync()
    {
        await app.StopAsync();
        await app.DisposeAsync();
    }
}

/// <summary>
/// The service in a process of its own: the sample's build (copied beside this tool by the project reference), started
/// with <c>dotnet SeatBooking.dll</c> on a free loopback port, which it reports on its console. This tool's assembly
/// goes in as a startup hook (<see cref="StartupHook"/>), which reports the service's JIT count on the same console.
/// </summary>
internal sealed class ServiceProcess(Process process, Uri address, StrongBox<long> compiledMethods) : IServiceUnderTest
{
    private static readonly TimeSpan StartLimit = TimeSpan.FromSeconds(60);

    public Uri Address { get; } = address;

    public long CompiledMethods => Volatile.Read(ref compiledMethods.Value);

    public TimeSpan ProcessorTime
    {
        get
        {
            process.Refresh();
            return process.TotalProcessorTime;
        }
    }

    public static async Task<IServiceUnderTest> StartAsync(IEnumerable<string> settings)
    {
        string dll = Path.Combine(AppContext.BaseDirectory, "SeatBooking.dll");
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = AppContext.BaseDirectory,
        };
        start.Environment["DOTNET_STARTUP_HOOKS"] = typeof(StartupHook).Assembly.Location;
        var compiled = new StrongBox<long>(-1);
        foreach (string argument in (IEnumerable<string>)[dll, "--urls", "http://127.0.0.1:0", .. settings, "--Logging:LogLevel:Microsoft.Hosting.Lifetime", "Information"])
        {
            start.ArgumentList.Add(argument);
        }

        Process process = Process.Start(start) ?? throw new InvalidOperationException("could not start the service process");
        var listening = new TaskCompletionSource<Uri>(TaskCreationOptions.RunContinuationsAsynchronously);
        var output = new System.Collections.Concurrent.ConcurrentQueue<string>();
        process.OutputDataReceived += (_, e) => OnLine(e.Data);
        process.ErrorDataReceived += (_, e) => OnLine(e.Data);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        process.EnableRaisingEvents = true;
        process.Exited += (_, _) => listening.TrySetException(new InvalidOperationException(
            $"the service process exited ({process.ExitCode}) before it listened:{Environment.NewLine}{string.Join(Environment.NewLine, output)}"));
        try
        {
            Uri address = await listening.Task.WaitAsync(StartLimit);
            return new ServiceProcess(process, address, compiled);
        }
        catch
        {
            process.Kill(entireProcessTree: true);
            process.Dispose();
            throw;
        }

        void OnLine(string? line)
        {
            if (line is null)
            {
                return;
            }

            if (line.StartsWith(StartupHook.Prefix, StringComparison.Ordinal))
            {
                Volatile.Write(ref compiled.Value, long.Parse(line.AsSpan(StartupHook.Prefix.Length), CultureInfo.InvariantCulture));
                return;
            }

            output.Enqueue(line);
            const string Marker = "Now listening on: ";
            int at = line.IndexOf(Marker, StringComparison.Ordinal);
            if (at >= 0)
            {
                listening.TrySetResult(new Uri(line[(at + Marker.Length)..].Trim()));
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        process.Kill(entireProcessTree: true);
        await process.WaitForExitAsync();
        process.Dispose();
    }
}
