// The local store: Microsoft Garnet, a Redis-protocol server from NuGet, in a process of its own on 127.0.0.1, kept as
// durable as the redis-server the fault tests otherwise run (`--appendonly yes --appendfsync always`): every write is
// appended to the append-only file and committed before it is answered (--aof, --aof-commit-freq 0, --aof-commit-wait),
// and a start on the same folder replays that file (--recover), so a store killed with SIGKILL and started again holds
// every write it answered. Lua scripts are on and run as transactions, their keys locked (Orleans' Redis storage
// checks its ETags in a script, which must be atomic as in Redis).
//
//   dotnet Boc.TestStore.dll PORT DIRECTORY
//
// Prints "ready" once it accepts connections. Ends when its standard input closes: LocalStore.cs keeps a pipe to it,
// which the operating system closes when the starting process exits, however it ends, so no store outlives its user.
using System.Globalization;
using Garnet;

if (args.Length != 2 || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int port) || port is <= 0 or > 65535)
{
    Console.Error.WriteLine("usage: Boc.TestStore PORT DIRECTORY");
    return 2;
}

string directory = Path.GetFullPath(args[1]);
Directory.CreateDirectory(directory);
string[] options =
[
    "--bind", "127.0.0.1",
    "--port", port.ToString(CultureInfo.InvariantCulture),
    "--checkpointdir", directory,
    "--aof", "true",
    "--aof-commit-freq", "0",
    "--aof-commit-wait", "true",

    // The managed device, which opens its files write-through (O_DSYNC): a committed write is on disk, as with
    // appendfsync always. (The default native device needs libaio, which a fresh machine may not have.)
    "--device-type", "RandomAccess",
    "--recover", "true",
    "--lua", "true",
    "--lua-transaction-mode", "true",

    // A test's worth of keys: a small index and log, not the server defaults (128 MB of index up front).
    "--index", "16m",
    "--memory", "256m",
    "--page", "4m",
    "--aof-page-size", "8m",
    "--aof-memory", "64m",
    "-q", "true",
    "--logger-level", "Warning",
];

using var server = new GarnetServer(options);
server.Start();
Console.WriteLine("ready");
Console.Out.Flush();

// Runs until the starter's end of the pipe closes (or, run by hand, until Ctrl-D).
await Console.In.ReadToEndAsync();
return 0;
