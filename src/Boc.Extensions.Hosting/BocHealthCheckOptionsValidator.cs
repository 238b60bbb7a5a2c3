using Microsoft.Extensions.Options;

namespace Boc.Extensions.Hosting;

/// <summary>Rejects health-check thresholds that make no sense, naming the key (configuration path or property).</summary>
internal sealed class BocHealthCheckOptionsValidator(string prefix) : IValidateOptions<BocHealthCheckOptions>
{
    public ValidateOptionsResult Validate(string? name, BocHealthCheckOptions options)
    {
        var errors = new List<string>();
        if (!(options.FullRatio > 0 && options.FullRatio <= 1))
        {
            errors.Add($"{prefix}FullRatio is {options.FullRatio}: it must be greater than 0 and at most 1 (a fraction of MaxPendingBehaviours).");
        }

        if (options.FailureThreshold is < 0 or > BocHealthCheckOptions.MaxFailureThreshold)
        {
            errors.Add($"{prefix}FailureThreshold is {options.FailureThreshold}: it must be between 0 (off) and {BocHealthCheckOptions.MaxFailureThreshold}.");
        }

        if (options.FailureWindow <= TimeSpan.Zero)
        {
            errors.Add($"{prefix}FailureWindow is {options.FailureWindow}: it must be positive.");
        }

        return errors.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(errors);
    }
}
