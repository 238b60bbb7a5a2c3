using System.Runtime.InteropServices;

namespace Boc.Tests;

/// <summary>
/// The suite runs once per target framework of the library. The net8.0 leg runs self-contained on the .NET 8 runtime
/// pack (see Directory.Build.targets), so it must really run on .NET 8, not roll forward to a newer installed runtime.
/// </summary>
public class TargetRuntimeTests
{
    [Fact]
    public void Tests_run_on_the_runtime_of_their_target_framework()
    {
#if NET10_0
        const int expectedMajor = 10;
#elif NET8_0
        const int expectedMajor = 8;
#else
#error Add the expected runtime for this target framework.
#endif
        Assert.True(Environment.Version.Major == expectedMajor, $"expected .NET {expectedMajor}, running on {RuntimeInformation.FrameworkDescription}");
    }

    [Fact]
    public void The_library_under_test_was_built_for_the_same_target_framework()
    {
        string? framework = typeof(BocRuntime).Assembly
            .GetCustomAttributes(typeof(System.Runtime.Versioning.TargetFrameworkAttribute), false)
            .Cast<System.Runtime.Versioning.TargetFrameworkAttribute>()
            .SingleOrDefault()?.FrameworkName;
        Assert.Equal($".NETCoreApp,Version=v{Environment.Version.Major}.0", framework);
    }
}
