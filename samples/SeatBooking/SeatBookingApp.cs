using Boc;
using Boc.Extensions.Hosting;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using SeatBooking.Venue;

namespace SeatBooking;

/// <summary>Builds the service; Program.cs runs it, and tests and the load generator host it themselves.</summary>
internal static class SeatBookingApp
{
    /// <summary>Builds the web application. <paramref name="configure"/> may change the builder before it is built.</summary>
    public static WebApplication Create(string[] args, Action<WebApplicationBuilder>? configure = null)
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder(args);
        configure?.Invoke(builder);

        var venue = new VenueOptions();
        builder.Configuration.GetSection("Venue").Bind(venue);
        Validate(venue);
        builder.Services.AddSingleton(venue);
        // Section "Boc": Dispatcher (AddBoc's default in a host is ThreadPool; or BocScheduler) and WorkerCount.
        builder.Services.AddBoc(options => builder.Configuration.GetSection("Boc").Bind(options));
        builder.Services.AddHealthChecks().AddCheck<BocHealthCheck>("boc");
        builder.Services.AddSingleton<IBookingService>(sp => venue.Implementation switch
        {
            "boc" => new BocBookingService(sp.GetRequiredService<BocRuntime>(), venue),
            "lock" => new LockBookingService(venue),
            "channel" => new ChannelActorBookingService(venue),
            _ => throw new InvalidOperationException($"Venue:Implementation must be boc, lock or channel, not '{venue.Implementation}'."),
        });

        WebApplication app = builder.Build();
        app.MapBookingEndpoints();
        app.MapHealthChecks("/health");
        return app;
    }

    private static void Validate(VenueOptions venue)
    {
        if (venue.Seats < 1 || venue.Customers < 1 || venue.SeatPrice < 0 || venue.InitialBalance < 0 || venue.MaxSeatsPerBooking < 1
            || venue.PricingMicroseconds < 0)
        {
            throw new InvalidOperationException(
                "Venue: Seats, Customers and MaxSeatsPerBooking must be positive; SeatPrice, InitialBalance and PricingMicroseconds not negative.");
        }

        // The Boc audit reads every seat and customer in one behaviour.
        if (venue.Seats + venue.Customers > BocRuntime.MaxCownsPerBehaviour)
        {
            throw new InvalidOperationException($"Venue: Seats + Customers must be at most {BocRuntime.MaxCownsPerBehaviour}.");
        }
    }

    private static void MapBookingEndpoints(this IEndpointRouteBuilder routes)
    {
        VenueOptions venue = routes.ServiceProvider.GetRequiredService<VenueOptions>();

        routes.MapPost("/bookings", async (BookingRequest request, IBookingService service, HttpContext context) =>
        {
            if (request.Customer < 0 || request.Customer >= venue.Customers)
            {
                return Results.NotFound(new { error = $"no customer {request.Customer}" });
            }

            if (request.Seats is not { Length: > 0 } seats || seats.Length > venue.MaxSeatsPerBooking
                || seats.Any(s => s < 0 || s >= venue.Seats) || seats.Distinct().Count() != seats.Length)
            {
                return Results.BadRequest(new { error = $"seats must be 1 to {venue.MaxSeatsPerBooking} distinct seat numbers below {venue.Seats}" });
            }

            try
            {
                BookingOutcome outcome = await service.BookAsync(request, context.RequestAborted);
                return outcome.Status == BookingStatus.Booked
                    ? Results.Created($"/customers/{request.Customer}/bookings/{outcome.BookingId}", outcome)
                    : Results.Conflict(outcome);
            }
            catch (TimeoutException)
            {
                return TimedOut();
            }
        });

        routes.MapDelete("/customers/{customer:int}/bookings/{booking:long}", async (int customer, long booking, IBookingService service, HttpContext context) =>
        {
            if (customer < 0 || customer >= venue.Customers)
            {
                return Results.NotFound();
            }

            try
            {
                return await service.CancelAsync(customer, booking, context.RequestAborted) ? Results.NoContent() : Results.NotFound();
            }
            catch (TimeoutException)
            {
                return TimedOut();
            }
        });

        routes.MapGet("/seats", async (int? first, int? count, IBookingService service) =>
        {
            int from = first ?? 0;
            int n = count ?? 20;
            return from < 0 || n < 1 || n > 100 || from + n > venue.Seats
                ? Results.BadRequest(new { error = $"first and count must select 1 to 100 seats below {venue.Seats}" })
                : Results.Ok(await service.GetSeatsAsync(from, n));
        });

        routes.MapGet("/customers/{customer:int}", async (int customer, IBookingService service) =>
            customer < 0 || customer >= venue.Customers
                ? Results.NotFound()
                : Results.Ok(await service.GetCustomerAsync(customer)));

        routes.MapGet("/audit", async (IBookingService service) => Results.Ok(await service.AuditAsync()));
    }

    // The request's deadline passed before its work started: nothing changed, so the client may simply retry.
    private static IResult TimedOut() =>
        Results.Problem(detail: "The request's deadline passed before it could run; nothing was changed.", statusCode: StatusCodes.Status503ServiceUnavailable);
}
