using System.Collections.Generic;
using System.Linq;
using Microsoft.CodeAnalysis;

namespace Boc.Analyzers;

/// <summary>
/// The types a user declares shareable (immutable or thread-safe), in addition to <see cref="KnownTypes"/>: the
/// <c>.editorconfig</c> option <c>boc.shareable_types</c>, a comma-separated list of type names (<c>Ns.Type</c>,
/// <c>T:Ns.Type</c>, <c>Ns.Generic`1</c> or <c>Ns.Generic&lt;T&gt;</c>, <c>Ns.Outer.Inner</c>) and namespaces
/// (<c>Ns.*</c>, with every namespace under it). Attributes named <c>ImmutableAttribute</c> or
/// <c>ThreadSafeAttribute</c> on a type are read by <see cref="Mutability"/>.
/// </summary>
internal sealed class UserShareableTypes
{
    public const string OptionName = "boc.shareable_types";

    public static readonly UserShareableTypes None = new(new HashSet<string>(), new List<string>());

    private readonly HashSet<string> _ids;
    private readonly List<string> _namespacePrefixes;

    private UserShareableTypes(HashSet<string> ids, List<string> namespacePrefixes)
    {
        _ids = ids;
        _namespacePrefixes = namespacePrefixes;
    }

    public static UserShareableTypes Parse(string? option)
    {
        if (string.IsNullOrWhiteSpace(option))
        {
            return None;
        }

        var ids = new HashSet<string>();
        var prefixes = new List<string>();
        foreach (string raw in SplitTopLevel(option!))
        {
            string entry = raw.Trim();
            if (entry.StartsWith("T:", System.StringComparison.Ordinal))
            {
                entry = entry.Substring(2).Trim();
            }

            if (entry.Length == 0)
            {
                continue;
            }

            if (entry.EndsWith(".*", System.StringComparison.Ordinal))
            {
                prefixes.Add(entry.Substring(0, entry.Length - 2) + ".");
                continue;
            }

            ids.Add("T:" + WithArity(entry));
        }

        return new UserShareableTypes(ids, prefixes);
    }

    public bool Contains(INamedTypeSymbol type)
    {
        if (_ids.Count == 0 && _namespacePrefixes.Count == 0)
        {
            return false;
        }

        if (_ids.Contains(KnownTypes.IdOf(type)))
        {
            return true;
        }

        string ns = (type.ContainingNamespace?.ToDisplayString() ?? "") + ".";
        return _namespacePrefixes.Any(p => ns.StartsWith(p, System.StringComparison.Ordinal));
    }

    /// <summary><c>Cache&lt;TKey, TValue&gt;</c> becomes <c>Cache`2</c>, the form documentation IDs use.</summary>
    private static string WithArity(string name)
    {
        int open = name.IndexOf('<');
        if (open < 0 || !name.EndsWith(">", System.StringComparison.Ordinal))
        {
            return name;
        }

        string arguments = name.Substring(open + 1, name.Length - open - 2);
        int arity = SplitTopLevel(arguments).Count;
        return name.Substring(0, open).Trim() + "`" + arity;
    }

    /// <summary>Splits on commas that are not inside angle brackets.</summary>
    private static List<string> SplitTopLevel(string text)
    {
        var parts = new List<string>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < text.Length; i++)
        {
            switch (text[i])
            {
                case '<':
                    depth++;
                    break;
                case '>':
                    depth--;
                    break;
                case ',' when depth == 0:
                    parts.Add(text.Substring(start, i - start));
                    start = i + 1;
                    break;
            }
        }

        parts.Add(text.Substring(start));
        return parts;
    }
}
