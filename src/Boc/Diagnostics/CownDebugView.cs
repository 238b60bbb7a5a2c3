using System.Diagnostics;

namespace Boc.Diagnostics;

/// <summary>What a debugger shows when a <see cref="Cown{T}"/> is expanded: its id, its queue, and its state.</summary>
/// <typeparam name="T">The type of the cown's state.</typeparam>
/// <param name="cown">The cown shown.</param>
internal sealed class CownDebugView<T>(Cown<T> cown)
    where T : class
{
    /// <summary>Gets the cown's id.</summary>
    public long Id => cown.Id;

    /// <summary>Gets the queue dump, line by line (a racy snapshot: see <see cref="Cown.DescribeQueue"/>).</summary>
    public string[] Queue => cown.DescribeQueue().Split(Environment.NewLine);

    /// <summary>
    /// Gets the state, read without acquiring the cown: with the program stopped in a debugger that is what one wants
    /// to see, but a behaviour may be in the middle of changing it.
    /// </summary>
    [DebuggerBrowsable(DebuggerBrowsableState.Collapsed)]
    public T State => (T)cown.State;
}
