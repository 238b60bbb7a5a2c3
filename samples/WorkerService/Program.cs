// A worker service on the generic host with Boc.Extensions.Hosting: a stream of orders flows through a bounded buffer
// into behaviours that reserve each order's stock over the cowns of its products, all lines or none. A full buffer
// makes the source wait, and the runtime's bound (Boc:MaxPendingBehaviours) keeps at most that many orders in behaviours
// at once: the processor waits for room (TryWhen, WaitForRoomAsync) before it reads more. Backpressure from end to end.
// When the stream ends the worker checks that stock was conserved and stops; the host then drains the runtime.
//
//   dotnet run --project samples/WorkerService -c Release [-- --Orders:Count 100000 --Boc:MaxPendingBehaviours 32]

using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using WorkerService;

IHost host = WorkerApp.Create(args);
ProcessingReport report = host.Services.GetRequiredService<ProcessingReport>();
await host.RunAsync();   // returns once the processor stopped the host; disposes it
return report.Conserved ? 0 : 1;
