#!/usr/bin/env python3
"""Actor / Full / Channels table from the summary of a Savina BenchmarkDotNet run (one job).

    dotnet run -c Release --project benchmarks/Boc.Benchmarks -- --filter 'Boc.Benchmarks.Savina*.Actor' \
        'Boc.Benchmarks.Savina*.Full' 'Boc.Benchmarks.Savina*.Channels' | tee savina.log
    python3 eng/savina-summary.py savina.log

Prints, per benchmark, the median (min-max) of each variant in ms and Channels / Actor of the medians, then how many
benchmarks Boc's actor style wins against Channel<T> actors and the geometric mean of Channels / Actor, where full BoC
beats actor style, and the geometric mean of Boc / the reference C++ runtime (design.md section 5).

For a before/after run (eng/bench-before-after.sh), pick the job: python3 eng/savina-summary.py savina.log --job after

Add '*MachineControl*' to the filter to have the machine controls (Savina/MachineControl.cs, no Boc code) run in the same
job: their median (min-max) is printed last, as the measure of how fast and how steady the machine itself was.
"""
import math
import sys

# The reference C++ runtime's Savina medians on this machine kind (design.md section 5), in ms. Marked False: rows that
# section calls not like for like (Fork-Join Throughput actor, Filterbank, Trapezoid).
CPP_ACTOR = {
    "PingPong": (4.1, True), "Count": (105, True), "ForkJoinThroughput": (179, False), "ForkJoinCreate": (19.6, True),
    "ThreadRing": (4.0, True), "Chameneos": (137, True), "Big": (627, True), "Fib": (38, True),
    "ConcurrentSortedLinkedList": (5126, True), "BoundedBuffer": (484, True), "DiningPhilosophers": (221, True),
    "SleepingBarber": (718, True), "CigaretteSmokers": (2.1, True), "LogisticMap": (52, True), "Banking": (39, True),
    "Filterbank": (613, False), "Quicksort": (262, True), "Radixsort": (317, True),
    "RecursiveMatrixMultiplication": (1808, True), "Sieve": (52.5, True),
}
CPP_FULL = {
    "Count": (83, True), "ForkJoinThroughput": (44, True), "ForkJoinCreate": (9.3, True), "Chameneos": (128, True),
    "Fib": (23, True), "DiningPhilosophers": (22, True), "SleepingBarber": (19, True), "LogisticMap": (26, True),
    "Quicksort": (176, True), "Trapezoid": (367, False),
}
# Where the paper found full BoC faster than actor style (design.md section 5).
FULL_FASTER = ["Banking", "DiningPhilosophers", "SleepingBarber", "Fib", "LogisticMap", "ForkJoinCreate",
               "ForkJoinThroughput"]

job = sys.argv[sys.argv.index("--job") + 1] if "--job" in sys.argv else None

UNITS = {"ns": 1e-6, "μs": 1e-3, "us": 1e-3, "ms": 1.0, "s": 1000.0}


def ms(text):
    value, unit = text.replace(",", "").split()
    return float(value) * UNITS[unit]


rows = {}
header = None
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if line.startswith("| Namespace"):
        header = cells
    elif header and line.startswith("| Boc.Benchmarks.Savina"):
        col = dict(zip(header, cells))
        if job is not None and col.get("Job") != job:
            continue
        rows[(col["Type"], col["Method"])] = tuple(ms(col[k]) for k in ("Median", "Min", "Max"))


def cell(t):
    return f"{t[0]:.3g} ({t[1]:.3g}–{t[2]:.3g})" if t else "–"


CONTROLS = "MachineControl"
print("| Benchmark | Actor, ms | Full, ms | Channels, ms | Channels ÷ Actor |")
print("|---|---:|---:|---:|---:|")
logs = []
for name in sorted({t for t, _ in rows} - {CONTROLS}):
    actor, full, channels = (rows.get((name, v)) for v in ("Actor", "Full", "Channels"))
    ratio = channels[0] / actor[0] if actor and channels else None
    if ratio:
        logs.append(math.log(ratio))
    print(f"| {name} | {cell(actor)} | {cell(full)} | {cell(channels)} | {f'{ratio:.2f}' if ratio else '–'} |")
if logs:
    wins = sum(1 for x in logs if x > 0)
    print(f"\nBoc actor style faster than Channel<T> actors on {wins} of {len(logs)}; "
          f"geometric mean of Channels ÷ Actor {math.exp(sum(logs) / len(logs)):.2f}")

faster = [n for n in FULL_FASTER if (n, "Actor") in rows and (n, "Full") in rows]
won = [n for n in faster if rows[(n, "Full")][0] < rows[(n, "Actor")][0]]
print(f"\nFull BoC faster than actor style on {len(won)} of {len(faster)} where the paper found it: "
      + ", ".join(f"{n} {rows[(n, 'Full')][0] / rows[(n, 'Actor')][0]:.2f}" for n in faster) + " (Full ÷ Actor)")


def against_cpp(variant, reference):
    every = [(n, rows[(n, variant)][0] / ms_cpp, like) for n, (ms_cpp, like) in reference.items() if (n, variant) in rows]
    if not every:
        return
    mean = math.exp(sum(math.log(r) for _, r, _ in every) / len(every))
    like = [r for _, r, ok in every if ok]
    mean_like = math.exp(sum(math.log(r) for r in like) / len(like))
    worst = sorted(every, key=lambda e: -e[1])[:4]
    print(f"{variant}: Boc ÷ C++ geometric mean {mean:.2f} over {len(every)} rows ({mean_like:.2f} over the {len(like)} "
          "like for like); furthest behind: " + ", ".join(f"{n} {r:.2f}" for n, r, _ in worst))


print()
against_cpp("Actor", CPP_ACTOR)
against_cpp("Full", CPP_FULL)

controls = [(m, rows[(CONTROLS, m)]) for m in ("Cpu", "Stores", "CrossCore") if (CONTROLS, m) in rows]
if controls:
    print("\nMachine controls (no Boc code), ms: " + ", ".join(
        f"{m} {cell(t)}, max ÷ min {t[2] / t[1]:.2f}" for m, t in controls))
