#!/usr/bin/env python3
"""Timbre's dynamics nodes beside x42 dpl, LSP's compressor and limiter and ffmpeg's
`acompressor`/`alimiter`, same material, same run (issue #21, section 5).

Cost: ns per stereo frame, from the CPU time (user + system) of rendering 300 s of stereo 48 kHz float
music-like material (pink noise with a slow tremolo, crossing the thresholds) minus the
same command with nothing in it — `timbre render` with the `flat` preset for Timbre and for
the plugins (hosted by Timbre's own LV2 host, one instance, stereo), `ffmpeg -af anull` for
ffmpeg's filters — medians of 7 runs; for a limiter the empty command runs over that
limiter's own output (so decoding, writing and Timbre's output meter see the same, limited,
audio). Subtracting the empty command removes decoding, encoding and start-up, so what is
left is the processing itself (and, for the plugins, our host's per-block call).

Distortion: THD+N of a 1 kHz sine driven 6 dB into each limiter (peak +5 dBFS into a
-1 dB ceiling, release 20 ms: the longest LSP's limiter allows): the output from 1 s to 4.5 s, less the least-squares fit of a
1 kHz sine and DC, relative to the fit, in dB (lower is cleaner). A clean limiter's output is
the sine times a constant gain, and what is left is float32 rounding (about -150 dB), which
swings by 8 dB with the last bit of that gain (0.49831 → -149.9 dB, one ulp up -152.4, two up
-157.4): so each limiter limits the sine at five drive levels 0.035 dB apart and the figure
is the power mean of the five — rounding luck averages out, gain modulation would not.

The limiters get the same music 9 dB louder (peaks near +2 dBFS, in float), so that they limit
much of the time. Inter-sample peaks: each limiter's output of it (its first 20 s)
reconstructed 16x, how far its true peak rises over the -1 dB ceiling.

Settings, as alike as each tool allows:
- compressors: threshold -20 dB, ratio 4, knee 6 dB, attack 10 ms, release 100 ms, peak
  detector (Timbre `compressor`; LSP `compressor_stereo` al=0.1 cr=4 kn=0.5 at=10 rt=100;
  ffmpeg `acompressor=threshold=0.1:ratio=4:knee=2:attack=10:release=100:detection=peak`;
  ffmpeg's knee is a factor, 2 the closest to 6 dB).
- limiters: ceiling -1 dB, release 20 ms (Timbre `limiter`, true peak, 2 ms lookahead; x42
  `dpl#stereo` threshold=-1 release=0.02 truepeak=1; LSP `limiter_stereo` th=0.891 rt=20 lk=2,
  automatic level regulation and boost off, and again with its oversampling at 4x (`ovs`
  15, "Full x4(2L)", the same class of guarantee as a true-peak limiter); ffmpeg `alimiter=limit=0.891:release=20:level=0`,
  a sample-peak limiter).

Usage: bench-compare-dynamics.py path/to/timbre
"""
import json, os, resource, statistics, subprocess, sys, tempfile
import numpy as np

TIMBRE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build-static/release/timbre")
RUNS = 7
RATE = 48000
SECONDS = 300
work = tempfile.mkdtemp(prefix="timbre-dynamics-")
import atexit, shutil  # the work folder (hundreds of MB of audio) goes when the script ends
atexit.register(shutil.rmtree, work, ignore_errors=True)


def run(argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True)


def timed(argv):
    """Median CPU time (user + system, every thread) of `argv` over RUNS runs: a render's
    decoder and writer threads overlap the processing, so wall time would hide part of it."""
    times = []
    for _ in range(RUNS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        run(argv)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(times)


def preset(name, node):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump({"version": 1, "name": name, "chain": [node] if node else []}, f)
    return path


def samples(path):
    raw = subprocess.run(["ffmpeg", "-loglevel", "error", "-i", path, "-f", "f32le", "-"], check=True, capture_output=True).stdout
    ch = int(run(["soxi", "-c", path]).stdout)
    return np.frombuffer(raw, dtype=np.float32).reshape(-1, ch).astype(float)


def true_peak_over_db(path, ceiling=-1.0, seconds=20):
    """How far the output's true peak (16x band-limited reconstruction, scipy resample_poly,
    Kaiser beta 9) rises over the ceiling in its first `seconds`, dB (negative: under it)."""
    from scipy.signal import resample_poly
    x = samples(path)[:seconds * RATE]
    peak = max(np.max(np.abs(resample_poly(x[:, c], 16, 1, window=("kaiser", 9.0)))) for c in range(x.shape[1]))
    return 20 * np.log10(peak) - ceiling


def thd_n_db(path):
    x = samples(path)[RATE:int(4.5 * RATE), 0]
    t = np.arange(len(x)) / RATE
    basis = np.stack([np.sin(2 * np.pi * 1000 * t), np.cos(2 * np.pi * 1000 * t), np.ones_like(t)], 1)
    coef, *_ = np.linalg.lstsq(basis, x, rcond=None)
    fit = basis[:, :2] @ coef[:2]
    residual = x - basis @ coef
    return 20 * np.log10(np.sqrt(np.mean(residual ** 2)) / np.sqrt(np.mean(fit ** 2)))


music = os.path.join(work, "music.wav")
run(["sox", "-R", "-n", "-r", str(RATE), "-c", "2", "-e", "floating-point", "-b", "32", music, "synth", str(SECONDS), "pinknoise",
     "lowpass", "8000", "tremolo", "0.3", "60", "gain", "-6"])
# The limiters' material: the same music 9 dB louder (float, over full scale: peaks near
# +2 dBFS), so that every limiter works much of the time rather than passing audio through.
loud = os.path.join(work, "loud.wav")
(samples(music) * 10 ** (9 / 20)).astype(np.float32).tofile(os.path.join(work, "loud.f32"))
run(["ffmpeg", "-y", "-loglevel", "error", "-f", "f32le", "-ar", str(RATE), "-ac", "2", "-i", os.path.join(work, "loud.f32"), "-c:a", "pcm_f32le", loud])
sines = []
t = np.arange(5 * RATE) / RATE
for k in range(-2, 3):
    sine = os.path.join(work, f"sine{k + 2}.wav")
    s = (10 ** ((5 + 0.035 * k) / 20) * np.sin(2 * np.pi * 1000 * t)).astype(np.float32)
    np.stack([s, s], 1).tofile(os.path.join(work, "sine.f32"))
    # ffmpeg keeps float samples over full scale (sox would clip them).
    run(["ffmpeg", "-y", "-loglevel", "error", "-f", "f32le", "-ar", str(RATE), "-ac", "2", "-i", os.path.join(work, "sine.f32"), "-c:a", "pcm_f32le", sine])
    sines.append(sine)

frames = SECONDS * RATE
compressors = [
    ("Timbre compressor", "timbre", {"type": "compressor", "threshold": -20, "ratio": 4, "knee": 6, "attack": 10, "release": 100}),
    ("LSP compressor (LV2)", "timbre", {"type": "plugin", "uri": "http://lsp-plug.in/plugins/lv2/compressor_stereo",
                                        "controls": {"al": 0.1, "cr": 4, "kn": 0.5, "at": 10, "rt": 100}}),
    ("ffmpeg acompressor", "ffmpeg", "acompressor=threshold=0.1:ratio=4:knee=2:attack=10:release=100:detection=peak"),
]
limiters = [
    ("Timbre limiter (true peak)", "timbre", {"type": "limiter", "ceiling": -1, "release": 20}),
    ("Timbre limiter (sample peak)", "timbre", {"type": "limiter", "ceiling": -1, "release": 20, "detector": "sample-peak"}),
    ("x42 dpl (true peak, LV2)", "timbre", {"type": "plugin", "uri": "http://gareus.org/oss/lv2/dpl#stereo",
                                            "controls": {"threshold": -1, "release": 0.02, "truepeak": 1}}),
    ("LSP limiter (LV2)", "timbre", {"type": "plugin", "uri": "http://lsp-plug.in/plugins/lv2/limiter_stereo",
                                     "controls": {"th": 0.891, "rt": 20, "lk": 2, "alr": 0, "boost": 0}}),
    ("LSP limiter, 4x oversampled (LV2)", "timbre", {"type": "plugin", "uri": "http://lsp-plug.in/plugins/lv2/limiter_stereo",
                                                     "controls": {"th": 0.891, "rt": 20, "lk": 2, "alr": 0, "boost": 0, "ovs": 15}}),
    ("ffmpeg alimiter (sample peak)", "ffmpeg", "alimiter=limit=0.891:release=20:level=0"),
]


def command(tool, what, source, out):
    if tool == "timbre":
        return [TIMBRE, "render", source, "-o", out, "--preset", preset("p", what), "-q"]
    return ["ffmpeg", "-y", "-hide_banner", "-nostats", "-loglevel", "error", "-i", source, "-af", what, "-c:a", "pcm_f32le", out]


out = os.path.join(work, "out.wav")
base = {"timbre": timed(command("timbre", None, music, out)), "ffmpeg": timed(command("ffmpeg", "anull", music, out))}
print(f"CPU time of the empty commands over {SECONDS} s stereo: timbre {base['timbre']:.3f} s, ffmpeg {base['ffmpeg']:.3f} s (subtracted below)")
print(f"{'processor':36} {'ns/stereo frame':>15} {'THD+N 1 kHz +6 dB':>18} {'music TP over ceiling':>22}")
for title, rows in (("compressors", compressors), ("limiters", limiters)):
    print(f"-- {title}")
    for name, tool, what in rows:
        source = loud if rows is limiters else music
        spent = timed(command(tool, what, source, out))
        empty = base[tool]
        if rows is limiters:
            # The empty command over this limiter's own output: decoding, writing and Timbre's
            # output meter (whose true-peak reading skips less of a limited signal) as they are
            # for the limited audio, so that only the limiter is left.
            limited = os.path.join(work, "limited.wav")
            os.replace(out, limited)
            empty = timed(command(tool, "anull" if tool == "ffmpeg" else None, limited, out))
            os.replace(limited, out)
        ns = (spent - empty) / frames * 1e9
        distortion = over = ""
        if rows is limiters:
            over = f"{true_peak_over_db(out):+.2f} dB"  # the loud music just rendered
            powers = []
            for sine in sines:
                run(command(tool, what, sine, out))
                powers.append(10 ** (thd_n_db(out) / 10))
            distortion = f"{10 * np.log10(np.mean(powers)):.1f} dB"
        print(f"{name:36} {ns:15.1f} {distortion:>18} {over:>22}")
