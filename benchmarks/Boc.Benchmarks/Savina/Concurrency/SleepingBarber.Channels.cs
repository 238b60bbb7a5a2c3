using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Concurrency;

/// <summary>
/// Channels baseline of <see cref="SleepingBarberActor"/>: the same Factory, Room, Barber and one actor per Customer
/// (created by the Factory during the run), each a <see cref="ChannelActor{TMessage}"/>.
/// </summary>
/// <remarks>
/// One difference in the Exit chain: a channel actor cannot drop messages after it stops (a send to it throws), so the
/// Room forwards Exit to the Barber, and stops, only once the Barber is asleep, that is after the Room has handled the
/// Barber's last Next (which may still be in flight when the Factory's Exit arrives).
/// </remarks>
[SavinaWorkload("Sleeping Barber", SavinaVariant.Channels)]
public sealed class SleepingBarberChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly SleepingBarberParameters _p = SleepingBarberParameters.For(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Factory _factory = null!;
    private Room _room = null!;
    private Barber _barber = null!;

    // Filled by the Factory as it creates the customers during the run; read after completion to await their loops.
    private Customer[] _customers = [];

    // Published at completion: by the Factory, and by the Barber on Exit.
    private long _attempts;
    private int _served;
    private int _distinctServed;
    private long _barberCuts = -1;

    public override string Metrics => $"attempts={_attempts}";

    private enum FactoryKind
    {
        Start,
        Returned,
        Done,
    }

    private enum RoomKind
    {
        Enter,
        Next,
        Exit,
    }

    private enum BarberKind
    {
        Enter,
        Sleep,
        Exit,
    }

    private enum CustomerMessage
    {
        Full,
        Wait,
        Start,
        Done,
    }

    protected override void Build()
    {
        _factory = new Factory(this);
        _room = new Room(this);
        _barber = new Barber(this);
        _customers = new Customer[_p.Haircuts];
    }

    protected override async Task ExecuteAsync()
    {
        _factory.Send(new FactoryMessage(FactoryKind.Start, null));
        await _done.Task.ConfigureAwait(false);
        await _factory.Completion.ConfigureAwait(false);
        await _room.Completion.ConfigureAwait(false);
        await _barber.Completion.ConfigureAwait(false);
        await Task.WhenAll(_customers.Select(c => c.Completion)).ConfigureAwait(false);
    }

    protected override void Validate()
    {
        Check(_served == _p.Haircuts, $"the Factory counted {_served} haircuts, expected {_p.Haircuts}");
        Check(_distinctServed == _p.Haircuts, $"{_distinctServed} distinct customers were served, expected {_p.Haircuts}");
        Check(_barberCuts == _p.Haircuts, $"the Barber cut {_barberCuts} times, expected {_p.Haircuts}");
        Check(_attempts >= _p.Haircuts, $"{_attempts} attempts for {_p.Haircuts} customers");
    }

    private readonly record struct FactoryMessage(FactoryKind Kind, Customer? Customer);

    private readonly record struct RoomMessage(RoomKind Kind, Customer? Customer);

    private readonly record struct BarberMessage(BarberKind Kind, Customer? Customer);

    private sealed class Factory(SleepingBarberChannels run) : ChannelActor<FactoryMessage>
    {
        private readonly PseudoRandom _random = new();
        private readonly PseudoRandom _burn = new();
        private readonly bool[] _servedFlags = new bool[run._p.Haircuts];
        private long _attempts;
        private int _served;
        private int _distinctServed;

        protected override void Receive(FactoryMessage message)
        {
            switch (message.Kind)
            {
                case FactoryKind.Start:
                    OnStart();
                    break;
                case FactoryKind.Returned:
                    _attempts++;
                    run._room.Send(new RoomMessage(RoomKind.Enter, message.Customer));
                    break;
                case FactoryKind.Done:
                    OnDone(message.Customer!.Id);
                    break;
                default:
                    throw new InvalidOperationException($"the Factory got an unexpected {message.Kind}");
            }
        }

        // On Start: create the N customers, waiting between them.
        private void OnStart()
        {
            for (int i = 0; i < run._p.Haircuts; i++)
            {
                _attempts++;
                var customer = new Customer(run, i);
                run._customers[i] = customer;
                run._room.Send(new RoomMessage(RoomKind.Enter, customer));
                SavinaHelpers.BusyWait(_random.NextInt(run._p.ProductionRate) + 10, _burn);
            }
        }

        // On Done: after N haircuts, publish, stop the room (which stops the barber), the customers and self; complete.
        private void OnDone(int id)
        {
            _served++;
            if (!_servedFlags[id])
            {
                _servedFlags[id] = true;
                _distinctServed++;
            }

            if (_served == run._p.Haircuts)
            {
                run._served = _served;
                run._distinctServed = _distinctServed;
                run._attempts = _attempts;
                run._room.Send(new RoomMessage(RoomKind.Exit, null));
                foreach (Customer customer in run._customers)
                {
                    customer.Stop();
                }

                Stop();
                run._done.SetResult();
            }
        }
    }

    private sealed class Room(SleepingBarberChannels run) : ChannelActor<RoomMessage>
    {
        private readonly Queue<Customer> _waiting = new();
        private bool _barberAsleep = true;
        private bool _exiting;

        protected override void Receive(RoomMessage message)
        {
            switch (message.Kind)
            {
                case RoomKind.Enter:
                    OnEnter(message.Customer!);
                    break;
                case RoomKind.Next:
                    OnNext();
                    break;
                case RoomKind.Exit:
                    _exiting = true;
                    break;
                default:
                    throw new InvalidOperationException($"the Room got an unexpected {message.Kind}");
            }

            // On Exit: stop the barber (once the barber's last Next has been handled, see the class remarks).
            if (_exiting && _barberAsleep)
            {
                _exiting = false;
                run._barber.Send(new BarberMessage(BarberKind.Exit, null));
                Stop();
            }
        }

        // On Enter: turn the customer away if full; else seat it and wake the barber (self Next) or tell it to wait.
        private void OnEnter(Customer customer)
        {
            if (_waiting.Count == run._p.WaitingRoom)
            {
                customer.Send(CustomerMessage.Full);
                return;
            }

            _waiting.Enqueue(customer);
            if (_barberAsleep)
            {
                _barberAsleep = false;
                Send(new RoomMessage(RoomKind.Next, null));
            }
            else
            {
                customer.Send(CustomerMessage.Wait);
            }
        }

        // On Next: send the next customer to the barber, or let the barber sleep.
        private void OnNext()
        {
            if (_waiting.Count > 0)
            {
                run._barber.Send(new BarberMessage(BarberKind.Enter, _waiting.Dequeue()));
            }
            else
            {
                run._barber.Send(new BarberMessage(BarberKind.Sleep, null));
                _barberAsleep = true;
            }
        }
    }

    private sealed class Barber(SleepingBarberChannels run) : ChannelActor<BarberMessage>
    {
        private readonly PseudoRandom _random = new();
        private readonly PseudoRandom _burn = new();
        private long _cuts;

        public long Sleeps { get; private set; }

        protected override void Receive(BarberMessage message)
        {
            switch (message.Kind)
            {
                // On Enter: Start the customer, cut, Done to the customer, Next to the room.
                case BarberKind.Enter:
                    Customer customer = message.Customer!;
                    customer.Send(CustomerMessage.Start);
                    SavinaHelpers.BusyWait(_random.NextInt(run._p.HaircutRate) + 10, _burn);
                    _cuts++;
                    customer.Send(CustomerMessage.Done);
                    run._room.Send(new RoomMessage(RoomKind.Next, null));
                    break;
                case BarberKind.Sleep:
                    Sleeps++;
                    break;

                // On Exit: publish the haircut count.
                case BarberKind.Exit:
                    run._barberCuts = _cuts;
                    Stop();
                    break;
                default:
                    throw new InvalidOperationException($"the Barber got an unexpected {message.Kind}");
            }
        }
    }

    private sealed class Customer(SleepingBarberChannels run, int id) : ChannelActor<CustomerMessage>
    {
        public int Id { get; } = id;

        public int Waits { get; private set; }

        public bool Started { get; private set; }

        protected override void Receive(CustomerMessage message)
        {
            switch (message)
            {
                // On Full: go back to the Factory.
                case CustomerMessage.Full:
                    run._factory.Send(new FactoryMessage(FactoryKind.Returned, this));
                    break;
                case CustomerMessage.Wait:
                    Waits++;
                    break;
                case CustomerMessage.Start:
                    Started = true;
                    break;

                // On Done: tell the Factory.
                case CustomerMessage.Done:
                    run._factory.Send(new FactoryMessage(FactoryKind.Done, this));
                    break;
                default:
                    throw new InvalidOperationException($"customer {Id} got an unexpected {message}");
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for Sleeping Barber: the Channels baseline.</summary>
public partial class SleepingBarber
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new SleepingBarberChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
