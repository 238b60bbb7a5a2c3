using Microsoft.Extensions.Options;

namespace Boc.Extensions.Hosting;

/// <summary>
/// The options factory of <see cref="BocRuntimeOptions"/> in a host: the same as the options pattern's, except that a
/// new instance starts with the host's dispatcher, the thread pool (see <c>AddBoc</c>), before any configuration runs,
/// so configuration and code registered in any order may still choose <see cref="BocDispatcher.BocScheduler"/>.
/// </summary>
internal sealed class HostedBocRuntimeOptionsFactory(
    IEnumerable<IConfigureOptions<BocRuntimeOptions>> setups,
    IEnumerable<IPostConfigureOptions<BocRuntimeOptions>> postConfigures,
    IEnumerable<IValidateOptions<BocRuntimeOptions>> validations)
    : OptionsFactory<BocRuntimeOptions>(setups, postConfigures, validations)
{
    protected override BocRuntimeOptions CreateInstance(string name) => new() { Dispatcher = BocDispatcher.ThreadPool };
}
