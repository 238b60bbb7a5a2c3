namespace Boc.Analyzers;

/// <summary>
/// Namespace tests by name, without building the namespace's display string: the rules ask them for nearly every type
/// and call they meet, and <c>ToDisplayString</c> is among the dearest calls of the symbol API.
/// </summary>
internal static class Namespaces
{
    /// <summary>Whether <paramref name="ns"/> is the namespace <paramref name="dotted"/> (<c>System.Collections.Generic</c>).</summary>
    public static bool Is(Microsoft.CodeAnalysis.INamespaceSymbol? ns, string dotted)
    {
        int end = dotted.Length;
        for (Microsoft.CodeAnalysis.INamespaceSymbol? current = ns; current is { IsGlobalNamespace: false } && end > 0; current = current.ContainingNamespace)
        {
            int start = dotted.LastIndexOf('.', end - 1) + 1;
            string name = current.Name;
            if (end - start != name.Length || string.CompareOrdinal(dotted, start, name, 0, name.Length) != 0)
            {
                return false;
            }

            if (start == 0)
            {
                return current.ContainingNamespace is null or { IsGlobalNamespace: true };
            }

            end = start - 1;
        }

        return false;
    }

    /// <summary>Whether <paramref name="ns"/> is one of <paramref name="names"/>.</summary>
    public static bool IsAny(Microsoft.CodeAnalysis.INamespaceSymbol? ns, System.Collections.Generic.IEnumerable<string> names)
    {
        if (ns is null)
        {
            return false;
        }

        foreach (string name in names)
        {
            if (Is(ns, name))
            {
                return true;
            }
        }

        return false;
    }
}
