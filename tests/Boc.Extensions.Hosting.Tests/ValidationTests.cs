using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace Boc.Extensions.Hosting.Tests;

/// <summary>Bad options fail when the host starts, with the key that holds the bad value in the message.</summary>
public sealed class ValidationTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromSeconds(60);

    [Theory]
    [InlineData("Boc:WorkerCount", "0", typeof(OptionsValidationException))]
    [InlineData("Boc:MaxPendingBehaviours", "-3", typeof(OptionsValidationException))]
    [InlineData("Boc:FullMode", "7", typeof(OptionsValidationException))]
    [InlineData("Boc:Dispatcher", "9", typeof(OptionsValidationException))]
    [InlineData("Boc:WorkerCount", "four", typeof(InvalidOperationException))]
    [InlineData("Boc:Dispatcher", "Fibers", typeof(InvalidOperationException))]
    [InlineData("Boc:MaxPendingBehaviour", "64", typeof(InvalidOperationException))]
    [InlineData("Boc:TimeProvider", "System", typeof(InvalidOperationException))]
    [InlineData("Boc:HealthCheck:FullRatio", "1.5", typeof(OptionsValidationException))]
    [InlineData("Boc:HealthCheck:FailureThreshold", "-1", typeof(OptionsValidationException))]
    [InlineData("Boc:HealthCheck:FailureWindow", "00:00:00", typeof(OptionsValidationException))]
    [InlineData("Boc:HealthCheck:FailureWindw", "00:01:00", typeof(InvalidOperationException))]
    public async Task A_bad_configuration_value_fails_the_start_naming_its_key(string key, string value, Type expected)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?> { [key] = value });
        builder.Services.AddBoc(builder.Configuration.GetSection("Boc"));
        using IHost host = builder.Build();

        Exception error = await Assert.ThrowsAnyAsync<Exception>(() => host.StartAsync().WaitAsync(Limit));
        Exception found = Flatten(error).First(e => expected.IsInstanceOfType(e));
        Assert.Contains(key, found.Message, StringComparison.Ordinal);
        if (key == "Boc:TimeProvider")
        {
            Assert.Contains("TimeProvider and UnhandledExceptionHandler can be set only in code", found.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task A_bad_value_set_in_code_fails_the_start_naming_the_option()
    {
        Assert.Contains("BocRuntimeOptions.WorkerCount", await StartFailure(s => s.AddBoc(o => o.WorkerCount = 0)), StringComparison.Ordinal);
        Assert.Contains(
            "BocHealthCheckOptions.FullRatio",
            await StartFailure(s => s.AddBoc().Configure<BocHealthCheckOptions>(o => o.FullRatio = 0)),
            StringComparison.Ordinal);

        static async Task<string> StartFailure(Action<IServiceCollection> register)
        {
            HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
            register(builder.Services);
            using IHost host = builder.Build();
            Exception error = await Assert.ThrowsAnyAsync<Exception>(() => host.StartAsync().WaitAsync(Limit));
            return string.Join(" | ", Flatten(error).OfType<OptionsValidationException>().Select(e => e.Message));
        }
    }

    [Fact]
    public void A_good_section_with_every_kind_of_value_binds()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Boc:dispatcher"] = "bocscheduler",   // keys and enum names in any case, as the binder reads them
            ["Boc:WorkerCount"] = "2",
            ["Boc:FullMode"] = "Throw",
            ["Boc:HealthCheck:FailureWindow"] = "00:00:30",
            ["Boc:HealthCheck:FullRatio"] = "0.75",
        });
        builder.Services.AddBoc(builder.Configuration.GetSection("Boc"));
        using IHost host = builder.Build();

        BocRuntime runtime = host.Services.GetRequiredService<BocRuntime>();
        BocHealthCheckOptions health = host.Services.GetRequiredService<IOptions<BocHealthCheckOptions>>().Value;
        Assert.Equal(2, Assert.IsType<BocScheduler>(runtime.Scheduler).WorkerCount);
        Assert.Equal(BocFullMode.Throw, host.Services.GetRequiredService<BocRuntimeMonitor>().RuntimeOptions!.FullMode);
        Assert.Equal(TimeSpan.FromSeconds(30), health.FailureWindow);
        Assert.Equal(0.75, health.FullRatio);
    }

    [Fact]
    public void The_section_shown_in_the_hosting_guide_binds_as_it_says()
    {
        string guide = File.ReadAllText(Path.Combine(RepoRoot(), "docs", "guide", "hosting.md"));
        int start = guide.IndexOf("```json", StringComparison.Ordinal) + "```json".Length;
        string json = guide[start..guide.IndexOf("```", start, StringComparison.Ordinal)];
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddJsonStream(new MemoryStream(System.Text.Encoding.UTF8.GetBytes(json)));
        builder.Services.AddBoc(builder.Configuration.GetSection("Boc"));
        using IHost host = builder.Build();

        BocRuntime runtime = host.Services.GetRequiredService<BocRuntime>();
        BocRuntimeOptions given = host.Services.GetRequiredService<BocRuntimeMonitor>().RuntimeOptions!;
        BocHealthCheckOptions health = host.Services.GetRequiredService<IOptions<BocHealthCheckOptions>>().Value;
        Assert.Equal("orders", runtime.Name);
        Assert.Equal((BocDispatcher.ThreadPool, 8, 1000, BocFullMode.Wait, true), (given.Dispatcher, given.WorkerCount, given.MaxPendingBehaviours, given.FullMode, given.TraceBehaviours));
        Assert.Equal((0.9, 5, TimeSpan.FromMinutes(1)), (health.FullRatio, health.FailureThreshold, health.FailureWindow));
    }

    private static string RepoRoot()
    {
        string? directory = AppContext.BaseDirectory;
        while (directory is not null && !File.Exists(Path.Combine(directory, "Boc.sln")))
        {
            directory = Path.GetDirectoryName(directory);
        }

        return directory ?? throw new InvalidOperationException("Boc.sln not found above " + AppContext.BaseDirectory);
    }

    private static IEnumerable<Exception> Flatten(Exception error)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            yield return e;
            if (e is AggregateException aggregate)
            {
                foreach (Exception inner in aggregate.InnerExceptions.SelectMany(Flatten))
                {
                    yield return inner;
                }
            }
        }
    }
}
