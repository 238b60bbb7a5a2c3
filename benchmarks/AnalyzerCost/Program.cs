// What the Boc analyzer costs a build (issue 47), on generated service-style projects of growing size.
//
//   bash benchmarks/AnalyzerCost/run.sh                       # 1k, 3k, 7k, 15k lines, 3 rounds each (the one command)
//   bash benchmarks/AnalyzerCost/run.sh --sizes 7000 --rounds 5
//   dotnet run -c Release --project benchmarks/AnalyzerCost -- generate DIR LINES   # write one corpus and stop
//   dotnet run -c Release --project benchmarks/AnalyzerCost -- profile LINES [REPEAT [OTHER.dll]]  # in process, per rule
//
// run: for each size, generates a corpus (Corpus.cs) into a work folder outside the repository (so none of its build
// settings apply), restores it once, builds it once to warm the disk cache, then builds it ROUNDS times with the
// analyzer and ROUNDS times without, alternately (the order flips every round), each a full rebuild with
// -p:ReportAnalyzer=true, no build server and no node reuse, so that every process of the build is a child of this
// program and its CPU time (user + sys, from getrusage of the waited-for children) is the build's. Wall time is not
// used: the machine is shared. Each build with the analyzer must report exactly the corpus's seeded mistakes, and each
// build without it none. Prints, and writes to --out, a Markdown report: the Boc analyzer's time as the compiler
// reports it, its share of the build's CPU, the build's CPU with and without it, and each rule's time (medians).
//
// profile: runs the rules on a corpus in this process (CompilationWithAnalyzers, analyzer telemetry), which is what to
// look at when making a rule cheaper; times are per rule, medians over REPEAT fresh compilations. Given another build of
// Boc.Analyzers.dll (an older commit's), it runs the two alternately instead and prints, per rule and in all, the CPU
// time of the threads in the rules' callbacks and the ratio (ThreadCpuAnalyzer): unlike wall time, it holds on a busy
// machine.

using System.Globalization;
using Boc.AnalyzerCost;

CultureInfo.DefaultThreadCurrentCulture = CultureInfo.InvariantCulture;
CultureInfo.CurrentCulture = CultureInfo.InvariantCulture;
string root = Repository.Root();
string mode = args.Length > 0 && !args[0].StartsWith('-') ? args[0] : "run";
switch (mode)
{
    case "generate":
    {
        if (args.Length < 3)
        {
            Console.Error.WriteLine("usage: generate DIR LINES");
            return 2;
        }

        Corpus corpus = Corpus.Generate(int.Parse(args[2], CultureInfo.InvariantCulture));
        corpus.WriteTo(Path.GetFullPath(args[1]), Repository.BocAssembly(root), Repository.AnalyzerAssembly(root));
        Console.WriteLine($"{corpus.Lines} lines, {corpus.Spawns} spawns, {corpus.Modules} modules, seeded: {string.Join(", ", corpus.Expected.Select(e => $"{e.Key} x{e.Value}"))}");
        return 0;
    }

    case "profile":
    {
        int lines = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 7000;
        int repeat = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 5;
        return await InProcessProfile.RunAsync(root, lines, repeat, args.Length > 3 ? args[3] : null);
    }

    case "run":
    {
        var options = RunOptions.Parse(args.Skip(mode == "run" && args.Length > 0 && args[0] == "run" ? 1 : 0).ToArray(), root);
        return await BuildBenchmark.RunAsync(root, options);
    }

    default:
        Console.Error.WriteLine($"unknown mode '{mode}' (run, generate, profile)");
        return 2;
}
