#!/usr/bin/env python3
"""docs/plots/loudness-compensation.svg: the `loudnessCompensation` node's response at a
reference of 80 phon and volumes 0 to -60 dB (lines, from `timbre response --json`: the
designed coefficients the render runs) beside the ISO 226:2003 contour difference it aims at
(dots, from MOSQITO's equal_loudness_contours at the standard's 29 frequencies).
Usage: loudness-compensation-plot.py TIMBRE_BINARY [OUTPUT.svg]   (needs matplotlib and mosqito)
"""
import json, os, subprocess, sys, tempfile
import matplotlib
matplotlib.use("svg")
import matplotlib.pyplot as plt
from mosqito import equal_loudness_contours

binary = sys.argv[1]
output = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "docs", "plots", "loudness-compensation.svg")
reference = 80
plt.rcParams["svg.hashsalt"] = "timbre"  # the same file from the same data
fig, ax = plt.subplots(figsize=(9, 5))
spl_ref, freqs = equal_loudness_contours(reference)
for k, volume in enumerate([-10, -20, -30, -40, -50, -60]):
    preset = {"version": 1, "name": "lc", "chain": [{"type": "loudnessCompensation", "reference": reference, "volume": volume}]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(preset, f)
    try:
        r = json.loads(subprocess.run([binary, "response", "--preset", f.name, "--json", "--points", "400"], check=True, capture_output=True, text=True).stdout)
    finally:
        os.unlink(f.name)
    colour = f"C{k}"
    ax.semilogx(r["frequencyHz"], r["magnitudeDB"], color=colour, label=f"{volume} dB")
    spl, _ = equal_loudness_contours(reference + volume)
    ax.semilogx(freqs, spl - spl_ref - volume, "o", color=colour, markersize=3.5)
ax.set_xlim(20, 20000)
ax.set_xlabel("Frequency (Hz)")
ax.set_ylabel("Boost (dB)")
ax.set_title(f"loudnessCompensation at {reference} phon, 48 kHz: the node (lines), ISO 226:2003 (dots)")
ax.grid(True, which="both", alpha=0.3)
ax.legend(title="volume", loc="upper right")
fig.tight_layout()
fig.savefig(output, metadata={"Date": None})
print(f"{output}: written")
