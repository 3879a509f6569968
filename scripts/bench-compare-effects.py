#!/usr/bin/env python3
"""Timbre's effect nodes beside pedalboard, sox and ffmpeg, same material, same run (issue #38).
So far: the `delay` node.

Cost: ns per stereo frame, from the CPU time (user + system) of processing 60 s of stereo
48 kHz float noise, medians of 5 runs, less the same command with nothing in it (`timbre
render` with the `flat` preset; `sox … vol 1`; `ffmpeg -af anull`); pedalboard's `Delay` in
process (its `process` call timed, the array already in memory). Settings: 375 ms, feedback
50 %, mix 50 % (Timbre `delay`; pedalboard `Delay(0.375, 0.5, 0.5)`); sox `echos` and
ffmpeg `aecho` have no feedback path — they sum fixed taps — so they run five taps at 375,
750, … 1,875 ms decaying by half, what 50 % feedback gives in its first five echoes.

Time change: the largest step between samples while the delay time is swept from 400 down to
100 ms over 1 s (a new time every 64-frame block) on a 440 Hz sine at −6 dBFS, as a multiple
of the sine's own largest step (2π·440/48,000 of its amplitude): 1 is no click at all.
Timbre's figures come from the same sweep through its kernel (`EchoDelayTests`, printed
there); pedalboard's from its `Delay` processed block by block with `reset=False` and its
`delay_seconds` set before each block. sox and ffmpeg cannot change a delay while running.

Usage: bench-compare-effects.py path/to/timbre
"""
import json, os, resource, statistics, subprocess, sys, tempfile, time
import numpy as np

TIMBRE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build-static/release/timbre")
RUNS = 5
RATE = 48000
SECONDS = 60
work = tempfile.mkdtemp(prefix="timbre-effects-")
import atexit, shutil
atexit.register(shutil.rmtree, work, ignore_errors=True)


def run(argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True)


def timed(argv):
    times = []
    for _ in range(RUNS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        run(argv)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(times)


def preset(name, nodes):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump({"version": 1, "name": name, "chain": nodes}, f)
    return path


def ns_per_frame(seconds):
    return seconds / (SECONDS * RATE) * 1e9


def main():
    source = os.path.join(work, "noise.wav")
    run(["sox", "-n", "-r", str(RATE), "-c", "2", "-e", "floating-point", "-b", "32", source, "synth", str(SECONDS), "pinknoise", "gain", "-18"])
    out = os.path.join(work, "out.wav")
    flat = preset("flat", [])
    rows = []

    timbre_empty = timed([TIMBRE, "render", source, "-o", out, "--preset", flat, "--quiet"])
    delay = preset("delay", [{"type": "delay", "time": 375, "feedback": 50, "mix": 50}])
    timbre = timed([TIMBRE, "render", source, "-o", out, "--preset", delay, "--quiet"]) - timbre_empty
    rows.append(("Timbre delay (feedback, whole frames)", ns_per_frame(timbre)))
    frac = preset("delay-frac", [{"type": "delay", "time": 375.0104, "feedback": 50, "mix": 50}])
    timbre_frac = timed([TIMBRE, "render", source, "-o", out, "--preset", frac, "--quiet"]) - timbre_empty
    rows.append(("Timbre delay (375.0104 ms: windowed sinc between frames)", ns_per_frame(timbre_frac)))

    taps = [375 * k for k in range(1, 6)]
    decays = [0.5 * 0.5 ** (k - 1) for k in range(1, 6)]
    sox_empty = timed(["sox", source, out, "vol", "1"])
    sox_args = ["echos", "1", "1"] + [v for t, d in zip(taps, decays) for v in (str(t), str(d))]
    rows.append(("sox echos (5 taps)", ns_per_frame(timed(["sox", source, out] + sox_args) - sox_empty)))
    ff_empty = timed(["ffmpeg", "-y", "-loglevel", "error", "-i", source, "-af", "anull", "-c:a", "pcm_f32le", out])
    aecho = "aecho=1:1:" + "|".join(str(t) for t in taps) + ":" + "|".join(str(d) for d in decays)
    rows.append(("ffmpeg aecho (5 taps)", ns_per_frame(timed(["ffmpeg", "-y", "-loglevel", "error", "-i", source, "-af", aecho, "-c:a", "pcm_f32le", out]) - ff_empty)))

    import pedalboard
    x = np.random.default_rng(1).standard_normal((2, SECONDS * RATE)).astype(np.float32) * 0.1
    times = []
    for _ in range(RUNS):
        d = pedalboard.Delay(delay_seconds=0.375, feedback=0.5, mix=0.5)
        start = time.process_time()
        d.process(x, RATE, buffer_size=512)
        times.append(time.process_time() - start)
    rows.append(("pedalboard Delay (512-frame buffers)", ns_per_frame(statistics.median(times))))

    print("Delay cost, ns per stereo frame (60 s of stereo 48 kHz float, medians of %d):" % RUNS)
    for name, ns in rows:
        print("  %-58s %7.1f" % (name, ns))

    # pedalboard's time sweep.
    n = 2 * RATE
    sine = (0.5 * np.sin(2 * np.pi * 440 * np.arange(n) / RATE)).astype(np.float32)
    d = pedalboard.Delay(delay_seconds=0.4, feedback=0.0, mix=1.0)
    y = np.zeros(n, dtype=np.float32)
    for start in range(0, n, 64):
        t = min(1.0, max(0.0, (start - RATE / 2) / RATE))
        d.delay_seconds = 0.4 - 0.3 * t
        y[start:start + 64] = d.process(sine[start:start + 64][None, :], RATE, reset=False)[0]
    own = 0.5 * 2 * np.pi * 440 / RATE
    step = np.max(np.abs(np.diff(y[20000:])))
    print("Time sweep 400 → 100 ms in 1 s on a 440 Hz sine, largest step / the sine's own:")
    print("  pedalboard Delay: %.2f (%s)" % (step / own, "clicks" if step > 1.5 * own else "no click"))
    print("  Timbre delay: crossfade 1.00, glide 1.30 (the read's speed; EchoDelayTests)")
    print("  sox echos, ffmpeg aecho: no time change while running")


if __name__ == "__main__":
    main()
