using Boc.TestStore;
using StackExchange.Redis;

namespace Boc.Orleans.FaultTests;

/// <summary>
/// The stores the scenarios stand on, each kind this machine has: a write the store answered survives SIGKILL and a
/// restart on the same folder and port (Garnet: its append-only file is committed before the reply and replayed at
/// start), a paused store answers nothing until it is resumed, and a disposed store leaves nothing listening.
/// </summary>
public sealed class StoreTests
{
    public static TheoryData<StoreKind> Kinds() => [.. StoreFixture.Kinds];

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Every_answered_write_survives_a_kill_and_a_restart_and_a_pause_holds_every_request(StoreKind kind)
    {
        TestStore store = await TestStore.StartAsync(kind);
        int port = int.Parse(store.Endpoint.Split(':')[1], System.Globalization.CultureInfo.InvariantCulture);
        await using (store)
        {
            IDatabase db = store.Db;
            for (int i = 0; i < 200; i++)
            {
                Assert.True(await db.StringSetAsync($"k{i}", i + 1));
            }

            Assert.Equal(1, (int)await db.ScriptEvaluateAsync("return redis.call('hset', KEYS[1], 'f', ARGV[1])", ["h"], ["v"]));
            store.Kill();
            await store.RestartAsync();
            for (int i = 0; i < 200; i++)
            {
                Assert.True((int)await db.StringGetAsync($"k{i}") == i + 1, $"{kind}: k{i} was answered before the kill and is lost after the restart");
            }

            Assert.Equal("v", (string?)await db.HashGetAsync("h", "f"));

            store.Pause();
            Task<bool> held = db.StringSetAsync("paused", 1);
            await Task.Delay(500);
            Assert.False(held.IsCompleted, $"{kind}: a paused store answered");
            store.Resume();
            Assert.True(await held);
        }

        Assert.False(await StoreProcess.PingAsync("127.0.0.1", port), $"{kind}: something still answers on the disposed store's port");
    }
}
