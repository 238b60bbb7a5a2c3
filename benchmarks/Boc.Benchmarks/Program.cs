using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Running;

// Run everything:            dotnet run -c Release --project benchmarks/Boc.Benchmarks -- --filter '*'
// Run the hot-path suite:    dotnet run -c Release --project benchmarks/Boc.Benchmarks -- --filter 'Boc.Benchmarks.Micro*'
BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, DefaultConfig.Instance);
