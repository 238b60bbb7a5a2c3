#!/usr/bin/env python3
"""Before/after table from a BenchmarkDotNet console log (eng/bench-before-after.sh ... | tee LOG).

Reads every '// Benchmark: Class.Method: job(...)' block and its 'WorkloadResult' lines, and prints one markdown row per
benchmark: median (min-max) of the measured iterations for the 'before' and 'after' jobs, and after/before of the
medians. Usage: python3 eng/bench-log-table.py LOG [unit: ns|us|ms]
"""
import re
import statistics
import sys

path = sys.argv[1]
unit = sys.argv[2] if len(sys.argv) > 2 else "ms"
scale = {"ns": 1.0, "us": 1e3, "ms": 1e6}[unit]
runs = {}
seen = {}
flags = set()
current = None
for line in open(path, encoding="utf-8", errors="replace"):
    m = re.match(r"// Benchmark: (.+?): (before|after)\(", line)
    if m:
        # Methods may share a display name (one Description, several categories): number repeats in run order.
        name, job = m.group(1), m.group(2)
        seen[(name, job)] = seen.get((name, job), 0) + 1
        if seen[(name, job)] > 1 or (name, "repeat") in flags:
            flags.add((name, "repeat"))
        current = (f"{name} #{seen[(name, job)]}", job)
        runs.setdefault(current, [])
        continue
    m = re.match(r"WorkloadResult\s+\d+: (\d+) op, ([\d.]+) ns", line)
    if m and current:
        runs[current].append(float(m.group(2)) / int(m.group(1)) / scale)

def cell(values):
    if not values:
        return "failed", None
    med = statistics.median(values)
    return f"{med:.3g} ({min(values):.3g}–{max(values):.3g})", med

# Drop the "#1" of names that never repeat.
single = {name.rsplit(" #", 1)[0] for name, _ in runs if name.endswith(" #2")}
runs = {((n if n.rsplit(" #", 1)[0] in single else n.rsplit(" #", 1)[0]), j): v for (n, j), v in runs.items()}
names = sorted({name for name, _ in runs}, key=lambda n: (n.rsplit(" #", 1)[0], n))
print(f"| Benchmark | before: median (min–max), {unit} | after: median (min–max), {unit} | after ÷ before |")
print("|---|---:|---:|---:|")
for name in names:
    b, bm = cell(runs.get((name, "before"), []))
    a, am = cell(runs.get((name, "after"), []))
    ratio = f"{am / bm:.2f}" if am and bm else "-"
    print(f"| {name} | {b} | {a} | {ratio} |")
