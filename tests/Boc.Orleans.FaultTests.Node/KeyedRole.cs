using System.Diagnostics;
using System.Globalization;

namespace Boc.Orleans.FaultTests.Node;

/// <summary>
/// One operation spawned with an idempotency key, and a caller that looks its outcome up while it runs: the two sides
/// of the exactly-once promise (docs/distributed.md, "Idempotency keys"). Journals as the spawner does ("start", "ok",
/// "nothing", "duplicate", "unknown", "error"), plus "answer OUTCOME MS" at each change of a lookup's answer.
/// </summary>
internal static class KeyedRole
{
    /// <summary>
    /// keyed: a transfer FROM>TO (or, without to=, a deposit into from=) with id=ID and key=KEY, once, when the gate
    /// gate=NAME opens if one is named (and once silos=N silos are alive, and the cown from= is activated with
    /// activate=true, if given); repeat=N runs it N times in a row with the same key, each delay-ms after the last
    /// outcome (a caller retrying the operation).
    /// </summary>
    public static async Task<int> RunAsync(Settings settings)
    {
        using var journal = new Journal(settings.Get("journal"));
        await using Client client = await Client.StartAsync(settings);
        journal.Write("connected");
        await WaitForSilosAsync(client, settings, journal);

        if (settings.Get("activate", "false") == "true")
        {
            // Activates the cown (an inspection changes nothing else), so that the operation meets a settled cluster.
            while (true)
            {
                try
                {
                    await client.Boc.InspectAsync(client.Boc.Cown<LedgerAccount>(settings.Get("prefix") + settings.Get("from")));
                    break;
                }
#pragma warning disable CA1031 // A silo that died moments ago is still being declared dead: try again.
                catch (Exception e)
#pragma warning restore CA1031
                {
                    journal.Write($"inspectfail {e.GetType().Name}");
                    await Task.Delay(200);
                }
            }

            journal.Write("activated");
        }

        if (settings.Get("gate", "").Length > 0)
        {
            string gate = Faults.Gate(settings.Get("cluster"), settings.Get("gate"));
            while (!await client.Control.KeyExistsAsync(gate))
            {
                await Task.Delay(20);
            }
        }

        int repeat = settings.Number("repeat", 1);
        for (int i = 0; i < repeat; i++)
        {
            if (i > 0)
            {
                await Task.Delay(settings.Millis("delay-ms", 0));
            }

            await SpawnAsync(client.Boc, settings, settings.Get("key"), journal);
        }

        // Every attempt of the process, abandoned ones included: a scenario checks that it drove the retries it names.
        journal.Write(string.Create(CultureInfo.InvariantCulture, $"attempts {BocCluster.Attempts}"));

        journal.Write("done");
        return 0;
    }

    /// <summary>
    /// lookup: asks the coordinator coordinator=K for key=KEY every interval-ms, journaling every change of answer, until
    /// it answers Committed or the gate gate=NAME opens. It starts asking only once the coordinator queues a request (the
    /// operation has reached it), and with reissue=true it acts on a NotCommitted seen after a Pending as a caller would:
    /// it runs the operation again under the key KEY-again.
    /// </summary>
    public static async Task<int> LookUpAsync(Settings settings)
    {
        string prefix = settings.Get("prefix");
        string key = settings.Get("key");
        string gate = Faults.Gate(settings.Get("cluster"), settings.Get("gate", "lookup-stop"));
        TimeSpan interval = settings.Millis("interval-ms", 20);
        using var journal = new Journal(settings.Get("journal"));
        await using Client client = await Client.StartAsync(settings);
        IBocCluster boc = client.Boc;
        ClusterCown<LedgerAccount> coordinator = boc.Cown<LedgerAccount>(prefix + settings.Get("coordinator"));
        journal.Write("connected");

        // An inspection changes nothing: asking by key before the operation reached its coordinator would fence it.
        while ((await boc.InspectAsync(coordinator)).Requests.Count == 0)
        {
            await Task.Delay(10);
        }

        journal.Write("reached");
        var clock = Stopwatch.StartNew();
        ClusterOutcome? last = null;
        bool pendingSeen = false, reissued = false;
        while (!await client.Control.KeyExistsAsync(gate))
        {
            ClusterOutcome answer;
            try
            {
                answer = await boc.GetOutcomeAsync(coordinator, key);
            }
#pragma warning disable CA1031 // A coordinator reloading answers nothing: ask again.
            catch (Exception e)
#pragma warning restore CA1031
            {
                journal.Write($"lookupfail {e.GetType().Name}");
                await Task.Delay(interval);
                continue;
            }

            if (answer != last)
            {
                journal.Write(FormattableString.Invariant($"answer {answer} {clock.ElapsedMilliseconds}"));
                last = answer;
            }

            pendingSeen |= answer == ClusterOutcome.Pending;
            if (answer == ClusterOutcome.Committed)
            {
                break;
            }

            if (answer == ClusterOutcome.NotCommitted && pendingSeen && !reissued && settings.Get("reissue", "false") == "true")
            {
                // The caller trusts the definitive answer and runs the operation again, under a new key.
                reissued = true;
                journal.Write("reissue");
                await SpawnAsync(boc, settings, key + "-again", journal);
            }

            await Task.Delay(interval);
        }

        journal.Write("done");
        return 0;
    }

    /// <summary>members: journals "silos" once silos=N silos are active (and exits).</summary>
    public static async Task<int> MembersAsync(Settings settings)
    {
        using var journal = new Journal(settings.Get("journal"));
        await using Client client = await Client.StartAsync(settings);
        await WaitForSilosAsync(client, settings, journal);
        return 0;
    }

    /// <summary>Waits until the membership counts silos=N active silos (a killed one declared dead, a new one joined).</summary>
    private static async Task WaitForSilosAsync(Client client, Settings settings, Journal journal)
    {
        if (settings.Number("silos", 0) is int silos and > 0)
        {
            IManagementGrain management = client.Grains.GetGrain<IManagementGrain>(0);
            while ((await management.GetHosts(onlyActive: true)).Count != silos)
            {
                await Task.Delay(100);
            }

            journal.Write("silos");
        }
    }

    private static async Task SpawnAsync(IBocCluster boc, Settings settings, string key, Journal journal)
    {
        string prefix = settings.Get("prefix");
        string from = settings.Get("from");
        string to = settings.Get("to", "");
        int id = settings.Number("id", 1);
        long amount = settings.Number("amount", 10);
        journal.Write(FormattableString.Invariant($"start {id} {prefix}{from} {(to.Length > 0 ? prefix + to : "-")} {amount}"));
        try
        {
            IBocCluster keyed = boc.WithIdempotencyKey(key);
            if (to.Length > 0)
            {
                await keyed.WhenAsync(boc.Cown<LedgerAccount>(prefix + from), boc.Cown<LedgerAccount>(prefix + to), (f, t) =>
                {
                    f.Balance -= amount;
                    t.Balance += amount;
                    f.Transfers.Add(id);
                    t.Transfers.Add(id);
                });
            }
            else
            {
                await keyed.WhenAsync(boc.Cown<LedgerAccount>(prefix + from), a =>
                {
                    a.Balance += amount;
                    a.Transfers.Add(id);
                });
            }

            journal.Write(string.Create(CultureInfo.InvariantCulture, $"ok {id}"));
        }
        catch (BocClusterDuplicateException)
        {
            journal.Write(string.Create(CultureInfo.InvariantCulture, $"duplicate {id}"));
        }
        catch (BocClusterException e)
        {
            journal.Write(string.Create(CultureInfo.InvariantCulture, $"nothing {id} {e.Message.Replace('\n', ' ')}"));
        }
#pragma warning disable CA1031 // Every other outcome is journaled for the oracle.
        catch (Exception e)
#pragma warning restore CA1031
        {
            journal.Write(e is BocClusterOutcomeUnknownException
                ? string.Create(CultureInfo.InvariantCulture, $"unknown {id}")
                : string.Create(CultureInfo.InvariantCulture, $"error {id} {e.GetType().Name}"));
        }
    }
}
