using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;

namespace Boc.Benchmarks;

/// <summary>
/// Before/after comparisons in one BenchmarkDotNet run. <c>benchmarks/tools/bench-before-after.sh</c> packs Boc at an older commit
/// into a local folder and sets <c>BOC_BASELINE_VERSION</c>, <c>BOC_BASELINE_FEED</c> and <c>BOC_BASELINE_PACKAGE</c> (the
/// package id of that commit: <c>Boc</c> before the rename, <c>BehaviourOrientedConcurrency</c> after); then every config adds its job
/// twice: "before", built against that package, and "after", built against the working tree. Without the variables a
/// config has its one job, as usual.
/// </summary>
internal static class BeforeAfter
{
    public static void AddJobs(ManualConfig config, Job job)
    {
        string? version = Environment.GetEnvironmentVariable("BOC_BASELINE_VERSION");
        string? feed = Environment.GetEnvironmentVariable("BOC_BASELINE_FEED");
        string package = Environment.GetEnvironmentVariable("BOC_BASELINE_PACKAGE") is { Length: > 0 } id ? id : "Boc";
        if (string.IsNullOrEmpty(version) || string.IsNullOrEmpty(feed))
        {
            config.AddJob(job);
            return;
        }

        // BenchmarkDotNet runs a class's benchmarks job by job, in the order of the jobs' characteristics, the id first:
        // "after" before "before". BOC_BEFORE_FIRST=1 (set by the script on every other round) prefixes the ids so
        // that "before" runs first, and a process's place in the sequence weighs on both sides alike.
        bool beforeFirst = Environment.GetEnvironmentVariable("BOC_BEFORE_FIRST") == "1";
        config.AddJob(job
            .WithArguments([new MsBuildArgument($"/p:BocBaselineVersion={version}"), new MsBuildArgument($"/p:BocBaselineFeed={feed}"), new MsBuildArgument($"/p:BocBaselinePackage={package}")])
            .WithId(beforeFirst ? "1-before" : "before"));
        config.AddJob(job.WithId(beforeFirst ? "2-after" : "after"));
    }
}
