namespace Boc.Testing;

/// <summary>The controlled runtime's <see cref="BocRuntime.Scheduler"/>: queued tasks become steps of the run.</summary>
internal sealed class ControlledTaskScheduler(ControlledExecution execution) : TaskScheduler
{
    public override int MaximumConcurrencyLevel => 1;

    internal void Execute(Task task) => TryExecuteTask(task);

    protected override void QueueTask(Task task) => execution.Queue(task);

    // Never inline: running a task is a scheduling point like any other.
    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued) => false;

    protected override IEnumerable<Task>? GetScheduledTasks() => execution.QueuedTasks();
}
