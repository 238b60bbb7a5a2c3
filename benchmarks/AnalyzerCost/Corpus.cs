// Writes a service-style project of about a given number of lines that uses Boc the way a web service does: ASP.NET
// Core endpoints, BackgroundService loops, repositories of cowns, IMemoryCache, IAsyncEnumerable, Parallel.ForEachAsync,
// Lazy<T>, records holding lists, CollectionsMarshal, generic helpers over Cown<T>, request scopes (also one begun in a
// body), and plain service code with no spawns at all. About 7.6 spawn calls per 100 lines (the density of the corpus in
// issue 47: 530 in 7,000 lines), and one seeded mistake in every eighth module, so that the analyzer's reporting runs
// too and the benchmark can check that it found exactly those.

using System.Globalization;
using System.Text;

namespace Boc.AnalyzerCost;

/// <summary>A generated corpus: its files, and what the analyzer must report on it.</summary>
internal sealed class Corpus
{
    private readonly List<(string Name, string Text)> _files = new();

    public int Lines { get; private set; }

    public int Spawns { get; private set; }

    public int Modules { get; private set; }

    /// <summary>The seeded mistakes, by rule: each must be reported exactly once.</summary>
    public SortedDictionary<string, int> Expected { get; } = new(StringComparer.Ordinal);

    public static Corpus Generate(int targetLines)
    {
        var corpus = new Corpus();
        var program = new StringBuilder();
        var registrations = new StringBuilder();
        for (int i = 0; corpus.Lines + ProgramLines(corpus.Modules) < targetLines; i++)
        {
            (string kind, string text, string? mistake) = Module(i);
            corpus.Add($"{kind}{i}.cs", text);
            corpus.Modules++;
            registrations.Append(CultureInfo.InvariantCulture, $"        Corpus.{kind}{i}.Module.Add(builder.Services);\n");
            program.Append(CultureInfo.InvariantCulture, $"        Corpus.{kind}{i}.Module.Map(app);\n");
            if (mistake is not null)
            {
                corpus.Expected[mistake] = corpus.Expected.GetValueOrDefault(mistake) + 1;
            }
        }

        corpus.Add("Program.cs", $$"""
            using Boc;

            namespace Corpus;

            public static class Program
            {
                public static void Main(string[] args)
                {
                    WebApplicationBuilder builder = WebApplication.CreateBuilder(args);
                    builder.Services.AddMemoryCache();
                    builder.Services.AddSingleton(_ => new BocRuntime());
            {{registrations}}
                    WebApplication app = builder.Build();
            {{program}}
                    app.Run();
                }
            }

            """);
        return corpus;
    }

    public void WriteTo(string directory, string bocAssembly, string analyzerAssembly)
    {
        Directory.CreateDirectory(directory);
        foreach (string old in Directory.EnumerateFiles(directory, "*.cs"))
        {
            File.Delete(old);
        }

        foreach ((string name, string text) in _files)
        {
            File.WriteAllText(Path.Combine(directory, name), text);
        }

        // A service project as a user has it: the Web SDK, its default analyzers, Boc referenced as a package would be
        // (the assembly and its analyzer), nothing of this repository's build settings. BocAnalyzer=false leaves the
        // analyzer out and changes nothing else.
        File.WriteAllText(Path.Combine(directory, "Corpus.csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk.Web">
              <PropertyGroup>
                <TargetFramework>net10.0</TargetFramework>
                <Nullable>enable</Nullable>
                <ImplicitUsings>enable</ImplicitUsings>
                <RootNamespace>Corpus</RootNamespace>
              </PropertyGroup>
              <ItemGroup>
                <Reference Include="Boc" HintPath="{bocAssembly}" />
                <Analyzer Include="{analyzerAssembly}" Condition="'$(BocAnalyzer)' != 'false'" />
              </ItemGroup>
            </Project>

            """);
    }

    private void Add(string name, string text)
    {
        _files.Add((name, text));
        Lines += text.Count(c => c == '\n');
        Spawns += CountSpawns(text);
    }

    private static int ProgramLines(int modules) => 20 + 2 * modules;

    /// <summary>Calls of When, WhenAsync and TryWhen (the spawns the analyzer looks at).</summary>
    private static int CountSpawns(string text)
    {
        int count = 0;
        foreach (string name in new[] { "When(", "WhenAsync(", "TryWhen(" })
        {
            for (int at = text.IndexOf(name, StringComparison.Ordinal); at >= 0; at = text.IndexOf(name, at + 1, StringComparison.Ordinal))
            {
                char before = at > 0 ? text[at - 1] : ' ';
                if (!char.IsLetterOrDigit(before))
                {
                    count++;
                }
            }
        }

        return count;
    }

    /// <summary>The i-th module: its kind (a namespace prefix), its source, and the rule of its seeded mistake, if any.</summary>
    private static (string Kind, string Text, string? Mistake) Module(int i)
    {
        // One mistake in every eighth module, rotating through the rules.
        (string Code, string Rule)? mistake = i % 8 == 7 ? Mistakes[i / 8 % Mistakes.Length] : null;
        string extra = mistake?.Code ?? "";
        return (i % 5) switch
        {
            0 => ("Accounts", Accounts(i, extra), mistake?.Rule),
            1 => ("Inventory", Inventory(i, extra), mistake?.Rule),
            2 => ("Workers", Workers(i, extra), mistake?.Rule),
            3 => ("Helpers", Helpers(i, extra), mistake?.Rule),
            _ => ("Orders", Orders(i, extra), mistake?.Rule),
        };
    }

    // Members added to a module's service class (which has `store`, `runtime` and an Account-like state type named
    // State): each is one mistake the analyzer must report once.
    private static readonly (string Code, string Rule)[] Mistakes =
    [
        ("""
            public void Mistake(string from, string to) => runtime.When(store.Get(from), a =>
                runtime.When(store.Get(to), b => b.Balance += a.Balance));

        """, "BOC101"),
        ("""
            public void Mistake(string id)
            {
                var seen = new List<long>();
                runtime.When(store.Get(id), a => seen.Add(a.Balance));
                Console.WriteLine(seen.Count);
            }

        """, "BOC103"),
        ("""
            public void Mistake(string id) => runtime.When(store.Get(id), a => { lock (store) { a.Balance++; } });

        """, "BOC201"),
        ("""
            public void Mistake(string id) => runtime.When(Read(store.Get(id)), a => a.Notes.Add("read"));

        """, "BOC104"),
        ("""
            public static readonly System.Collections.Concurrent.ConcurrentBag<State> Leaked = new();

            public void Mistake(string id) => runtime.When(store.Get(id), a => Leaked.Add(a));

        """, "BOC102"),
        ("""
            public void Mistake(string id)
            {
                runtime.BeginScope();
                runtime.When(store.Get(id), a => a.Balance++);
            }

        """, "BOC204"),
    ];

    private static string Accounts(int i, string extra) => $$"""
        using System.Collections.Concurrent;
        using Boc;
        using Microsoft.Extensions.Caching.Memory;
        using static Boc.Behaviours;

        namespace Corpus.Accounts{{i}};

        public sealed class State
        {
            public string Id { get; init; } = "";
            public long Balance { get; set; }
            public long Limit { get; set; } = 1_000;
            public List<string> Notes { get; } = new();
            public HashSet<string> Tags { get; } = new(StringComparer.Ordinal);
        }

        public sealed record AccountView(string Id, long Balance, IReadOnlyList<string> Recent);

        public sealed record TransferRequest(string From, string To, long Amount);

        public sealed class Store
        {
            private readonly ConcurrentDictionary<string, Cown<State>> _accounts = new(StringComparer.Ordinal);

            public Cown<State> Get(string id) => _accounts.GetOrAdd(id, static key => new Cown<State>(new State { Id = key }));

            public IReadOnlyList<Cown<State>> All() => _accounts.Values.ToList();
        }

        public sealed class Service(Store store, BocRuntime runtime, IMemoryCache cache, ILogger<Service> logger)
        {
            public async Task<bool> TransferAsync(TransferRequest request)
            {
                ArgumentNullException.ThrowIfNull(request);
                if (request.Amount <= 0 || request.From == request.To)
                {
                    return false;
                }

                bool moved = await runtime.WhenAsync(store.Get(request.From), store.Get(request.To), (from, to) =>
                {
                    if (from.Balance - request.Amount < -from.Limit)
                    {
                        return false;
                    }

                    from.Balance -= request.Amount;
                    to.Balance += request.Amount;
                    from.Notes.Add($"-{request.Amount} to {request.To}");
                    to.Notes.Add($"+{request.Amount} from {request.From}");
                    return true;
                });
                logger.LogInformation("Transfer {From} -> {To}: {Moved}", request.From, request.To, moved);
                return moved;
            }

            public async Task<AccountView> ViewAsync(string id) =>
                await runtime.WhenAsync(Read(store.Get(id)), a => new AccountView(a.Id, a.Balance, a.Notes.TakeLast(5).ToList()));

            public Task<long> CachedBalanceAsync(string id) =>
                cache.GetOrCreateAsync($"balance:{{i}}:{id}", async entry =>
                {
                    entry.AbsoluteExpirationRelativeToNow = TimeSpan.FromSeconds(1);
                    return await runtime.WhenAsync(Read(store.Get(id)), a => a.Balance);
                });

            public void Deposit(string id, long amount) => runtime.When(store.Get(id), a =>
            {
                a.Balance += amount;
                a.Notes.Add($"+{amount}");
            });

            public async Task<long> TotalAsync()
            {
                IAcquirable<State>[] reads = store.All().Select(c => (IAcquirable<State>)Read(c)).ToArray();
                return reads.Length == 0 ? 0 : await runtime.WhenAsync(reads, all => all.Sum(a => a.Balance));
            }

            public async Task<int> DepositAllAsync(IReadOnlyList<string> ids, long amount, CancellationToken cancellationToken)
            {
                // A request's scope: every deposit finishes, or is withdrawn at the deadline, before the reply.
                await using (runtime.BeginScope(TimeSpan.FromSeconds(2), cancellationToken))
                {
                    foreach (string id in ids)
                    {
                        runtime.When(store.Get(id), a => a.Balance += amount);
                    }
                }

                return ids.Count;
            }

            public void Announce(string id, IReadOnlyList<string> followers) => runtime.When(store.Get(id), async a =>
            {
                string from = a.Id;
                await using (runtime.BeginScope())
                {
                    foreach (string follower in followers.Where(f => f != id))
                    {
                        runtime.When(store.Get(follower), b => b.Notes.Add($"news from {from}"));
                    }
                }

                a.Notes.Add("announced");
            });

            public void Tag(string id, string tag) => runtime.When(store.Get(id), a =>
            {
                if (a.Tags.Add(tag))
                {
                    long balance = a.Balance;
                    runtime.When(store.Get("audit"), audit => audit.Notes.Add($"{id} tagged {tag} at {balance}"));
                }
            });

            public async Task<int> InterestAsync(IReadOnlyList<string> ids, long percent, CancellationToken cancellationToken)
            {
                int paid = 0;
                await Parallel.ForEachAsync(ids, cancellationToken, async (id, _) =>
                {
                    bool done = await runtime.WhenAsync(store.Get(id), a =>
                    {
                        if (a.Balance <= 0) return false;
                        a.Balance += a.Balance * percent / 100;
                        return true;
                    });
                    if (done) Interlocked.Increment(ref paid);
                });
                return paid;
            }

            public void Freeze(string id) => runtime.When(store.Get(id), a => a.Limit = 0);

            public Task<bool> HasTagAsync(string id, string tag) => runtime.WhenAsync(Read(store.Get(id)), a => a.Tags.Contains(tag)).AsTask();

            public void Close(string id, string into) => runtime.When(store.Get(id), store.Get(into), (a, b) =>
            {
                b.Balance += a.Balance;
                a.Balance = 0;
                a.Tags.Add("closed");
            });

            public bool TryDeposit(string id, long amount) => runtime.TryWhen(store.Get(id), a => a.Balance += amount);

            public async Task<IReadOnlyList<string>> RecentAsync(string id, int count) =>
                await runtime.WhenAsync(Read(store.Get(id)), a => a.Notes.TakeLast(count).ToArray());

            public void SetLimit(string id, long limit) => runtime.When(store.Get(id), a => a.Limit = limit);

        {{extra}}}

        public static class Module
        {
            public static void Add(IServiceCollection services)
            {
                services.AddSingleton<Store>();
                services.AddSingleton<Service>();
            }

            public static void Map(IEndpointRouteBuilder app)
            {
                app.MapPost("/accounts{{i}}/transfer", async (TransferRequest request, Service service) =>
                    await service.TransferAsync(request) ? Results.Ok() : Results.BadRequest());
                app.MapGet("/accounts{{i}}/{id}", async (string id, Service service) => Results.Ok(await service.ViewAsync(id)));
                app.MapGet("/accounts{{i}}/{id}/balance", (string id, Service service) => service.CachedBalanceAsync(id));
                app.MapPost("/accounts{{i}}/{id}/deposit/{amount:long}", (string id, long amount, Service service) =>
                {
                    service.Deposit(id, amount);
                    return Results.Accepted();
                });
            }
        }

        """;

    private static string Inventory(int i, string extra) => $$"""
        using System.Collections.Concurrent;
        using System.Runtime.InteropServices;
        using Boc;
        using Microsoft.Extensions.Caching.Memory;
        using static Boc.Behaviours;

        namespace Corpus.Inventory{{i}};

        public sealed class State
        {
            public string Id { get; init; } = "";
            public long Balance { get; set; }
            public Dictionary<string, int> Stock { get; } = new(StringComparer.Ordinal);
            public List<string> Notes { get; } = new();
        }

        public sealed record Reservation(string Sku, int Quantity, IReadOnlyList<string> Lines);

        public sealed record Catalog(string Name, List<string> Skus);

        public sealed class Store
        {
            private readonly ConcurrentDictionary<string, Cown<State>> _warehouses = new(StringComparer.Ordinal);

            public Cown<State> Get(string id) => _warehouses.GetOrAdd(id, static key => new Cown<State>(new State { Id = key }));
        }

        public sealed class Service(Store store, BocRuntime runtime, IMemoryCache cache, ILogger<Service> logger)
        {
            private static readonly Lazy<IReadOnlyList<string>> s_defaultSkus = new(() => ["a", "b", "c"]);

            public async Task<bool> ReserveAsync(string warehouse, Reservation reservation)
            {
                ArgumentNullException.ThrowIfNull(reservation);
                bool reserved = await runtime.WhenAsync(store.Get(warehouse), w =>
                {
                    ref int count = ref CollectionsMarshal.GetValueRefOrAddDefault(w.Stock, reservation.Sku, out bool existed);
                    if (!existed || count < reservation.Quantity)
                    {
                        return false;
                    }

                    count -= reservation.Quantity;
                    w.Notes.AddRange(reservation.Lines);
                    return true;
                });
                logger.LogDebug("Reserve {Sku} x{Quantity}: {Reserved}", reservation.Sku, reservation.Quantity, reserved);
                return reserved;
            }

            public void Restock(string warehouse, Catalog catalog, int quantity)
            {
                ArgumentNullException.ThrowIfNull(catalog);
                IReadOnlyList<string> skus = catalog.Skus.ToArray();
                runtime.When(store.Get(warehouse), w =>
                {
                    foreach (string sku in skus.Concat(s_defaultSkus.Value))
                    {
                        w.Stock[sku] = w.Stock.GetValueOrDefault(sku) + quantity;
                    }
                });
            }

            public void Clear(string warehouse) => runtime.When(store.Get(warehouse), w =>
            {
                w.Stock.Clear();
                w.Notes.Add("cleared");
            });

            public Task<bool> HasAsync(string warehouse, string sku) =>
                runtime.WhenAsync(Read(store.Get(warehouse)), w => w.Stock.ContainsKey(sku)).AsTask();

            public void Drop(string warehouse, string sku) => runtime.When(store.Get(warehouse), w => w.Stock.Remove(sku));

            public Task<int> CountAsync(string warehouse, string sku) =>
                cache.GetOrCreateAsync($"stock:{{i}}:{warehouse}:{sku}", async entry =>
                {
                    entry.SlidingExpiration = TimeSpan.FromSeconds(5);
                    return await runtime.WhenAsync(Read(store.Get(warehouse)), w => w.Stock.GetValueOrDefault(sku));
                });

            public async Task MoveAsync(string from, string to, string sku, int quantity)
            {
                await runtime.WhenAsync(store.Get(from), store.Get(to), (a, b) =>
                {
                    int available = a.Stock.GetValueOrDefault(sku);
                    int moved = Math.Min(available, quantity);
                    a.Stock[sku] = available - moved;
                    b.Stock[sku] = b.Stock.GetValueOrDefault(sku) + moved;
                });
            }

            public async Task<IReadOnlyDictionary<string, int>> SnapshotAsync(string warehouse) =>
                await runtime.WhenAsync(Read(store.Get(warehouse)), w => (IReadOnlyDictionary<string, int>)w.Stock.ToDictionary(StringComparer.Ordinal));

            public void Audit(string warehouse) => runtime.When(store.Get(warehouse), w =>
            {
                var total = new Lazy<long>(() => w.Stock.Values.Sum());
                w.Balance = total.Value;
                int lines = w.Notes.Count;
                runtime.When(store.Get("audit"), audit => audit.Notes.Add($"{warehouse}: {lines} lines"));
            });

        {{extra}}}

        public static class Module
        {
            public static void Add(IServiceCollection services)
            {
                services.AddSingleton<Store>();
                services.AddSingleton<Service>();
            }

            public static void Map(IEndpointRouteBuilder app)
            {
                app.MapPost("/inventory{{i}}/{warehouse}/reserve", async (string warehouse, Reservation reservation, Service service) =>
                    await service.ReserveAsync(warehouse, reservation) ? Results.Ok() : Results.Conflict());
                app.MapGet("/inventory{{i}}/{warehouse}/{sku}", (string warehouse, string sku, Service service) => service.CountAsync(warehouse, sku));
                app.MapGet("/inventory{{i}}/{warehouse}", async (string warehouse, Service service) => Results.Ok(await service.SnapshotAsync(warehouse)));
            }
        }

        """;

    private static string Workers(int i, string extra) => $$"""
        using System.Collections.Concurrent;
        using System.Threading.Channels;
        using Boc;
        using static Boc.Behaviours;

        namespace Corpus.Workers{{i}};

        public sealed class State
        {
            public string Id { get; init; } = "";
            public long Balance { get; set; }
            public List<string> Notes { get; } = new();
            public Queue<string> Pending { get; } = new();
        }

        public sealed record Job(string Target, string Payload, int Attempt);

        public sealed class Store
        {
            private readonly ConcurrentDictionary<string, Cown<State>> _queues = new(StringComparer.Ordinal);

            public Cown<State> Get(string id) => _queues.GetOrAdd(id, static key => new Cown<State>(new State { Id = key }));
        }

        public sealed class Service(Store store, BocRuntime runtime, ILogger<Service> logger)
        {
            private readonly Channel<Job> _jobs = Channel.CreateBounded<Job>(1_000);

            public ValueTask EnqueueAsync(Job job, CancellationToken cancellationToken) => _jobs.Writer.WriteAsync(job, cancellationToken);

            public async IAsyncEnumerable<string> DrainAsync(string id, [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken = default)
            {
                while (!cancellationToken.IsCancellationRequested)
                {
                    string? next = await runtime.WhenAsync(store.Get(id), q => q.Pending.TryDequeue(out string? item) ? item : null);
                    if (next is null)
                    {
                        yield break;
                    }

                    yield return next;
                }
            }

            public async Task ProcessAsync(CancellationToken cancellationToken)
            {
                await foreach (Job job in _jobs.Reader.ReadAllAsync(cancellationToken))
                {
                    bool accepted = await runtime.WhenAsync(store.Get(job.Target), q =>
                    {
                        if (q.Pending.Count >= 100)
                        {
                            return false;
                        }

                        q.Pending.Enqueue(job.Payload);
                        q.Balance++;
                        return true;
                    });
                    if (!accepted && job.Attempt < 3)
                    {
                        await _jobs.Writer.WriteAsync(job with { Attempt = job.Attempt + 1 }, cancellationToken);
                    }
                }
            }

            public async Task<int> FlushAsync(IAsyncEnumerable<string> ids, CancellationToken cancellationToken)
            {
                int flushed = 0;
                await foreach (string id in ids.WithCancellation(cancellationToken))
                {
                    flushed += await runtime.WhenAsync(store.Get(id), async q =>
                    {
                        int count = q.Pending.Count;
                        q.Notes.AddRange(q.Pending);
                        q.Pending.Clear();
                        await Task.Yield();
                        return count;
                    });
                }

                logger.LogInformation("Flushed {Count}", flushed);
                return flushed;
            }

            public void Touch(string id) => runtime.When(store.Get(id), q => q.Balance++);

            public Task<int> DepthAsync(string id) => runtime.WhenAsync(Read(store.Get(id)), q => q.Pending.Count).AsTask();

            public void Requeue(string from, string to) => runtime.When(store.Get(from), store.Get(to), (a, b) =>
            {
                while (a.Pending.TryDequeue(out string? item))
                {
                    b.Pending.Enqueue(item);
                }
            });

            public async Task ResetAsync(string id) => await runtime.WhenAsync(store.Get(id), q =>
            {
                q.Pending.Clear();
                q.Notes.Add("reset");
            });

            public void Post(string id, string payload) => runtime.When(store.Get(id), q => q.Pending.Enqueue(payload));

        {{extra}}}

        public sealed class Worker(Service service, ILogger<Worker> logger) : BackgroundService
        {
            protected override async Task ExecuteAsync(CancellationToken stoppingToken)
            {
                while (!stoppingToken.IsCancellationRequested)
                {
                    try
                    {
                        await service.ProcessAsync(stoppingToken);
                    }
                    catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
                    {
                        break;
                    }
                    catch (InvalidOperationException e)
                    {
                        logger.LogError(e, "Worker {{i}} failed");
                        await Task.Delay(TimeSpan.FromSeconds(1), stoppingToken);
                    }
                }
            }
        }

        public static class Module
        {
            public static void Add(IServiceCollection services)
            {
                services.AddSingleton<Store>();
                services.AddSingleton<Service>();
                services.AddHostedService<Worker>();
            }

            public static void Map(IEndpointRouteBuilder app)
            {
                app.MapPost("/jobs{{i}}", async (Job job, Service service, CancellationToken ct) =>
                {
                    await service.EnqueueAsync(job, ct);
                    return Results.Accepted();
                });
                app.MapGet("/jobs{{i}}/{id}", (string id, Service service, CancellationToken ct) => service.DrainAsync(id, ct));
            }
        }

        """;

    private static string Helpers(int i, string extra) => $$"""
        using System.Collections.Concurrent;
        using Boc;
        using static Boc.Behaviours;

        namespace Corpus.Helpers{{i}};

        public sealed class State
        {
            public string Id { get; init; } = "";
            public long Balance { get; set; }
            public List<string> Notes { get; } = new();
        }

        public interface IVersioned
        {
            long Version { get; set; }
        }

        public sealed class Document : IVersioned
        {
            public long Version { get; set; }
            public string Body { get; set; } = "";
        }

        public static class CownExtensions
        {
            public static ValueTask<TResult> ReadAsync<T, TResult>(this Cown<T> cown, Func<T, TResult> read) where T : class =>
                BocRuntime.Default.WhenAsync(Read(cown), read);

            public static ValueTask UpdateAsync<T>(this Cown<T> cown, Action<T> update) where T : class, IVersioned =>
                BocRuntime.Default.WhenAsync(cown, (T state) =>
                {
                    update(state);
                    state.Version++;
                });

            public static async Task<bool> CompareAndSetAsync<T>(this Cown<T> cown, long version, Action<T> update) where T : class, IVersioned =>
                await BocRuntime.Default.WhenAsync(cown, state =>
                {
                    if (state.Version != version) return false;
                    update(state);
                    state.Version++;
                    return true;
                });
        }

        public sealed class Store
        {
            private readonly ConcurrentDictionary<string, Cown<State>> _items = new(StringComparer.Ordinal);

            public Cown<State> Get(string id) => _items.GetOrAdd(id, static key => new Cown<State>(new State { Id = key }));
        }

        public sealed class Service(Store store, BocRuntime runtime)
        {
            private readonly Cown<Document> _document = new(new Document());

            public Task<string> BodyAsync() => _document.ReadAsync(d => d.Body).AsTask();

            public Task EditAsync(string body) => _document.UpdateAsync(d => d.Body = body).AsTask();

            public void Charge(string id, long amount) =>
                runtime.When(store.Get(id), static (a, x) => a.Balance -= x, amount);

            public Task<long> SumAsync(string first, string second) =>
                runtime.WhenAsync(Read(store.Get(first)), Read(store.Get(second)), (a, b) => a.Balance + b.Balance).AsTask();

            public void Note(string id, string text) => runtime.When(store.Get(id), a => a.Notes.Add(text));

            public Task<long> BalanceAsync(string id) => runtime.WhenAsync(Read(store.Get(id)), a => a.Balance).AsTask();

        {{extra}}}

        public static class Module
        {
            public static void Add(IServiceCollection services)
            {
                services.AddSingleton<Store>();
                services.AddSingleton<Service>();
            }

            public static void Map(IEndpointRouteBuilder app)
            {
                app.MapGet("/documents{{i}}", (Service service) => service.BodyAsync());
                app.MapPut("/documents{{i}}", (string body, Service service) => service.EditAsync(body));
            }
        }

        """;

    private static string Orders(int i, string extra) => $$"""
        using System.Collections.Concurrent;
        using System.ComponentModel.DataAnnotations;
        using System.Globalization;
        using Boc;
        using static Boc.Behaviours;

        namespace Corpus.Orders{{i}};

        public sealed class State
        {
            public string Id { get; init; } = "";
            public long Balance { get; set; }
            public List<string> Notes { get; } = new();
            public List<OrderLine> Lines { get; } = new();
        }

        public sealed record OrderLine(string Sku, int Quantity, decimal Price);

        public sealed record OrderRequest([property: Required] string Customer, IReadOnlyList<OrderLine> Lines, string? Coupon);

        public sealed record OrderResponse(string Id, decimal Total, string Currency, IReadOnlyList<string> Warnings);

        public static class Pricing
        {
            private static readonly IReadOnlyDictionary<string, decimal> s_coupons = new Dictionary<string, decimal>(StringComparer.OrdinalIgnoreCase)
            {
                ["WELCOME"] = 0.10m,
                ["LOYAL"] = 0.05m,
            };

            public static decimal Total(IEnumerable<OrderLine> lines, string? coupon)
            {
                decimal gross = lines.Sum(l => l.Price * l.Quantity);
                decimal discount = coupon is not null && s_coupons.TryGetValue(coupon, out decimal rate) ? gross * rate : 0m;
                return Math.Round(gross - discount, 2, MidpointRounding.ToEven);
            }

            public static IReadOnlyList<string> Validate(OrderRequest request)
            {
                var warnings = new List<string>();
                if (string.IsNullOrWhiteSpace(request.Customer))
                {
                    warnings.Add("customer is required");
                }

                foreach (OrderLine line in request.Lines)
                {
                    if (line.Quantity <= 0)
                    {
                        warnings.Add(string.Create(CultureInfo.InvariantCulture, $"{line.Sku}: quantity must be positive"));
                    }

                    if (line.Price < 0)
                    {
                        warnings.Add(string.Create(CultureInfo.InvariantCulture, $"{line.Sku}: price must not be negative"));
                    }
                }

                if (request.Lines.GroupBy(l => l.Sku, StringComparer.Ordinal).Any(g => g.Count() > 1))
                {
                    warnings.Add("duplicate lines");
                }

                return warnings;
            }

            public static string Format(decimal total, string currency) =>
                string.Create(CultureInfo.InvariantCulture, $"{total:0.00} {currency}");
        }

        public sealed class Store
        {
            private readonly ConcurrentDictionary<string, Cown<State>> _customers = new(StringComparer.Ordinal);

            public Cown<State> Get(string id) => _customers.GetOrAdd(id, static key => new Cown<State>(new State { Id = key }));
        }

        public sealed class Service(Store store, BocRuntime runtime, ILogger<Service> logger)
        {
            public async Task<OrderResponse> PlaceAsync(OrderRequest request)
            {
                ArgumentNullException.ThrowIfNull(request);
                IReadOnlyList<string> warnings = Pricing.Validate(request);
                decimal total = Pricing.Total(request.Lines, request.Coupon);
                if (warnings.Count > 0)
                {
                    logger.LogWarning("Order for {Customer} rejected: {Count} problems", request.Customer, warnings.Count);
                    return new OrderResponse("", total, "EUR", warnings);
                }

                string id = await runtime.WhenAsync(store.Get(request.Customer), c =>
                {
                    c.Lines.AddRange(request.Lines);
                    c.Balance -= (long)total;
                    string orderId = string.Create(CultureInfo.InvariantCulture, $"{c.Id}-{c.Lines.Count}");
                    c.Notes.Add(orderId);
                    return orderId;
                });
                return new OrderResponse(id, total, "EUR", warnings);
            }

            public async Task<IReadOnlyList<OrderLine>> HistoryAsync(string customer) =>
                await runtime.WhenAsync(Read(store.Get(customer)), c => c.Lines.ToArray());

            public void Refund(string customer, long amount) => runtime.When(store.Get(customer), c =>
            {
                c.Balance += amount;
                c.Notes.Add(string.Create(CultureInfo.InvariantCulture, $"refund {amount}"));
            });

            public Task<long> BalanceAsync(string customer) => runtime.WhenAsync(Read(store.Get(customer)), c => c.Balance).AsTask();

            public async Task<int> CountAsync(string customer) => await runtime.WhenAsync(Read(store.Get(customer)), c => c.Lines.Count);

            public void Merge(string from, string to) => runtime.When(store.Get(from), store.Get(to), (a, b) =>
            {
                b.Lines.AddRange(a.Lines);
                a.Lines.Clear();
            });

        {{extra}}}

        public static class Module
        {
            public static void Add(IServiceCollection services)
            {
                services.AddSingleton<Store>();
                services.AddSingleton<Service>();
            }

            public static void Map(IEndpointRouteBuilder app)
            {
                app.MapPost("/orders{{i}}", async (OrderRequest request, Service service) =>
                {
                    OrderResponse response = await service.PlaceAsync(request);
                    return response.Warnings.Count == 0 ? Results.Ok(response) : Results.ValidationProblem(
                        new Dictionary<string, string[]> { ["order"] = response.Warnings.ToArray() });
                });
                app.MapGet("/orders{{i}}/{customer}", (string customer, Service service) => service.HistoryAsync(customer));
            }
        }

        """;
}
