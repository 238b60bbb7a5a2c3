using Microsoft.Extensions.Options;

namespace Boc.Extensions.Hosting;

/// <summary>
/// Rejects runtime options that <see cref="BocRuntime"/>'s constructor would refuse, at host start
/// (<c>ValidateOnStart</c>) and naming the key: the configuration path (<c>Boc:WorkerCount</c>) when the options were bound
/// from configuration, else the property (<c>BocRuntimeOptions.WorkerCount</c>). The constructor stays the final judge: a
/// value it refuses that this validator does not know of fails the runtime's creation, named the same way.
/// </summary>
internal sealed class BocRuntimeOptionsValidator(string prefix) : IValidateOptions<BocRuntimeOptions>
{
    public string Prefix { get; } = prefix;

    public ValidateOptionsResult Validate(string? name, BocRuntimeOptions options)
    {
        var errors = new List<string>();
        if (!Enum.IsDefined(options.Dispatcher))
        {
            errors.Add($"{Prefix}Dispatcher is {options.Dispatcher}: it must be ThreadPool or BocScheduler.");
        }

        if (options.WorkerCount is < 1)
        {
            errors.Add($"{Prefix}WorkerCount is {options.WorkerCount}: it must be at least 1, or absent for the dispatcher's default.");
        }

        if (options.MaxPendingBehaviours is < 1)
        {
            errors.Add($"{Prefix}MaxPendingBehaviours is {options.MaxPendingBehaviours}: it must be at least 1, or absent for no bound.");
        }

        if (!Enum.IsDefined(options.FullMode))
        {
            errors.Add($"{Prefix}FullMode is {options.FullMode}: it must be Wait or Throw.");
        }

        return errors.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(errors);
    }
}
