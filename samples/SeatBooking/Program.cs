// A seat-booking service whose state lives in cowns: every seat and every customer is a cown, a booking is one
// behaviour over the customer and all the seats it takes (all or nothing, no locks, no deadlock), and queries acquire
// their cowns read-only. The same service with ordered locks or a Channel actor per resource is one setting away
// (Venue:Implementation = boc | lock | channel), for comparison; benchmarks/README.md#seat-booking-service-under-http-load
// has the numbers.
//
//   dotnet run --project samples/SeatBooking -c Release -- --urls http://127.0.0.1:5080
//   curl -X POST http://127.0.0.1:5080/bookings -H 'Content-Type: application/json' -d '{"customer":1,"seats":[3,4,5]}'
//   curl http://127.0.0.1:5080/seats?first=0&count=10
//   curl http://127.0.0.1:5080/audit

using SeatBooking;

await SeatBookingApp.Create(args).RunAsync();
