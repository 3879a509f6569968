#!/usr/bin/env python3
"""`timbre render --normalize` beside ffmpeg's two-pass `loudnorm`, same files, same run.

Issue #21: on target where loudnorm misses, no true-peak overshoot where loudnorm has some, and
at least 10× its speed. Materials: espeak-ng speech (peaky synthetic voice), music-like pink
noise with a slow tremolo, and clicks over quiet noise — each needs more gain than the
ceiling allows, so both tools must limit; and the speech 30 times over (5.5 minutes, the
length of a short podcast), where the process's start-up no longer counts. Targets −16 LUFS / −1 dBTP (podcast) and
−23 LUFS / −1 dBTP (EBU R 128).

Timbre: `timbre render IN -o OUT --normalize T --true-peak-ceiling -1` (no preset). ffmpeg:
the documented two passes — `loudnorm=I=T:TP=-1:LRA=20:print_format=json` to measure, then
`loudnorm` with `measured_*` and `linear=true` (it falls back to its dynamic mode, which
upsamples to 192 kHz, when linear would cross the ceiling), `-ar` back to the input rate.

Both outputs are read by the same judges: integrated loudness by libebur128's algorithm as
ffmpeg's `ebur128` filter implements it, and true peak by a 16× band-limited reconstruction
(scipy's resample_poly, Kaiser window) in this script. Times: wall clock of the whole
command(s), medians of 7 runs after an untimed one.

Usage: bench-compare-loudnorm.py path/to/timbre
"""
import json, os, re, statistics, subprocess, sys, tempfile, time
import numpy as np
from scipy.signal import resample_poly

TIMBRE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build-static/release/timbre")
RUNS = 7
work = tempfile.mkdtemp(prefix="timbre-loudnorm-")
import atexit, shutil  # the work folder (hundreds of MB of audio) goes when the script ends
atexit.register(shutil.rmtree, work, ignore_errors=True)


def run(argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True)


def timed(commands):
    """Median wall time of `commands` (a list of argv, run in sequence): one untimed run
    (caches warm), then RUNS timed ones back to back. Each tool's runs are taken together, as
    hyperfine takes them: on this shared VM a command run right after a long, busy one is
    slower for seconds (a Timbre run on the 5.5-minute file: 0.69 s after its own runs, 1.07 s
    right after a 10 s ffmpeg run, 1.0 s after 3 s of a Python loop — the host's scheduler,
    not the command)."""
    def once():
        t = time.perf_counter()
        for argv in commands:
            run(argv)
        return time.perf_counter() - t
    once()
    return statistics.median(once() for _ in range(RUNS))


def integrated(path):
    out = subprocess.run(["ffmpeg", "-hide_banner", "-nostats", "-i", path, "-af", "ebur128=peak=true", "-f", "null", "-"],
                         capture_output=True, text=True).stderr
    return float(re.findall(r"I:\s+(-?[\d.]+) LUFS", out)[-1])


def true_peak_16x(path):
    raw = subprocess.run(["sox", path, "-t", "f32", "-"], check=True, capture_output=True).stdout
    ch = int(run(["soxi", "-c", path]).stdout)
    x = np.frombuffer(raw, dtype=np.float32).reshape(-1, ch).astype(float)
    return 20 * np.log10(max(np.max(np.abs(resample_poly(x[:, c], 16, 1, window=("kaiser", 9.0)))) for c in range(ch)))


# Materials.
speech = os.path.join(work, "speech.wav")
run(["espeak-ng", "-w", os.path.join(work, "s22.wav"),
     "This is a test of loudness normalisation. We want the target, without a single sample over the ceiling. "
     "Peter Piper picked a peck of pickled peppers; how many pickled peppers did Peter Piper pick?"])
run(["sox", os.path.join(work, "s22.wav"), "-r", "48000", "-b", "24", speech])
# A podcast-length file: the speech 30 times over with a second of room tone between (5.5 min).
long_speech = os.path.join(work, "long-speech.wav")
room = os.path.join(work, "room.wav")
run(["sox", "-R", "-n", "-r", "48000", "-c", "1", "-b", "24", room, "synth", "1", "pinknoise", "gain", "-60"])
run(["sox"] + [f for _ in range(30) for f in (speech, room)] + [long_speech])
music = os.path.join(work, "music.wav")
run(["sox", "-R", "-n", "-r", "48000", "-c", "2", "-b", "24", music, "synth", "30", "pinknoise", "lowpass", "8000",
     "tremolo", "0.3", "60", "gain", "-12"])
clicks = os.path.join(work, "clicks.wav")
rng = np.random.default_rng(5)
c = rng.uniform(-0.01, 0.01, 48000 * 8)
c[1::24000] = 0.95
c[2::24000] = -0.6
raw = os.path.join(work, "clicks.f32")
np.stack([c, c], 1).astype(np.float32).tofile(raw)
run(["sox", "-t", "f32", "-r", "48000", "-c", "2", raw, "-b", "24", clicks])

rows = []
for target in (-16, -23):
    for name, path in (("speech (espeak-ng)", speech), ("music-like", music), ("clicks", clicks), ("speech, 5.5 min", long_speech)):
        ours = os.path.join(work, "timbre.wav")
        t_ours = timed([[TIMBRE, "render", path, "-o", ours, "--normalize", str(target), "--true-peak-ceiling", "-1", "-q"]])
        first = subprocess.run(["ffmpeg", "-hide_banner", "-nostats", "-i", path, "-af",
                                f"loudnorm=I={target}:TP=-1:LRA=20:print_format=json", "-f", "null", "-"],
                               capture_output=True, text=True).stderr
        m = json.loads(first[first.rindex("{"):first.rindex("}") + 1])
        theirs = os.path.join(work, "ffmpeg.wav")
        second = (f"loudnorm=I={target}:TP=-1:LRA=20:measured_I={m['input_i']}:measured_TP={m['input_tp']}:"
                  f"measured_LRA={m['input_lra']}:measured_thresh={m['input_thresh']}:offset={m['target_offset']}:linear=true")
        rate = run(["soxi", "-r", path]).stdout.strip()
        pass1 = ["ffmpeg", "-y", "-hide_banner", "-nostats", "-i", path, "-af",
                 f"loudnorm=I={target}:TP=-1:LRA=20:print_format=json", "-f", "null", "-"]
        pass2 = ["ffmpeg", "-y", "-hide_banner", "-nostats", "-i", path, "-af", second, "-ar", rate, "-c:a", "pcm_s24le", theirs]
        t_theirs = timed([pass1, pass2])
        rows.append((target, name,
                     integrated(ours) - target, true_peak_16x(ours) + 1, t_ours,
                     integrated(theirs) - target, true_peak_16x(theirs) + 1, t_theirs))

print("--normalize beside ffmpeg loudnorm (two-pass), -1 dBTP ceiling; loudness error (LU, ffmpeg's ebur128),")
print("true-peak overshoot over the ceiling (dB, 16x reconstruction; negative = under), wall time (median of 7)")
print(f"{'target':>6} {'material':20} {'timbre LU':>9} {'TP over':>8} {'s':>6}   {'loudnorm LU':>11} {'TP over':>8} {'s':>6}  {'speed':>6}")
for target, name, e1, o1, t1, e2, o2, t2 in rows:
    print(f"{target:6d} {name:20} {e1:+9.2f} {o1:+8.2f} {t1:6.2f}   {e2:+11.2f} {o2:+8.2f} {t2:6.2f}  {t2 / t1:5.1f}x")
