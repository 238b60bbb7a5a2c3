// The bank-transfer example of the BoC paper (section 2.4, Listing 5): several tellers move money between random
// accounts at the same time. Each transfer is one behaviour on two cowns, so it is atomic and needs no locks, and two
// tellers' transfers can never deadlock however their account pairs overlap.
//
//   dotnet run --project samples/BankTransfer -c Release [-- tellers transfersPerTeller accounts seed]

using System.Globalization;
using Boc;
using static Boc.Behaviours;

int tellers = ArgOrDefault(0, 4);
int transfersPerTeller = ArgOrDefault(1, 50_000);
int accountCount = ArgOrDefault(2, 100);
int seed = ArgOrDefault(3, 2023);
const long InitialBalance = 1_000;

var accounts = new Cown<Account>[accountCount];
for (int i = 0; i < accountCount; i++)
{
    accounts[i] = new Cown<Account>(new Account(InitialBalance));
}

// Each teller keeps its own tally in a cown of its own; tellers never share mutable state outside cowns.
var tallies = new Cown<Tally>[tellers];
for (int t = 0; t < tellers; t++)
{
    tallies[t] = new Cown<Tally>(new Tally());
}

var clock = System.Diagnostics.Stopwatch.StartNew();
for (int t = 0; t < tellers; t++)
{
    int teller = t;

    // A teller is itself a behaviour (on its tally); it issues its transfers from a worker, concurrently with the
    // other tellers.
    When(tallies[teller], tally =>
    {
        var random = new Random(seed + teller);
        for (int i = 0; i < transfersPerTeller; i++)
        {
            int from = random.Next(accountCount);
            int to = random.Next(accountCount - 1);
            to += to >= from ? 1 : 0;
            long amount = random.Next(1, 200);
            Cown<Tally> mine = tallies[teller];

            // Listing 5: withdraw and deposit in one behaviour, so no other behaviour sees the money in flight.
            When(accounts[from], accounts[to], (src, dst) =>
            {
                bool done = src.Balance >= amount && !src.Frozen && !dst.Frozen;
                if (done)
                {
                    src.Balance -= amount;
                    dst.Balance += amount;
                }

                // Record the outcome on the teller's tally: a separate behaviour, ordered after this one.
                When(mine, t => t.Record(done));
            });
        }
    });
}

await WaitForQuiescenceAsync();
clock.Stop();

// Read every account in one behaviour: a consistent snapshot of the whole bank.
long total = await WhenAsync(accounts.Select(Read).ToArray(), balances => balances.Sum(a => a.Balance));
var (succeeded, refused) = (0L, 0L);
foreach (Cown<Tally> tally in tallies)
{
    (long ok, long no) = await WhenAsync(Read(tally), t => (t.Succeeded, t.Refused));
    succeeded += ok;
    refused += no;
}

long expected = InitialBalance * accountCount;
Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
    $"{tellers} tellers, {tellers * transfersPerTeller:N0} transfers over {accountCount} accounts in {clock.Elapsed.TotalMilliseconds:F0} ms"));
Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"succeeded {succeeded:N0}, refused for lack of funds {refused:N0}"));
Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"total balance {total:N0}, expected {expected:N0}: {(total == expected ? "money conserved" : "MONEY NOT CONSERVED")}"));

bool conserved = total == expected && succeeded + refused == (long)tellers * transfersPerTeller;
return conserved ? 0 : 1;

int ArgOrDefault(int index, int fallback) =>
    args.Length > index ? int.Parse(args[index], CultureInfo.InvariantCulture) : fallback;

internal sealed class Account(long balance)
{
    public long Balance { get; set; } = balance;

    public bool Frozen { get; set; }
}

internal sealed class Tally
{
    public long Succeeded { get; private set; }

    public long Refused { get; private set; }

    public void Record(bool succeeded)
    {
        if (succeeded)
        {
            Succeeded++;
        }
        else
        {
            Refused++;
        }
    }
}
