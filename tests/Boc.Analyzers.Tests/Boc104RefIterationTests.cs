using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// <c>foreach (ref …)</c> over a span of read-only state: the iteration variable is a reference into the state, so a
/// write to it writes the state (issue 62); <c>ref readonly</c> and value iteration variables are copies or read-only.
/// </summary>
public class Boc104RefIterationTests
{
    private const string Types = """

        public struct Point { public int X; public int Y; }

        public sealed class Shape
        {
            public long[] History { get; } = new long[4];
            public List<Point> Points { get; } = new();
        }
        """;

    [Fact]
    public Task Writes_through_a_ref_iteration_variable_are_reported() => VerifyAsync("""
        using System.Runtime.InteropServices;

        class C
        {
            void M(Cown<Shape> c)
            {
                When(Read(c), s => { foreach (ref long h in s.History.AsSpan()) {|BOC104:h|} = 0; });
                When(Read(c), s => { foreach (ref var h in s.History.AsSpan(1)) {|BOC104:h|}++; });
                When(Read(c), s => { foreach (ref Point p in CollectionsMarshal.AsSpan(s.Points)) {|BOC104:p.X|} = 1; });
            }
        }
        """ + Types);

    [Fact]
    public Task Read_only_or_value_iteration_and_write_acquisitions_are_not_reported() => VerifyAsync("""
        using System.Runtime.InteropServices;

        class C
        {
            void M(Cown<Shape> c)
            {
                When(Read(c), s => { long sum = 0; foreach (ref readonly long h in s.History.AsSpan()) sum += h; });
                When(Read(c), s => { foreach (var h in s.History) { long x = h; x++; } });
                When(Read(c), s => { foreach (ref long h in s.History.ToArray().AsSpan()) h = 0; });
                When(Read(c), s => { foreach (Point p in CollectionsMarshal.AsSpan(s.Points)) { Point q = p; q.X = 1; } });
                When(c, s => { foreach (ref long h in s.History.AsSpan()) h = 0; });
            }
        }
        """ + Types);
}
