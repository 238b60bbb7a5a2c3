using System.Globalization;
using System.Text;

namespace Boc.Testing;

/// <summary>
/// One recorded step, kept compact (formatted only when a trace is read): cowns are numbered in order of first
/// appearance in the run (c0, c1, …), behaviours in the order they were spawned (b1, b2, …), so the same schedule
/// always prints the same trace whatever cown ids the process handed out. Beside the numbers it says what each one is
/// (<see cref="TraceNames"/>): a cown's name, a behaviour's body, the method an await resumes, where a spawn was made.
/// </summary>
/// <remarks>
/// A <see cref="WorkKind.Spawn"/> entry is a scheduling point inside a step: <see cref="Id"/> is the spawning behaviour
/// (0: not a body; <see cref="SpawnerKind"/> says what), <see cref="Spawned"/> the new behaviour, and
/// <see cref="Ready"/> 0 when the spawner paused there (the next entry is the step chosen instead). A
/// <see cref="WorkKind.Continuation"/> entry keeps what was posted (<see cref="Posted"/>), to name the method it resumes.
/// </remarks>
internal readonly record struct TraceEntry(
    WorkKind Kind, int Ready, int Chosen, int Id, int CownStart, int CownCount, long TimeTicks, int Spawned = 0, WorkKind SpawnerKind = WorkKind.Behaviour, bool SpawnedReady = false, object? Posted = null)
{
    public string Format(int step, IReadOnlyList<int> cowns, IReadOnlyList<string?> cownNames, TraceNames names)
    {
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"step {step}");
        if (Ready > 0)
        {
            text.Append(CultureInfo.InvariantCulture, $" ({Chosen + 1} of {Ready} ready)");
        }

        text.Append(": ");
        switch (Kind)
        {
            case WorkKind.ScenarioStart:
                text.Append("scenario starts");
                break;
            case WorkKind.Behaviour:
                text.Append("behaviour ").Append(names.Behaviour(Id)).Append(" runs on ");
                AppendCowns(text, cowns, cownNames);
                break;
            case WorkKind.Continuation:
                text.Append(Id == 0 ? "an await resumes" : names.Behaviour(Id) + "'s body resumes after an await");
                if (TraceNames.Resumed(Posted) is { } method)
                {
                    text.Append(" in ").Append(method);
                }

                break;
            case WorkKind.Task:
                text.Append(Id == 0 ? "task on the runtime's scheduler" : "task on the runtime's scheduler, queued by " + names.Behaviour(Id));
                break;
            case WorkKind.Timer:
                text.Append(CultureInfo.InvariantCulture, $"timer t{Id} fires at virtual time {TimeSpan.FromTicks(TimeTicks):c}");
                break;
            case WorkKind.Spawn:
                text.Append(Spawner(names)).Append(" spawned ").Append(names.Behaviour(Spawned));
                if (names.SiteOf(Spawned) is { } site)
                {
                    text.Append(" in ").Append(site);
                }

                text.Append(" on ");
                AppendCowns(text, cowns, cownNames);
                text.Append(SpawnedReady ? ", which is ready; " : ", which waits; ").Append(Spawner(names)).Append(Ready > 0 ? " continues" : " pauses");
                break;
            case WorkKind.Resume:
                text.Append(Spawner(names)).Append(CultureInfo.InvariantCulture, $" resumes after spawning b{Spawned}");
                break;
        }

        return text.ToString();
    }

    private string Spawner(TraceNames names) => Id != 0
        ? names.Behaviour(Id)
        : SpawnerKind switch
        {
            WorkKind.Task => "a task",
            WorkKind.Timer => "a timer callback",
            _ => "the scenario",
        };

    private void AppendCowns(StringBuilder text, IReadOnlyList<int> cowns, IReadOnlyList<string?> cownNames)
    {
        for (int i = 0; i < CownCount; i++)
        {
            int code = cowns[CownStart + i];
            text.Append(i == 0 ? string.Empty : ", ").Append(CultureInfo.InvariantCulture, $"c{code >> 1}");
            if (cownNames[code >> 1] is { } name)
            {
                text.Append(" \"").Append(name).Append('"');
            }

            text.Append((code & 1) != 0 ? " (read)" : string.Empty);
        }

        if (CownCount == 0)
        {
            text.Append("no cowns");
        }
    }
}
