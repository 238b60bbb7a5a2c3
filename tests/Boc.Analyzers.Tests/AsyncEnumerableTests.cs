using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// <c>IAsyncEnumerable&lt;T&gt;</c> (issue 47) is a read-only sequence, like <c>IEnumerable&lt;T&gt;</c>: nothing can be
/// changed through it, so sharing one of shareable elements is not shared mutable state (BOC103); built from acquired
/// state it is a live view of that state (BOC101, BOC102). Its enumerator is a cursor, which is changed by every step.
/// </summary>
public class AsyncEnumerableTests
{
    [Fact]
    public Task Does_not_flag_a_captured_async_sequence_of_shareable_elements() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> c, IAsyncEnumerable<string> lines, System.Threading.Channels.Channel<string> channel, CancellationToken ct)
            {
                When(c, async a => { await foreach (var line in lines) a.Log.Add(line); });
                await foreach (var line in lines) Console.WriteLine(line);

                var incoming = channel.Reader.ReadAllAsync(ct);
                When(c, async a => { await foreach (var x in incoming) a.Log.Add(x); });
                When(c, async a => { await foreach (var x in incoming) a.Tags.Add(x); });

                var cancellable = lines.WithCancellation(ct);
                When(c, async a => { await foreach (var x in cancellable) a.Balance += x.Length; });
                await foreach (var x in cancellable) Console.WriteLine(x);

                IAsyncEnumerable<long> numbers = Numbers();
                When(c, async a => { await foreach (var n in numbers) a.Balance += n; });
                await foreach (var n in numbers) Console.WriteLine(n);
            }

            static async IAsyncEnumerable<long> Numbers()
            {
                await Task.Yield();
                yield return 1;
            }
        }
        """);

    [Fact]
    public Task Flags_async_sequences_of_mutable_elements_and_shared_cursors() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> c, IAsyncEnumerable<Account> accounts, IAsyncEnumerable<string> lines)
            {
                When(c, async a => { await foreach (var x in {|BOC103:accounts|}) a.Balance += x.Balance; });

                var cursor = lines.GetAsyncEnumerator();
                When(c, async a => { while (await {|BOC103:cursor|}.MoveNextAsync()) a.Log.Add(cursor.Current); });
                await cursor.DisposeAsync();
            }
        }
        """);

    [Fact]
    public Task Flags_an_async_sequence_over_acquired_state_used_later() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> src, Cown<Account> dst)
            {
                IAsyncEnumerable<string> live = await WhenAsync(src, s => {|BOC102:Lines(s.Log)|});
                When(src, s =>
                {
                    var lines = Lines(s.Log);
                    When(dst, async d => { await foreach (var x in {|BOC101:lines|}) d.Log.Add(x); });
                    async IAsyncEnumerable<string> Mine() { foreach (var x in s.Log) { await Task.Yield(); yield return x; } }
                    var mine = Mine();
                    When(dst, async d => { await foreach (var x in {|BOC101:mine|}) d.Log.Add(x); });
                });
            }

            static async IAsyncEnumerable<string> Lines(List<string> log)
            {
                foreach (var x in log)
                {
                    await Task.Yield();
                    yield return x;
                }
            }
        }
        """);

    [Fact]
    public async Task An_async_sequence_result_is_reported_as_a_live_view_not_a_mutable_result()
    {
        var diagnostics = await AnalyzeAsync(Compile([Usings + """
            class C
            {
                async Task M(Cown<Account> src)
                {
                    IAsyncEnumerable<string> live = await WhenAsync(src, s => Lines(s.Log));
                }

                static async IAsyncEnumerable<string> Lines(List<string> log)
                {
                    await Task.Yield();
                    foreach (var x in log) yield return x;
                }
            }
            """ + SharedTypes]));
        var diagnostic = Assert.Single(diagnostics);
        Assert.Contains("a live view of the state", diagnostic.GetMessage(System.Globalization.CultureInfo.InvariantCulture), StringComparison.Ordinal);
    }
}
