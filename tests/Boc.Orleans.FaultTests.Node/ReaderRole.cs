using System.Text;

namespace Boc.Orleans.FaultTests.Node;

/// <summary>
/// Readers and a writer for the oracles: a reader journals every snapshot it is granted (all its keys in one
/// behaviour), a held reader marks in Redis that it is inside its body until a gate opens, and a writer journals
/// "overlap" if its body runs while such a reader is inside.
/// </summary>
internal static class ReaderRole
{
    public static async Task<int> RunAsync(Settings settings)
    {
        string prefix = settings.Get("prefix");
        string cluster = settings.Get("cluster");
        using var journal = new Journal(settings.Get("journal"));
        await using Client client = await Client.StartAsync(settings);
        IBocCluster boc = client.Boc;
        journal.Write("connected");
        string inside = settings.Get("inside", "");
        if (inside.Length > 0)
        {
            // One read of the given cowns whose body stays inside until the test opens the gate, marked in Redis.
            string gate = Faults.Gate(cluster, settings.Get("gate"));
            string[] held = inside.Split(',');
            ClusterAcquirable<LedgerAccount>[] heldCowns = [.. held.Select(k => (ClusterAcquirable<LedgerAccount>)BocCluster.Read(boc.Cown<LedgerAccount>(prefix + k)))];
            int runs = 0;
            await boc.WhenAsync(heldCowns, async states =>
            {
                foreach (string k in held)
                {
                    await client.Control.StringSetAsync(Faults.Inside(cluster, k), "1");
                }

                journal.Write($"inside {++runs}");
                while (!await client.Control.KeyExistsAsync(gate))
                {
                    await Task.Delay(50);
                }

                foreach (string k in held)
                {
                    await client.Control.KeyDeleteAsync(Faults.Inside(cluster, k));
                }
            });
            journal.Write("done");
            return 0;
        }

        string[] keys = settings.Get("keys").Split(',');
        TimeSpan interval = settings.Millis("interval-ms", 50);
        ClusterAcquirable<LedgerAccount>[] cowns = [.. keys.Select(k => (ClusterAcquirable<LedgerAccount>)BocCluster.Read(boc.Cown<LedgerAccount>(prefix + k)))];
        while (true)
        {
            try
            {
                string seen = await boc.WhenAsync(cowns, states =>
                {
                    var line = new StringBuilder("seen ");
                    for (int i = 0; i < keys.Length; i++)
                    {
                        line.Append(prefix).Append(keys[i]).Append('=').Append(states[i].Balance).Append(':').AppendJoin(',', states[i].Transfers).Append(';');
                    }

                    return line.ToString();
                });
                journal.Write(seen);
            }
#pragma warning disable CA1031 // A read that fails (cowns unavailable) is retried; the oracle only checks what was seen.
            catch (Exception e)
#pragma warning restore CA1031
            {
                journal.Write($"readfail {e.GetType().Name}");
            }

            await Task.Delay(interval);
        }
    }

    public static async Task<int> WriteAsync(Settings settings)
    {
        string prefix = settings.Get("prefix");
        string key = settings.Get("key");
        string marker = Faults.Inside(settings.Get("cluster"), key);
        using var journal = new Journal(settings.Get("journal"));
        await using Client client = await Client.StartAsync(settings);
        await client.Boc.WhenAsync(client.Boc.Cown<LedgerAccount>(prefix + key), a =>
        {
            if (client.Control.KeyExists(marker))
            {
                journal.Write("overlap");
            }

            a.Balance += 0;
        });
        journal.Write("ok write");
        journal.Write("done");
        return 0;
    }

    /// <summary>One write of each of the given cowns, all at once: their activations are placed and their first writes made.</summary>
    public static async Task<int> TouchAsync(Settings settings)
    {
        string prefix = settings.Get("prefix");
        using var journal = new Journal(settings.Get("journal"));
        await using Client client = await Client.StartAsync(settings);
        await Task.WhenAll(settings.Get("keys").Split(',').Select(k => client.Boc.WhenAsync(client.Boc.Cown<LedgerAccount>(prefix + k), a => { a.Balance += 0; })));
        journal.Write("done");
        return 0;
    }

    /// <summary>Collects every idle activation of the cluster now (a management call), as a silo under memory pressure would.</summary>
    public static async Task<int> CollectAsync(Settings settings)
    {
        await using Client client = await Client.StartAsync(settings);
        await client.Grains.GetGrain<IManagementGrain>(0).ForceActivationCollection(TimeSpan.Zero);
        Console.WriteLine("collected");
        return 0;
    }
}
