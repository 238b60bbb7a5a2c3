namespace Boc.AnalyzerCost;

/// <summary>Where the repository and the two assemblies a corpus uses (Boc and its analyzer, Release builds) are.</summary>
internal static class Repository
{
    public static string Root()
    {
        for (DirectoryInfo? directory = new(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "Boc.sln")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException("Boc.sln not found above " + AppContext.BaseDirectory);
    }

    public static string BocAssembly(string root) => Existing(Path.Combine(root, "src", "Boc", "bin", "Release", "net10.0", "Boc.dll"));

    public static string AnalyzerAssembly(string root) =>
        Existing(Path.Combine(root, "analyzers", "Boc.Analyzers", "bin", "Release", "netstandard2.0", "Boc.Analyzers.dll"));

    private static string Existing(string path) =>
        File.Exists(path) ? path : throw new FileNotFoundException($"{path} is missing: build it first (run.sh does)", path);
}
