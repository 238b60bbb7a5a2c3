using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Concurrency;

// Savina 4.13 Sleeping Barber (SOURCES.md §4.13): a CustomerFactory creates N customers (one actor each) and sends
// them to a WaitingRoom of W seats, busy-waiting rand(APR)+10 between customers; a Barber cuts hair for rand(AHR)+10
// busy-wait steps per customer. A customer who finds the room full goes back to the Factory, which sends it again
// (an attempt).
//
// Decisions:
// - The Factory and the Barber draw their wait lengths from PseudoRandom() (seed 74755) as Savina does, in both
//   variants; [V]'s full version seeds from the clock (spec §7.10), which is not copied. The busy-wait itself burns a
//   separate per-actor PseudoRandom, so burning does not shift the wait-length stream (Savina burns Math.random()).
// - Attempts are counted as Savina's idGenerator does (one per customer created, one per Returned) and reported
//   through Metrics; they are timing-dependent, only attempts >= N is checked.
// - Savina's Exit chain (Factory -> Room -> Barber) is kept in the actor variant; the Barber's Exit behaviour publishes
//   its haircut count for Validate.
// - Full BoC follows [V]: the Room is a counter; an admitted customer gets when(barber, customer){ when(room){count--};
//   haircut; when(factory){done}; when(barber, room){ barber sleeps if the room is empty } }. The barber's queue of
//   two-cown behaviours is the FIFO of waiting customers.
// - Test size shrinks the room to 5 seats and the production wait to rand(10)+10 so that the room fills up and the
//   Full/Returned path runs.

/// <summary>Actor style: Factory, Room, Barber and one cown per Customer; every message a one-cown behaviour.</summary>
[SavinaWorkload("Sleeping Barber", SavinaVariant.Actor)]
public sealed class SleepingBarberActor(SavinaSize size) : SavinaRun(size)
{
    private readonly SleepingBarberParameters _p = SleepingBarberParameters.For(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<FactoryState> _factory = null!;
    private Cown<RoomState> _room = null!;
    private Cown<BarberState> _barber = null!;

    // Published at completion: by the Factory, and by the Barber on Exit.
    private long _attempts;
    private int _served;
    private int _distinctServed;
    private long _barberCuts = -1;

    public override string Metrics => $"attempts={_attempts}";

    protected override void Build()
    {
        _factory = new Cown<FactoryState>(new FactoryState(_p.Haircuts));
        _room = new Cown<RoomState>(new RoomState());
        _barber = new Cown<BarberState>(new BarberState());
    }

    protected override Task ExecuteAsync()
    {
        Runtime.When(_factory, static (f, run) => run.OnStart(f), this);
        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_served == _p.Haircuts, $"the Factory counted {_served} haircuts, expected {_p.Haircuts}");
        Check(_distinctServed == _p.Haircuts, $"{_distinctServed} distinct customers were served, expected {_p.Haircuts}");
        Check(_barberCuts == _p.Haircuts, $"the Barber cut {_barberCuts} times, expected {_p.Haircuts}");
        Check(_attempts >= _p.Haircuts, $"{_attempts} attempts for {_p.Haircuts} customers");
    }

    // Factory, on Start: create the N customers, waiting between them.
    private void OnStart(FactoryState factory)
    {
        for (int i = 0; i < _p.Haircuts; i++)
        {
            factory.Attempts++;
            var customer = new CustomerState(i);
            customer.Self = new Cown<CustomerState>(customer);
            SendEnter(customer.Self);
            SavinaHelpers.BusyWait(factory.Random.NextInt(_p.ProductionRate) + 10, factory.Burn);
        }
    }

    private void SendEnter(Cown<CustomerState> customer) =>
        Runtime.When(_room, static (r, m) => m.Run.OnEnter(r, m.Customer), (Run: this, Customer: customer));

    // Room, on Enter: turn the customer away if full; else seat it and wake the barber (self Next) or tell it to wait.
    private void OnEnter(RoomState room, Cown<CustomerState> customer)
    {
        if (room.Waiting.Count == _p.WaitingRoom)
        {
            Runtime.When(customer, static (c, run) => run.OnFull(c), this);
            return;
        }

        room.Waiting.Enqueue(customer);
        if (room.BarberAsleep)
        {
            room.BarberAsleep = false;
            Runtime.When(_room, static (r, run) => run.OnNext(r), this);
        }
        else
        {
            Runtime.When(customer, static (c, _) => c.Waits++, this);
        }
    }

    // Room, on Next: send the next customer to the barber, or let the barber sleep.
    private void OnNext(RoomState room)
    {
        if (room.Waiting.Count > 0)
        {
            Runtime.When(
                _barber,
                static (b, m) => m.Run.OnBarberEnter(b, m.Customer),
                (Run: this, Customer: room.Waiting.Dequeue()));
        }
        else
        {
            Runtime.When(_barber, static (b, _) => b.Sleeps++, this);
            room.BarberAsleep = true;
        }
    }

    // Barber, on Enter: Start the customer, cut, Done to the customer, Next to the room.
    private void OnBarberEnter(BarberState barber, Cown<CustomerState> customer)
    {
        Runtime.When(customer, static (c, _) => c.Started = true, this);
        SavinaHelpers.BusyWait(barber.Random.NextInt(_p.HaircutRate) + 10, barber.Burn);
        barber.Cuts++;
        Runtime.When(customer, static (c, run) => run.OnCustomerDone(c), this);
        Runtime.When(_room, static (r, run) => run.OnNext(r), this);
    }

    // Customer, on Full: go back to the Factory.
    private void OnFull(CustomerState customer) =>
        Runtime.When(
            _factory,
            static (f, m) => m.Run.OnReturned(f, m.Customer),
            (Run: this, Customer: customer.Self));

    private void OnReturned(FactoryState factory, Cown<CustomerState> customer)
    {
        factory.Attempts++;
        SendEnter(customer);
    }

    // Customer, on Done: tell the Factory.
    private void OnCustomerDone(CustomerState customer) =>
        Runtime.When(_factory, static (f, m) => m.Run.OnFactoryDone(f, m.Id), (Run: this, Id: customer.Id));

    // Factory, on Done: after N haircuts, publish, stop the room (which stops the barber) and complete.
    private void OnFactoryDone(FactoryState factory, int id)
    {
        factory.Served++;
        if (!factory.ServedFlags[id])
        {
            factory.ServedFlags[id] = true;
            factory.DistinctServed++;
        }

        if (factory.Served == _p.Haircuts)
        {
            _served = factory.Served;
            _distinctServed = factory.DistinctServed;
            _attempts = factory.Attempts;
            Runtime.When(_room, static (_, run) => run.OnRoomExit(), this);
            _done.SetResult();
        }
    }

    // Room, on Exit: stop the barber.
    private void OnRoomExit() => Runtime.When(_barber, static (b, run) => run.OnBarberExit(b), this);

    // Barber, on Exit: publish the haircut count.
    private void OnBarberExit(BarberState barber) => _barberCuts = barber.Cuts;

    private sealed class FactoryState(int haircuts)
    {
        public PseudoRandom Random { get; } = new();

        public PseudoRandom Burn { get; } = new();

        public long Attempts { get; set; }

        public int Served { get; set; }

        public int DistinctServed { get; set; }

        public bool[] ServedFlags { get; } = new bool[haircuts];
    }

    private sealed class RoomState
    {
        public Queue<Cown<CustomerState>> Waiting { get; } = new();

        public bool BarberAsleep { get; set; } = true;
    }

    private sealed class BarberState
    {
        public PseudoRandom Random { get; } = new();

        public PseudoRandom Burn { get; } = new();

        public long Cuts { get; set; }

        public long Sleeps { get; set; }
    }

    private sealed class CustomerState(int id)
    {
        public int Id { get; } = id;

        public Cown<CustomerState> Self { get; set; } = null!;

        public int Waits { get; set; }

        public bool Started { get; set; }
    }
}

/// <summary>Full BoC ([V]): the room is a counter and a haircut is one behaviour on the barber and the customer.</summary>
[SavinaWorkload("Sleeping Barber", SavinaVariant.Full)]
public sealed class SleepingBarberFull(SavinaSize size) : SavinaRun(size)
{
    private readonly SleepingBarberParameters _p = SleepingBarberParameters.For(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<FactoryState> _factory = null!;
    private Cown<RoomState> _room = null!;
    private Cown<BarberState> _barber = null!;

    // Published at completion by the Factory.
    private long _attempts;
    private int _served;
    private int _distinctServed;

    public override string Metrics => $"attempts={_attempts}";

    protected override void Build()
    {
        _factory = new Cown<FactoryState>(new FactoryState(_p.Haircuts));
        _room = new Cown<RoomState>(new RoomState());
        _barber = new Cown<BarberState>(new BarberState());
    }

    protected override Task ExecuteAsync()
    {
        Runtime.When(_factory, static (f, run) => run.OnStart(f), this);
        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_served == _p.Haircuts, $"the Factory counted {_served} haircuts, expected {_p.Haircuts}");
        Check(_distinctServed == _p.Haircuts, $"{_distinctServed} distinct customers were served, expected {_p.Haircuts}");
        Check(_attempts >= _p.Haircuts, $"{_attempts} attempts for {_p.Haircuts} customers");
    }

    private void OnStart(FactoryState factory)
    {
        for (int i = 0; i < _p.Haircuts; i++)
        {
            factory.Attempts++;
            var customer = new CustomerState(i);
            customer.Self = new Cown<CustomerState>(customer);
            Enter(customer.Self);
            SavinaHelpers.BusyWait(factory.Random.NextInt(_p.ProductionRate) + 10, factory.Burn);
        }
    }

    private void Enter(Cown<CustomerState> customer) =>
        Runtime.When(_room, static (r, m) => m.Run.OnEnter(r, m.Customer), (Run: this, Customer: customer));

    // Room: turn the customer away when full; otherwise take a seat and queue the haircut on the barber.
    private void OnEnter(RoomState room, Cown<CustomerState> customer)
    {
        if (room.Count == _p.WaitingRoom)
        {
            Runtime.When(customer, static (c, run) => run.OnFull(c), this);
            return;
        }

        room.Count++;
        Runtime.When(_barber, customer, static (b, c, run) => run.OnHaircut(b, c), this);
    }

    private void OnHaircut(BarberState barber, CustomerState customer)
    {
        Runtime.When(_room, static (r, _) => r.Count--, this);
        SavinaHelpers.BusyWait(barber.Random.NextInt(_p.HaircutRate) + 10, barber.Burn);
        customer.Haircuts++;
        Runtime.When(_factory, static (f, m) => m.Run.OnLeft(f, m.Id), (Run: this, Id: customer.Id));
        Runtime.When(_barber, _room, static (b, r, _) => b.Sleeping = r.Count == 0, this);
    }

    private void OnFull(CustomerState customer) =>
        Runtime.When(
            _factory,
            static (f, m) => m.Run.OnReturned(f, m.Customer),
            (Run: this, Customer: customer.Self));

    private void OnReturned(FactoryState factory, Cown<CustomerState> customer)
    {
        factory.Attempts++;
        Enter(customer);
    }

    private void OnLeft(FactoryState factory, int id)
    {
        factory.Served++;
        if (!factory.ServedFlags[id])
        {
            factory.ServedFlags[id] = true;
            factory.DistinctServed++;
        }

        if (factory.Served == _p.Haircuts)
        {
            _served = factory.Served;
            _distinctServed = factory.DistinctServed;
            _attempts = factory.Attempts;
            _done.SetResult();
        }
    }

    private sealed class FactoryState(int haircuts)
    {
        public PseudoRandom Random { get; } = new();

        public PseudoRandom Burn { get; } = new();

        public long Attempts { get; set; }

        public int Served { get; set; }

        public int DistinctServed { get; set; }

        public bool[] ServedFlags { get; } = new bool[haircuts];
    }

    private sealed class RoomState
    {
        public int Count { get; set; }
    }

    private sealed class BarberState
    {
        public PseudoRandom Random { get; } = new();

        public PseudoRandom Burn { get; } = new();

        public bool Sleeping { get; set; } = true;
    }

    private sealed class CustomerState(int id)
    {
        public int Id { get; } = id;

        public Cown<CustomerState> Self { get; set; } = null!;

        public int Haircuts { get; set; }
    }
}

/// <summary>Sleeping Barber parameters: N haircuts, W seats, APR and AHR (the waits' upper bounds).</summary>
internal readonly record struct SleepingBarberParameters(int Haircuts, int WaitingRoom, int ProductionRate, int HaircutRate)
{
    public static SleepingBarberParameters For(SavinaSize size) => size switch
    {
        SavinaSize.Paper => new(5_000, 1_000, 1_000, 1_000),
        SavinaSize.Small => new(5_000, 1_000, 1_000, 1_000),
        _ => new(100, 5, 10, 1_000),
    };
}

/// <summary>BenchmarkDotNet entry for Sleeping Barber.</summary>
public partial class SleepingBarber : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new SleepingBarberActor(Size));

    [IterationSetup(Target = nameof(Full))]
    public void SetupFull() => _run = Prepare(new SleepingBarberFull(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();

    [Benchmark]
    public Task Full() => _run.RunAsync();
}
