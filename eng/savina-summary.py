#!/usr/bin/env python3
"""Actor / Full / Channels table from the summary of a Savina BenchmarkDotNet run (one job).

    dotnet run -c Release --project benchmarks/Boc.Benchmarks -- --filter 'Boc.Benchmarks.Savina*.Actor' \
        'Boc.Benchmarks.Savina*.Full' 'Boc.Benchmarks.Savina*.Channels' | tee savina.log
    python3 eng/savina-summary.py savina.log

Prints, per benchmark, the median (min-max) of each variant in ms and Channels / Actor of the medians, then how many
benchmarks Boc's actor style wins against Channel<T> actors and the geometric mean of Channels / Actor.
"""
import math
import sys

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
        rows[(col["Type"], col["Method"])] = tuple(ms(col[k]) for k in ("Median", "Min", "Max"))


def cell(t):
    return f"{t[0]:.3g} ({t[1]:.3g}–{t[2]:.3g})" if t else "–"


print("| Benchmark | Actor, ms | Full, ms | Channels, ms | Channels ÷ Actor |")
print("|---|---:|---:|---:|---:|")
logs = []
for name in sorted({t for t, _ in rows}):
    actor, full, channels = (rows.get((name, v)) for v in ("Actor", "Full", "Channels"))
    ratio = channels[0] / actor[0] if actor and channels else None
    if ratio:
        logs.append(math.log(ratio))
    print(f"| {name} | {cell(actor)} | {cell(full)} | {cell(channels)} | {f'{ratio:.2f}' if ratio else '–'} |")
if logs:
    wins = sum(1 for x in logs if x > 0)
    print(f"\nBoc actor style faster than Channel<T> actors on {wins} of {len(logs)}; "
          f"geometric mean of Channels ÷ Actor {math.exp(sum(logs) / len(logs)):.2f}")
