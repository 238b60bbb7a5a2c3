using System.Text.RegularExpressions;

namespace Boc.ModelTests;

/// <summary>
/// The model tests see only the steps that go through the atomics facade (src/Boc/Concurrency/Atomic.cs): a
/// <c>Volatile</c> or <c>Interlocked</c> call written directly in the runtime would be a step the explorer cannot
/// interleave. This keeps the facade the only way.
/// </summary>
public sealed partial class FacadeTests
{
    [Fact]
    public void EveryAtomicStepOfTheRuntime_GoesThroughTheFacade()
    {
        string src = Path.Combine(RepositoryRoot(), "src", "Boc");
        var direct = new List<string>();
        foreach (string file in Directory.EnumerateFiles(src, "*.cs", SearchOption.AllDirectories))
        {
            string relative = Path.GetRelativePath(src, file).Replace('\\', '/');
            if (relative.StartsWith("obj/", StringComparison.Ordinal) || relative.StartsWith("bin/", StringComparison.Ordinal)
                || relative == "Concurrency/Atomic.cs"

                // Debug builds' test hooks, set by tests and read at a few points: not steps of the protocol.
                || relative == "Protocol/ProtocolTestHooks.cs")
            {
                continue;
            }

            string[] lines = File.ReadAllLines(file);
            for (int i = 0; i < lines.Length; i++)
            {
                string code = lines[i];
                int comment = code.IndexOf("//", StringComparison.Ordinal);
                if (comment >= 0)
                {
                    code = code[..comment];
                }

                if (DirectCall().IsMatch(code))
                {
                    direct.Add($"{relative}:{i + 1}: {lines[i].Trim()}");
                }
            }
        }

        Assert.True(direct.Count == 0, "Use Atomic (Concurrency/Atomic.cs) instead of Volatile/Interlocked:\n" + string.Join('\n', direct));
    }

    private static string RepositoryRoot()
    {
        for (DirectoryInfo? directory = new(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "Boc.sln")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException("The repository root (Boc.sln) was not found above " + AppContext.BaseDirectory);
    }

    [GeneratedRegex(@"\b(Volatile|Interlocked)\.[A-Z]|Thread\.SpinWait\(|\bvolatile\s+\w")]
    private static partial Regex DirectCall();
}
