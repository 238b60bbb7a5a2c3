// One process of the fault tests (tests/Boc.Orleans.FaultTests): a silo, a spawner of transfers, or a reader.
//
//   silo     redis=HOST:PORT cluster=ID silo-port=N gateway-port=N [lease-ms=2000] [probe-ms=1000 missed=2]
//   (every role: lease-ms, poll-ms, max-attempts, response-ms)
//   spawner  redis=… cluster=… prefix=… accounts=N transfers=N seed=N journal=PATH [in-flight=4]
//            [open=true] [plan=FROM>TO:AMOUNT,…] [max-attempts=N] [hold-ms=N]
//   reader   redis=… cluster=… prefix=… keys=K1,K2,… journal=PATH [interval-ms=50]     snapshots until killed
//            or: inside=K1,K2 gate=NAME: one read holding its cowns (marked in Redis) until the gate opens
//   writer   redis=… cluster=… prefix=… key=K journal=PATH        one write; journals "overlap" if a reader is inside
//   touch    redis=… cluster=… prefix=… keys=K1,K2,… journal=PATH  one write of each key, all at once
//   collect  redis=… cluster=…                                   forces collection of every idle activation
//   keyed    redis=… cluster=… prefix=… from=K [to=K] id=N key=KEY journal=PATH [gate=NAME repeat=N delay-ms=N]   KeyedRole.cs
//   lookup   redis=… cluster=… prefix=… coordinator=K key=KEY journal=PATH [reissue=true from= to= id=]
//   members  redis=… cluster=… silos=N journal=PATH             journals "silos" once N silos are active
//   (silo: skew-ms=N runs its cowns on a wall clock N ms ahead; every role: retention-ms)
//
// A silo prints "ready" once started. Journals get one line per event, flushed at once, so a kill -9 loses none that
// was written: "start ID FROM TO AMOUNT", "ok ID", "nothing ID" (BocClusterException: nothing written), "unknown ID"
// (outcome unknown), "error ID TYPE", "seen K=BALANCE:ID,ID;…" (a reader's snapshot), "overlap" (a writer ran while a
// reader was inside its body), "done".
using Boc.Orleans.FaultTests.Node;

Settings settings = Settings.Parse(args);
return settings.Role switch
{
    "silo" => await SiloRole.RunAsync(settings),
    "spawner" => await SpawnerRole.RunAsync(settings),
    "reader" => await ReaderRole.RunAsync(settings),
    "writer" => await ReaderRole.WriteAsync(settings),
    "touch" => await ReaderRole.TouchAsync(settings),
    "collect" => await ReaderRole.CollectAsync(settings),
    "keyed" => await KeyedRole.RunAsync(settings),
    "lookup" => await KeyedRole.LookUpAsync(settings),
    "members" => await KeyedRole.MembersAsync(settings),
    _ => throw new ArgumentException($"unknown role {settings.Role}"),
};
