#!/usr/bin/env python3
"""Before/after table from a BenchmarkDotNet console log (benchmarks/tools/bench-before-after.sh ... | tee LOG).

Reads every '// Benchmark: Class.Method: job(...)' block and its 'WorkloadResult' lines, and prints one markdown row per
benchmark: median (min-max) of the measured iterations for the 'before' and 'after' jobs, and after/before of the
medians. Usage: python3 benchmarks/tools/bench-log-table.py LOG [unit: ns|us|ms]

A log of several rounds (BOC_ROUNDS, '// Round r of R' lines) pools every round's iterations into the two medians, and
adds a paired column: the median (min-max) over the rounds of each round's after/before ratio of medians. A slow phase
of the machine that both launches of one round shared cancels out of that round's ratio.
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
round_no = 0
first = {}
for line in open(path, encoding="utf-8", errors="replace"):
    m = re.match(r"// Round (\d+) of (\d+)(?: \((before|after) first\))?", line)
    if m:
        # Each round runs the same benchmarks in the same order: number repeated names afresh in each.
        round_no = int(m.group(1))
        first[round_no] = m.group(3)
        seen = {}
        current = None
        continue
    m = re.match(r"// Benchmark: (.+?): (?:\d-)?(before|after)\(", line)
    if m:
        # Methods may share a display name (one Description, several categories): number repeats in run order.
        name, job = m.group(1), m.group(2)
        seen[(name, job)] = seen.get((name, job), 0) + 1
        if seen[(name, job)] > 1 or (name, "repeat") in flags:
            flags.add((name, "repeat"))
        current = (f"{name} #{seen[(name, job)]}", job)
        runs.setdefault(current, {}).setdefault(round_no, [])
        continue
    m = re.match(r"WorkloadResult\s+\d+: (\d+) op, ([\d.]+) ns", line)
    if m and current:
        runs[current][round_no].append(float(m.group(2)) / int(m.group(1)) / scale)

rounds = sorted({r for per_round in runs.values() for r in per_round})
paired = len(rounds) > 1

def cell(values):
    if not values:
        return "failed", None
    med = statistics.median(values)
    return f"{med:.3g} ({min(values):.3g}–{max(values):.3g})", med

# Drop the "#1" of names that never repeat.
single = {name.rsplit(" #", 1)[0] for name, _ in runs if name.endswith(" #2")}
runs = {((n if n.rsplit(" #", 1)[0] in single else n.rsplit(" #", 1)[0]), j): v for (n, j), v in runs.items()}
names = sorted({name for name, _ in runs}, key=lambda n: (n.rsplit(" #", 1)[0], n))

def pooled(name, job):
    return [v for values in runs.get((name, job), {}).values() for v in values]

def round_ratios(name, order=None):
    before, after = runs.get((name, "before"), {}), runs.get((name, "after"), {})
    return [statistics.median(after[r]) / statistics.median(before[r])
            for r in rounds if before.get(r) and after.get(r) and order in (None, first.get(r))]

header = f"| Benchmark | before: median (min–max), {unit} | after: median (min–max), {unit} | after ÷ before |"
rule = "|---|---:|---:|---:|"
if paired:
    header += f" after ÷ before per round: median (min–max), {len(rounds)} rounds |"
    rule += "---:|"
print(header)
print(rule)
for name in names:
    b, bm = cell(pooled(name, "before"))
    a, am = cell(pooled(name, "after"))
    ratio = f"{am / bm:.2f}" if am and bm else "-"
    row = f"| {name} | {b} | {a} | {ratio} |"
    if paired:
        ratios = round_ratios(name)
        row += f" {statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f}) |" if ratios else " - |"
    print(row)

# The rounds by which side ran first: a ratio that moves with the order is the position in the sequence, not the code.
if paired and {"before", "after"} <= set(first.values()):
    print("\nPer-round after ÷ before, by the side that ran first in the round:")
    for name in names:
        by_order = {o: round_ratios(name, o) for o in ("after", "before")}
        print(f"- {name}: " + "; ".join(f"{o} first " + ", ".join(f"{r:.2f}" for r in by_order[o]) for o in by_order))
