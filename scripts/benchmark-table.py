#!/usr/bin/env python3
"""`make benchmark`: runs the NodeBenchmarks matrix (Benchmarks/, package-benchmark) and prints
one readable table: node, block, channels, ns per frame, percent of the real-time budget at
48 kHz (the block's duration), allocations. Exits 1 if any render allocated (the threshold is 0).

The raw package-benchmark output is kept in Benchmarks/.build/node-benchmarks.txt.
Usage: benchmark-table.py [filter regex]   (package-benchmark matches the regex against the whole name: end it with .*)
"""
import os, re, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.join(here, "..", "Benchmarks")
args = ["swift", "package", "benchmark", "--target", "NodeBenchmarks", "--no-progress"]
if len(sys.argv) > 1:
    args += ["--filter", sys.argv[1]]
run = subprocess.run(args, cwd=bench, capture_output=True, text=True)
os.makedirs(os.path.join(bench, ".build"), exist_ok=True)
with open(os.path.join(bench, ".build", "node-benchmarks.txt"), "w") as f:
    f.write(run.stdout + run.stderr)
if run.returncode != 0:
    sys.stdout.write(run.stdout[-4000:] + run.stderr[-4000:])
    raise SystemExit(f"swift package benchmark failed ({run.returncode})")

rows, name, time, allocations = [], None, None, None
def flush():
    if name and time is not None and allocations is not None:
        rows.append((*name, time, allocations))
for line in run.stdout.splitlines():
    m = re.match(r"^(.*) \| block (\d+) \| (\d+) ch$", line.strip())
    if m:
        flush()
        name = (m.group(1), int(m.group(2)), int(m.group(3))); time = allocations = None
        continue
    cells = [c.strip() for c in line.split("│")[2:-1]]
    if name and line.startswith("│ Time (wall clock)"):
        unit = 1e3 if "(μs)" in line else 1e6 if "(ms)" in line else 1.0  # to ns
        time = float(cells[2]) * unit  # p50
    elif name and line.startswith("│ Malloc (total)"):
        allocations = int(cells[-2])  # p100
flush()

print("| node | block | ch | µs per block (median) | ns per frame | % of real-time budget (48 kHz) | allocations |")
print("|---|---|---|---|---|---|---|")
for node, block, ch, ns, alloc in rows:
    budget = block / 48000 * 1e9
    print(f"| {node} | {block} | {ch} | {ns / 1e3:.2f} | {ns / block:.1f} | {100 * ns / budget:.2f} % | {alloc} |")
bad = [r for r in rows if r[4] != 0]
print(f"\n{len(rows)} benchmarks; {len(bad)} allocated." + (" FAILED: " + ", ".join(f"{r[0]} block {r[1]} {r[2]} ch" for r in bad) if bad else ""))
if not rows or bad:
    raise SystemExit(1)
