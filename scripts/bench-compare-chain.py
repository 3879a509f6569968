#!/usr/bin/env python3
"""Timbre's filter chain beside sox and ffmpeg, same machine, same run (`make bench-compare`).

The chain of issue #10: a 12 dB/oct high-pass at 80 Hz and ten peaking bells (31 Hz … 16 kHz,
Q 1, ±1.5–3 dB) — as 11 separate Timbre nodes, as one 10-band `eq` node (with the high-pass),
as sox effects (`highpass`, `equalizer`) and as an ffmpeg filter graph (`highpass`,
`equalizer`, one thread). Input: 60 s of stereo noise at 48 kHz, 32-bit float WAV; every tool
writes 32-bit float WAV. Each tool's chain cost is its command minus the same tool's plain
copy (decode + encode), per stereo frame, from each process's CPU time, user + system (the
sum over its threads: sox and ffmpeg run one here; Timbre runs the chain on its render thread
and the output analysis and file writing on a second one, so its CPU time still counts all
its work). User + system because Linux measures a thread's total run time exactly but splits
it into user and system by sampling at the timer tick (±4 ms per run here, ±1.4 ns per
frame); the file I/O in the system time is the same for copy and chain. The cost is the
median over runs of each run's chain-minus-copy difference (the two are interleaved, so slow
drift of a shared machine cancels). The whole commands are wall time — where Timbre's second
thread shows. Medians of interleaved runs; the ratios Timbre / tool are from the same run.
Timbre's chains also run at --block-size 32 and 4096 (each against the copy at the same block
size): the cost of small blocks.

Usage: bench-compare-chain.py path/to/timbre [runs]
"""
import json, os, subprocess, sys, tempfile, time
import statistics

TIMBRE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build-static/release/timbre")
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 9
work = tempfile.mkdtemp(prefix="timbre-chain-")
import atexit, shutil  # the work folder (hundreds of MB of audio) goes when the script ends
atexit.register(shutil.rmtree, work, ignore_errors=True)
SECONDS, RATE = 60, 48000
FRAMES = SECONDS * RATE
BELLS = [(31, 3), (62, -2), (125, 1.5), (250, -1), (500, 2), (1000, -3), (2000, 1), (4000, 2.5), (8000, -1.5), (16000, 3)]

def run(argv, env=None):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)

src = os.path.join(work, "noise.wav")
run(["sox", "-n", "-r", str(RATE), "-c", "2", "-b", "32", "-e", "floating-point", src, "synth", str(SECONDS), "whitenoise", "vol", "0.25"])
presets = {
    "chain": {"version": 1, "name": "hp + 10 bells", "chain": [{"type": "highpass", "frequency": 80, "slope": 12}] +
              [{"type": "peak", "frequency": f, "gain": g, "q": 1.0} for f, g in BELLS]},
    "eq": {"version": 1, "name": "hp + eq", "chain": [{"type": "highpass", "frequency": 80, "slope": 12},
           {"type": "eq", "bands": [{"frequency": f, "gain": g, "q": 1.0} for f, g in BELLS]}]},
}
for name, p in presets.items():
    with open(os.path.join(work, name + ".json"), "w") as f:
        json.dump(p, f)
out = os.path.join(work, "out.wav")
sox_fx = ["highpass", "80"] + [a for f, g in BELLS for a in ("equalizer", str(f), "1q", str(g))]
ff_fx = ",".join(["highpass=f=80:p=2"] + [f"equalizer=f={f}:t=q:w=1:g={g}" for f, g in BELLS])
portable = dict(os.environ, TIMBRE_NO_AVX2="1")

def timbre(preset, env=None, block=None):
    size = ["--block-size", str(block)] if block else []
    return ([TIMBRE, "render", src, "-o", out, "--preset", preset, "--encoding", "float", "-q"] + size, env)

commands = {
    "timbre copy": timbre("flat"),
    "timbre hp + 10 peak nodes": timbre(os.path.join(work, "chain.json")),
    "timbre hp + eq node": timbre(os.path.join(work, "eq.json")),
    "timbre copy (portable path)": timbre("flat", portable),
    "timbre hp + 10 peak nodes (portable path)": timbre(os.path.join(work, "chain.json"), portable),
    "timbre hp + eq node (portable path)": timbre(os.path.join(work, "eq.json"), portable),
    # Block size: the chain's cost at 32-frame blocks against 4096-frame blocks (target ≤ 1.5×).
    **{f"timbre {what} (block {b})": timbre(preset, block=b) for b in (32, 4096)
       for what, preset in [("copy", "flat"), ("hp + 10 peak nodes", os.path.join(work, "chain.json")),
                            ("hp + eq node", os.path.join(work, "eq.json"))]},
    "sox copy": (["sox", src, "-e", "floating-point", "-b", "32", out], None),
    "sox hp + 10 equalizers": (["sox", src, "-e", "floating-point", "-b", "32", out] + sox_fx, None),
    "ffmpeg copy": (["ffmpeg", "-v", "error", "-y", "-threads", "1", "-filter_threads", "1", "-i", src, "-c:a", "pcm_f32le", out], None),
    "ffmpeg hp + 10 equalizers": (["ffmpeg", "-v", "error", "-y", "-threads", "1", "-filter_threads", "1", "-i", src, "-af", ff_fx,
                                   "-c:a", "pcm_f32le", out], None),
}
def timed(argv, env):
    """Wall seconds and CPU seconds (user + system, all threads) of one run."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if status != 0:
        raise SystemExit(f"{argv[0]} failed (status {status})")
    return wall, usage.ru_utime + usage.ru_stime

walls = {k: [] for k in commands}
cpus = {k: [] for k in commands}
for _ in range(RUNS):
    for k, (argv, env) in commands.items():
        w, c = timed(argv, env)
        walls[k].append(w); cpus[k].append(c)
med = {k: statistics.median(v) for k, v in walls.items()}
cpu = {k: statistics.median(v) for k, v in cpus.items()}

def cost(name, copy):
    """Median over runs of (command − copy) CPU seconds, in ns per stereo frame."""
    return statistics.median(a - b for a, b in zip(cpus[name], cpus[copy])) / FRAMES * 1e9

rows = [
    ("timbre hp + 10 peak nodes", "timbre copy"), ("timbre hp + eq node", "timbre copy"),
    ("timbre hp + 10 peak nodes (portable path)", "timbre copy (portable path)"),
    ("timbre hp + eq node (portable path)", "timbre copy (portable path)"),
    ("timbre hp + 10 peak nodes (block 32)", "timbre copy (block 32)"), ("timbre hp + 10 peak nodes (block 4096)", "timbre copy (block 4096)"),
    ("timbre hp + eq node (block 32)", "timbre copy (block 32)"), ("timbre hp + eq node (block 4096)", "timbre copy (block 4096)"),
    ("sox hp + 10 equalizers", "sox copy"), ("ffmpeg hp + 10 equalizers", "ffmpeg copy"),
]
print(f"## Filter chain: high-pass + 10 bells, 60 s stereo 48 kHz float WAV (medians of {RUNS} interleaved runs)\n")
print("| command | whole command s (wall) | × real time | CPU s (user + sys) | chain cost ns / stereo frame (CPU) |")
print("|---|---|---|---|---|")
for name, copy in rows:
    print(f"| {name} | {med[name]:.3f} | {SECONDS / med[name]:.0f}× | {cpu[name]:.3f} | {cost(name, copy):.1f} |")
for copy in ["timbre copy", "timbre copy (block 32)", "timbre copy (block 4096)", "sox copy", "ffmpeg copy"]:
    print(f"| {copy} (decode + encode only) | {med[copy]:.3f} | {SECONDS / med[copy]:.0f}× | {cpu[copy]:.3f} | — |")
t_chain = cost("timbre hp + 10 peak nodes", "timbre copy")
print("\nRatios from this run (how many times faster Timbre's 11-node chain is):\n")
print(f"- chain cost: {cost('sox hp + 10 equalizers', 'sox copy') / t_chain:.1f}× sox, {cost('ffmpeg hp + 10 equalizers', 'ffmpeg copy') / t_chain:.1f}× ffmpeg")
print(f"- whole command: {med['sox hp + 10 equalizers'] / med['timbre hp + 10 peak nodes']:.1f}× sox, "
      f"{med['ffmpeg hp + 10 equalizers'] / med['timbre hp + 10 peak nodes']:.1f}× ffmpeg")
blocks = [cost(f"timbre {w} (block 32)", "timbre copy (block 32)") / cost(f"timbre {w} (block 4096)", "timbre copy (block 4096)")
          for w in ("hp + 10 peak nodes", "hp + eq node")]
print(f"- block size: chain cost at --block-size 32 is {blocks[0]:.2f}× (11 nodes) and {blocks[1]:.2f}× (eq node) its cost at 4096")
