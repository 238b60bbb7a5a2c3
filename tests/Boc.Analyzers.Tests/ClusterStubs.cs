using System.Collections.Immutable;
using Microsoft.CodeAnalysis;
using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// Stand-ins for Boc.Orleans' public API, declared in the test sources: the analyzer matches the types by metadata name,
/// so its tests need neither Orleans' packages nor their newer Roslyn. The shapes follow src/Boc.Orleans
/// (<c>IBocCluster</c>, <c>ClusterAcquirable&lt;T&gt;</c>, <c>ClusterCown&lt;T&gt;</c>, <c>ReadOnlyClusterCown&lt;T&gt;</c>,
/// <c>BocCluster.Read</c>), plus overloads the API may grow (a cancellation token, an idempotency key), which the
/// analyzer must recognise by the types of their parameters.
/// </summary>
internal static class ClusterStubs
{
    public const string Using = "using Boc.Orleans;\n";

    /// <summary><see cref="AnalyzerHarness.VerifyAsync(string)"/> for a source that uses the stand-ins.</summary>
    public static Task VerifyAsync(string markup) => AnalyzerHarness.VerifyAsync(Using + markup + Source);

    /// <summary>The one diagnostic all rules report on a source that uses the stand-ins.</summary>
    public static async Task<Diagnostic> SingleDiagnosticAsync(string source)
    {
        ImmutableArray<Diagnostic> diagnostics = await AnalyzeAsync(Compile([Usings + Using + source + SharedTypes + Source]));
        return Assert.Single(diagnostics);
    }

    public const string Source = """

        namespace Boc.Orleans
        {
            public interface IBocCluster
            {
                ClusterCown<T> Cown<T>(string key) where T : class, new() => new(key);

                Task WhenAsync<T1>(ClusterAcquirable<T1> c1, Action<T1> body) where T1 : class, new() => Task.CompletedTask;

                Task<TResult> WhenAsync<T1, TResult>(ClusterAcquirable<T1> c1, Func<T1, TResult> body) where T1 : class, new() => Task.FromResult(default(TResult)!);

                Task WhenAsync<T1>(ClusterAcquirable<T1> c1, Func<T1, Task> body) where T1 : class, new() => Task.CompletedTask;

                Task<TResult> WhenAsync<T1, TResult>(ClusterAcquirable<T1> c1, Func<T1, Task<TResult>> body) where T1 : class, new() => Task.FromResult(default(TResult)!);

                Task WhenAsync<T1, T2>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Action<T1, T2> body, CancellationToken cancellationToken = default)
                    where T1 : class, new() where T2 : class, new() => Task.CompletedTask;

                Task<TResult> WhenAsync<T1, T2, TResult>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Func<T1, T2, TResult> body, CancellationToken cancellationToken = default)
                    where T1 : class, new() where T2 : class, new() => Task.FromResult(default(TResult)!);

                Task WhenAsync<T1, T2>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Func<T1, T2, Task> body, CancellationToken cancellationToken = default)
                    where T1 : class, new() where T2 : class, new() => Task.CompletedTask;

                Task<TResult> WhenAsync<T1, T2, TResult>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Func<T1, T2, Task<TResult>> body, CancellationToken cancellationToken = default)
                    where T1 : class, new() where T2 : class, new() => Task.FromResult(default(TResult)!);

                Task WhenAsync<T1>(string idempotencyKey, ClusterAcquirable<T1> c1, Action<T1> body) where T1 : class, new() => Task.CompletedTask;

                Task WhenAsync<T>(IReadOnlyList<ClusterAcquirable<T>> cowns, Action<IReadOnlyList<T>> body) where T : class, new() => Task.CompletedTask;

                Task<TResult> WhenAsync<T, TResult>(IReadOnlyList<ClusterAcquirable<T>> cowns, Func<IReadOnlyList<T>, TResult> body) where T : class, new() => Task.FromResult(default(TResult)!);

                Task WhenAsync<T>(IReadOnlyList<ClusterAcquirable<T>> cowns, Func<IReadOnlyList<T>, Task> body) where T : class, new() => Task.CompletedTask;

                Task<TResult> WhenAsync<T, TResult>(IReadOnlyList<ClusterAcquirable<T>> cowns, Func<IReadOnlyList<T>, Task<TResult>> body) where T : class, new() => Task.FromResult(default(TResult)!);
            }

            public abstract class ClusterAcquirable<T> where T : class, new()
            {
                private protected ClusterAcquirable() { }

                public abstract ClusterCown<T> Target { get; }
            }

            public sealed class ClusterCown<T> : ClusterAcquirable<T> where T : class, new()
            {
                internal ClusterCown(string key) => Key = key;

                public string Key { get; }

                public override ClusterCown<T> Target => this;
            }

            public sealed class ReadOnlyClusterCown<T> : ClusterAcquirable<T> where T : class, new()
            {
                internal ReadOnlyClusterCown(ClusterCown<T> cown) => Target = cown;

                public override ClusterCown<T> Target { get; }
            }

            public sealed class BocCluster : IBocCluster
            {
                public static ReadOnlyClusterCown<T> Read<T>(ClusterCown<T> cown) where T : class, new() => new(cown);

                // A call on the class binds to the class's method, not the interface's.
                public Task WhenAsync<T1>(ClusterAcquirable<T1> c1, Action<T1> body) where T1 : class, new() => Task.CompletedTask;
            }
        }
        """;
}
