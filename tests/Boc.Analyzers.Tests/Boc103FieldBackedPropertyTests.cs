using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// C# 14 <c>field</c>-backed properties: the compiler emits the backing field of an <c>init</c> accessor that uses
/// <c>field</c> as not readonly, so the type is judged by the property (settable or not) and by whether its accessors
/// write <c>field</c> after construction, not by the field's flag (issue 62's false positive).
/// </summary>
public class Boc103FieldBackedPropertyTests
{
    [Fact]
    public Task Init_only_field_backed_properties_are_immutable() => VerifyAsync("""
        sealed class Rate
        {
            public decimal Value { get => field; init => field = Math.Round(value, 2); }
            public string Currency { get => field; init => field = value.ToUpperInvariant(); } = "EUR";
            public int Scale { get => field; } = 2;
        }

        class C
        {
            void M(Cown<Account> c, Cown<Account> d, Rate rate)
            {
                var local = new Rate { Value = 1.5m };
                When(c, a => a.Balance += (long)(rate.Value * rate.Scale) + local.Currency.Length);
                When(d, a => a.Balance += (long)rate.Value + (long)local.Value);
                Console.WriteLine(local.Value);
            }
        }
        """);

    [Fact]
    public Task Field_backed_properties_with_a_setter_or_a_writing_getter_are_mutable() => VerifyAsync("""
        sealed class Rate
        {
            public decimal Value { get => field; set => field = Math.Round(value, 2); }
        }

        sealed class Cached
        {
            private readonly int _seed;
            public Cached(int seed) => _seed = seed;
            public string Text => field ??= _seed.ToString();
        }

        class C
        {
            void M(Cown<Account> c, Cown<Account> d, Rate rate, Cached cached)
            {
                When(c, a => a.Balance += (long){|BOC103:rate|}.Value);
                When(d, a => a.Balance += {|BOC103:cached|}.Text.Length);
            }
        }
        """);
}
