using System.Globalization;
using System.Text;

namespace Boc.Testing;

/// <summary>
/// One recorded step, kept compact (formatted only when a trace is read): cowns are numbered in order of first
/// appearance in the run (c0, c1, …), behaviours in the order the protocol made them ready (b1, b2, …), so the same
/// schedule always prints the same trace whatever cown ids the process handed out.
/// </summary>
internal readonly record struct TraceEntry(WorkKind Kind, int Ready, int Chosen, int Id, int CownStart, int CownCount, long TimeTicks)
{
    public string Format(int step, IReadOnlyList<int> cowns)
    {
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"step {step} ({Chosen + 1} of {Ready} ready): ");
        switch (Kind)
        {
            case WorkKind.ScenarioStart:
                text.Append("scenario starts");
                break;
            case WorkKind.Behaviour:
                text.Append(CultureInfo.InvariantCulture, $"behaviour b{Id} runs on ");
                for (int i = 0; i < CownCount; i++)
                {
                    int code = cowns[CownStart + i];
                    text.Append(i == 0 ? string.Empty : ", ")
                        .Append(CultureInfo.InvariantCulture, $"c{code >> 1}")
                        .Append((code & 1) != 0 ? " (read)" : string.Empty);
                }

                if (CownCount == 0)
                {
                    text.Append("no cowns");
                }

                break;
            case WorkKind.Continuation:
                text.Append(Id == 0 ? "an await resumes" : string.Create(CultureInfo.InvariantCulture, $"b{Id}'s body resumes after an await"));
                break;
            case WorkKind.Task:
                text.Append(Id == 0 ? "task on the runtime's scheduler" : string.Create(CultureInfo.InvariantCulture, $"task on the runtime's scheduler, queued by b{Id}"));
                break;
            case WorkKind.Timer:
                text.Append(CultureInfo.InvariantCulture, $"timer t{Id} fires at virtual time {TimeSpan.FromTicks(TimeTicks):c}");
                break;
        }

        return text.ToString();
    }
}
