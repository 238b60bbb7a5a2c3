using Microsoft.CodeAnalysis;
using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// The mutability model's list of BCL types that are immutable or safe to use from several threads at once, and the
/// two ways users extend it (an attribute on their own types, an <c>.editorconfig</c> list for anyone's types).
/// </summary>
public class ShareableTypesTests
{
    private static readonly MetadataReference[] s_logging =
        [MetadataReference.CreateFromFile(typeof(Microsoft.Extensions.Logging.ILogger).Assembly.Location)];

    [Fact]
    public Task Does_not_flag_static_readonly_http_client_regex_and_json_options() => VerifyAsync("""
        using System.Net.Http;
        using System.Text.Json;
        using System.Text.RegularExpressions;

        class C
        {
            static readonly HttpClient s_http = new() { Timeout = TimeSpan.FromSeconds(5) };
            static readonly Regex s_words = new(@"\w+", RegexOptions.Compiled);
            static readonly JsonSerializerOptions s_json = new() { WriteIndented = true };

            void M(Cown<Account> c) => When(c, async a =>
            {
                a.Counter = s_words.Matches(a.Details.Name).Count;
                a.Details.Name = JsonSerializer.Serialize(a.Balance, s_json);
                a.Log.Add(await s_http.GetStringAsync("http://localhost/"));
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_generated_regex_and_frozen_collections_of_immutables() => VerifyAsync("""
        using System.Collections.Frozen;
        using System.Text.RegularExpressions;

        partial class C
        {
            static readonly FrozenDictionary<string, int> s_limits = new Dictionary<string, int> { ["a"] = 1 }.ToFrozenDictionary();
            static readonly FrozenSet<string> s_vip = new[] { "x" }.ToFrozenSet();

            [GeneratedRegex("^[a-z]+$")]
            private static partial Regex Word();

            void M(Cown<Account> c)
            {
                var local = s_limits;
                When(c, a =>
                {
                    a.Counter = local["a"] + s_limits.Count;
                    if (s_vip.Contains(a.Details.Name) && Word().IsMatch(a.Details.Name))
                    {
                        a.Balance++;
                    }
                });
                Console.WriteLine(local.Count);
            }
        }

        partial class C
        {
            private static partial Regex Word() => new("^[a-z]+$");
        }
        """);

    [Fact]
    public Task Does_not_flag_shared_random_pools_time_provider_and_encoding() => VerifyAsync("""
        using System.Buffers;

        class C
        {
            static readonly Random s_random = Random.Shared;
            static readonly ArrayPool<byte> s_pool = ArrayPool<byte>.Shared;
            static readonly Encoding s_utf8 = Encoding.UTF8;

            void M(Cown<Account> c, TimeProvider clock)
            {
                var rng = Random.Shared;
                When(c, a =>
                {
                    byte[] buffer = s_pool.Rent(16);
                    a.Counter = s_utf8.GetBytes(a.Details.Name, buffer);
                    s_pool.Return(buffer);
                    a.Balance = s_random.Next() + rng.Next() + Random.Shared.Next() + clock.GetUtcNow().Second;
                    a.Details.Name = ArrayPool<char>.Shared.GetHashCode().ToString();
                });
                Console.WriteLine(rng.Next());
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_loggers() => VerifyAsync("""
        using Microsoft.Extensions.Logging;

        sealed class Teller(ILogger<Teller> logger, ILoggerFactory factory)
        {
            private readonly ILogger<Teller> _logger = logger;

            public void M(Cown<Account> c) => When(c, a =>
            {
                _logger.LogInformation("balance {Balance}", a.Balance);
                factory.CreateLogger("x").LogDebug("done");
            });
        }
        """, editorConfig: null, extra: s_logging);

    [Fact]
    public Task Flags_mutable_instances_of_listed_types_and_frozen_collections_of_mutables() => VerifyAsync("""
        using System.Collections.Frozen;
        using System.Net.Http;

        class C
        {
            static HttpClient s_http = new();
            static readonly Random s_random = new(42);
            static readonly FrozenDictionary<string, List<int>> s_lists = new Dictionary<string, List<int>>().ToFrozenDictionary();

            void M(Cown<Account> c) => When(c, a =>
            {
                a.Balance = {|BOC103:s_random|}.Next() + {|BOC103:s_lists|}["x"].Count;
                a.Details.Name = {|BOC103:s_http|}.BaseAddress?.ToString() ?? "";
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_types_marked_with_an_immutable_or_thread_safe_attribute() => VerifyAsync("""
        namespace Contracts
        {
            [AttributeUsage(AttributeTargets.Class | AttributeTargets.Struct | AttributeTargets.Interface)]
            sealed class ImmutableAttribute : Attribute { }

            [AttributeUsage(AttributeTargets.Class)]
            sealed class ThreadSafeAttribute : Attribute { }
        }

        [Contracts.Immutable]
        sealed class Money
        {
            public decimal Amount { get; set; }   // set only by the deserializer, before the object is shared
        }

        [Contracts.ThreadSafe]
        sealed class Meter
        {
            private long _count;
            public void Hit() => Interlocked.Increment(ref _count);
            public long Count { get => _count; set => _count = value; }
        }

        class C
        {
            static readonly Money s_fee = new() { Amount = 1 };
            static readonly Meter s_meter = new();

            void M(Cown<Account> c) => When(c, a => { a.Balance -= (long)s_fee.Amount; s_meter.Hit(); });
        }
        """);

    [Fact]
    public Task Flags_the_same_types_without_the_attribute() => VerifyAsync("""
        sealed class Money
        {
            public decimal Amount { get; set; }
        }

        class C
        {
            static readonly Money s_fee = new() { Amount = 1 };

            void M(Cown<Account> c) => When(c, a => a.Balance -= (long){|BOC103:s_fee|}.Amount);
        }
        """);

    [Fact]
    public Task Does_not_flag_types_listed_in_editorconfig() => VerifyAsync("""
        namespace Vendor.Sdk
        {
            public sealed class Client { public string Endpoint { get; set; } = ""; }
            public sealed class Cache<TKey, TValue> { public int Limit { get; set; } }
        }

        namespace Telemetry.Counters
        {
            public sealed class Hits { public long Value { get; set; } }
        }

        class C
        {
            static readonly Vendor.Sdk.Client s_client = new();
            static readonly Vendor.Sdk.Cache<string, List<int>> s_cache = new();
            static readonly Telemetry.Counters.Hits s_hits = new();

            void M(Cown<Account> c) => When(c, a => a.Counter = s_client.Endpoint.Length + s_cache.Limit + (int)s_hits.Value);
        }
        """, new Dictionary<string, string>
    {
        ["boc.shareable_types"] = "T:Vendor.Sdk.Client, Vendor.Sdk.Cache<TKey, TValue>, Telemetry.*",
    });

    [Fact]
    public Task Flags_types_the_editorconfig_list_does_not_name() => VerifyAsync("""
        namespace Vendor.Sdk
        {
            public sealed class Client { public string Endpoint { get; set; } = ""; }
            public sealed class Client2 { public string Endpoint { get; set; } = ""; }
        }

        namespace Vendor.SdkExtra
        {
            public sealed class Other { public string Endpoint { get; set; } = ""; }
        }

        namespace TelemetryExtra
        {
            public sealed class Hits { public long Value { get; set; } }
        }

        class C
        {
            static readonly Vendor.Sdk.Client2 s_client = new();
            static readonly Vendor.SdkExtra.Other s_other = new();
            static readonly TelemetryExtra.Hits s_hits = new();

            void M(Cown<Account> c) => When(c, a =>
                a.Counter = {|BOC103:s_client|}.Endpoint.Length + {|BOC103:s_other|}.Endpoint.Length + (int){|BOC103:s_hits|}.Value);
        }
        """, new Dictionary<string, string>
    {
        // Exact names only (no prefix of a type's name, no namespace without '.*'); '.*' stops at a namespace boundary.
        ["boc.shareable_types"] = "Vendor.Sdk.Client, Vendor.Sdk, , T:Vendor.SdkExtra.Oth, Telemetry.*",
    });

    [Fact]
    public Task Does_not_flag_an_escape_of_acquired_state_of_a_shareable_type() => VerifyAsync("""
        using System.Collections.Frozen;
        using System.Text.RegularExpressions;

        sealed class Rules
        {
            public FrozenSet<string> Allowed { get; set; } = FrozenSet<string>.Empty;
            public Regex Pattern { get; set; } = new("x");
        }

        class C
        {
            async Task M(Cown<Rules> rules, ConcurrentBag<FrozenSet<string>> seen)
            {
                Regex pattern = await WhenAsync(Read(rules), r => r.Pattern);
                When(rules, r => seen.Add(r.Allowed));
            }
        }
        """);
    [Fact]
    public Task Does_not_flag_a_type_that_derives_from_a_shareable_type_without_state_of_its_own() => VerifyAsync("""
        using System.Net.Http;

        sealed class ApiClient : HttpClient
        {
            public ApiClient() => BaseAddress = new Uri("http://localhost/");
        }

        class C
        {
            static readonly ApiClient s_api = new();

            void M(Cown<Account> c) => When(c, async a => a.Details.Name = await s_api.GetStringAsync("x"));
        }
        """);

    [Fact]
    public Task Flags_a_type_that_derives_from_a_shareable_type_and_adds_mutable_state() => VerifyAsync("""
        using System.Net.Http;

        sealed class CountingClient : HttpClient
        {
            public int Calls { get; set; }
        }

        class C
        {
            static readonly CountingClient s_api = new();

            void M(Cown<Account> c) => When(c, a => {|BOC103:s_api|}.Calls++);
        }
        """);
}
