#!/usr/bin/env python3
"""Every measured iteration of a Savina BenchmarkDotNet run, per row: median, max and max / median (issue 39's check).

    SAVINA_LAUNCHES=3 dotnet run -c Release --project benchmarks/Boc.Benchmarks -- \
        --filter 'Boc.Benchmarks.Savina*.Actor' 'Boc.Benchmarks.Savina*.Full' | tee savina.log
    python3 benchmarks/tools/savina-stalls.py savina.log

Reads the "WorkloadActual" lines (the measured iterations, all launches) that BenchmarkDotNet writes under each
"// Benchmark:" header, and prints one Markdown row per benchmark: iterations, median and max in ms, max / median, and
the sorted iterations above 3x the median. Rows above 10x are marked; the exit code is 1 if any is.
"""

import re
import statistics
import sys


def main(path: str) -> int:
    rows: dict[str, list[float]] = {}
    current = None
    header = re.compile(r"^// Benchmark: ([^:]+):")
    actual = re.compile(r"^WorkloadActual\s+\d+: \d+ op, ([0-9.]+) ns")
    with open(path, encoding="utf-8") as log:
        for line in log:
            m = header.match(line)
            if m:
                current = m.group(1).strip()
                rows.setdefault(current, [])
                continue
            m = actual.match(line)
            if m and current is not None:
                rows[current].append(float(m.group(1)) / 1e6)

    print("| Benchmark | iterations | median ms | max ms | max ÷ median | iterations above 3× the median (ms) |")
    print("|---|---:|---:|---:|---:|---|")
    above_ten = 0
    for name in sorted(rows):
        times = rows[name]
        if not times:
            continue
        median = statistics.median(times)
        worst = max(times)
        ratio = worst / median
        slow = sorted(t for t in times if t > 3 * median)
        flag = " **>10×**" if ratio > 10 else ""
        above_ten += ratio > 10
        print(f"| {name} | {len(times)} | {median:.3g} | {worst:.3g} | {ratio:.1f}{flag} | {', '.join(f'{t:.3g}' for t in slow)} |")
    return 1 if above_ten else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
