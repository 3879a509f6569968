#!/usr/bin/env python3
"""Many short files against one long one, Timbre beside sox (`make bench-compare`).

The aim of issue #20: a batch of 10,000 one-second files on 2 cores runs at the speed of the
same total audio in one file, within 2×. Input: N one-second 48 kHz stereo 16-bit WAV files
cut from one N-second pink-noise file (so the audio is the same), listed in a file. Timbre:
`timbre render --files-from LIST --output-dir OUT --jobs 2 --preset podcast-voice` (in-process
threads) against `timbre render BIG -o OUT --preset podcast-voice`; then the batch again with
`--skip-existing` (a resume that finds every output complete) and with `--shard 0/2` (half
the files). sox: the same high-pass, EQ and gain as sox effects, over the list with GNU
parallel -j2 (one process per file, as sox users batch), against the one long file. Wall
time, median of the runs; the ratio is batch time / one-file time from the same run.

Usage: bench-compare-batch.py path/to/timbre [files] [runs]
"""
import os, shutil, statistics, subprocess, sys, tempfile, time, wave

TIMBRE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build-static/release/timbre")
FILES = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
RUNS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
RATE, CHANNELS = 48000, 2
work = tempfile.mkdtemp(prefix="timbre-batch-")
import atexit, shutil  # the work folder (hundreds of MB of audio) goes when the script ends
atexit.register(shutil.rmtree, work, ignore_errors=True)


def run(argv, **kw):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)


def timed(argv, before=None, **kw):
    times = []
    for _ in range(RUNS):
        if before:
            before()
        t = time.perf_counter()
        run(argv, **kw)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


big = os.path.join(work, "big.wav")
run(["sox", "-n", "-r", str(RATE), "-c", str(CHANNELS), "-b", "16", big, "synth", str(FILES), "pinknoise", "vol", "0.3"])
inputs = os.path.join(work, "in")
os.mkdir(inputs)
names = []
with wave.open(big, "rb") as w:
    for k in range(FILES):
        name = os.path.join(inputs, f"clip{k:05d}.wav")
        with wave.open(name, "wb") as o:
            o.setnchannels(CHANNELS); o.setsampwidth(2); o.setframerate(RATE)
            o.writeframes(w.readframes(RATE))
        names.append(name)
listing = os.path.join(work, "list.txt")
with open(listing, "w") as f:
    f.write("\n".join(names) + "\n")

out = os.path.join(work, "out")


def fresh():
    shutil.rmtree(out, ignore_errors=True)
    os.mkdir(out)


batch = [TIMBRE, "render", "--files-from", listing, "--output-dir", out, "--jobs", "2", "--preset", "podcast-voice", "-q"]
one = [TIMBRE, "render", big, "-o", os.path.join(work, "big-out.wav"), "--preset", "podcast-voice", "-q"]
rows = []
t_batch = timed(batch, fresh)
produced = len([n for n in os.listdir(out) if n.endswith(".wav")])
t_resume = timed(batch + ["--skip-existing"])
t_shard = timed(batch + ["--shard", "0/2"], fresh)
shard_count = len(os.listdir(out))
t_one = timed(one)
rows.append(("timbre", t_batch, t_one))

# sox: podcast-voice's high-pass and bells as sox effects (the same kind of work per frame).
fx = ["highpass", "80", "equalizer", "200", "1q", "-2", "equalizer", "3000", "1q", "2", "gain", "-1"]
sox_batch = ["parallel", "-j2", "--will-cite", "sox", "{}", os.path.join(out, "{/}")] + fx + ["::::", listing]
sox_one = ["sox", big, os.path.join(work, "big-sox.wav")] + fx
if shutil.which("parallel"):
    rows.append(("sox (GNU parallel -j2)", timed(sox_batch, fresh), timed(sox_one)))

print(f"{FILES} one-second files ({RATE} Hz stereo 16-bit) against one {FILES}-second file; "
      f"2 cores, medians of {RUNS} runs, wall time")
print(f"{'tool':26} {'batch s':>9} {'one file s':>11} {'batch/one':>10} {'files/s':>9}")
for tool, b, o in rows:
    print(f"{tool:26} {b:9.2f} {o:11.2f} {b / o:10.2f} {FILES / b:9.0f}")
print(f"timbre batch wrote {produced} of {FILES} outputs; resume (--skip-existing, all complete) "
      f"{t_resume:.2f} s; --shard 0/2 rendered {shard_count} files in {t_shard:.2f} s")
shutil.rmtree(work)
