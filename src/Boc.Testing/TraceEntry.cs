using System.Globalization;
using System.Text;

namespace Boc.Testing;

/// <summary>
/// One recorded step, kept compact (formatted only when a trace is read): cowns are numbered in order of first
/// appearance in the run (c0, c1, …), behaviours in the order they were spawned (b1, b2, …), so the same schedule
/// always prints the same trace whatever cown ids the process handed out.
/// </summary>
/// <remarks>
/// A <see cref="WorkKind.Spawn"/> entry is a scheduling point inside a step: <see cref="Id"/> is the spawning behaviour
/// (0: not a body; <see cref="SpawnerKind"/> says what), <see cref="Spawned"/> the new behaviour, and
/// <see cref="Ready"/> 0 when the spawner paused there (the next entry is the step chosen instead).
/// </remarks>
internal readonly record struct TraceEntry(
    WorkKind Kind, int Ready, int Chosen, int Id, int CownStart, int CownCount, long TimeTicks, int Spawned = 0, WorkKind SpawnerKind = WorkKind.Behaviour, bool SpawnedReady = false)
{
    public string Format(int step, IReadOnlyList<int> cowns)
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
                text.Append(CultureInfo.InvariantCulture, $"behaviour b{Id} runs on ");
                AppendCowns(text, cowns);
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
            case WorkKind.Spawn:
                text.Append(Spawner()).Append(CultureInfo.InvariantCulture, $" spawned b{Spawned} on ");
                AppendCowns(text, cowns);
                text.Append(SpawnedReady ? ", which is ready; " : ", which waits; ").Append(Spawner()).Append(Ready > 0 ? " continues" : " pauses");
                break;
            case WorkKind.Resume:
                text.Append(Spawner()).Append(CultureInfo.InvariantCulture, $" resumes after spawning b{Spawned}");
                break;
        }

        return text.ToString();
    }

    private string Spawner() => Id != 0
        ? string.Create(CultureInfo.InvariantCulture, $"b{Id}")
        : SpawnerKind switch
        {
            WorkKind.Task => "a task",
            WorkKind.Timer => "a timer callback",
            _ => "the scenario",
        };

    private void AppendCowns(StringBuilder text, IReadOnlyList<int> cowns)
    {
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
    }
}
