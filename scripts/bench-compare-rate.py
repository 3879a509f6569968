#!/usr/bin/env python3
"""Timbre's resampler and time-stretcher beside the tools people use, same machine, same run.

Sample-rate conversion: timbre (high, fast) against libsoxr HQ and VHQ (through ffmpeg's
aresample=resampler=soxr, single-threaded; Debian's sox does not link libsoxr) and sox's own
`rate -v`. For each conversion: THD+N of a 1 kHz sine at -6 dBFS (sine fit at the exact
frequency), rejection of a tone above the output Nyquist (downsampling), worst passband
deviation up to 0.9 of the lower Nyquist, and speed on 60 s of stereo noise: whole command
and conversion alone (the command minus the same tool's plain copy: the mean of copying the
input and copying a file of the output's length, since decoding follows the input's length and
encoding the output's), medians of 5 interleaved runs.

Time-stretch: timbre --speed against rubberband -3 (finer engine) on 60 s of music-like stereo
(tones, plucks and pink-noise bursts): speed as output audio seconds per wall-clock second.

Then the converters alone in one process (Benchmarks/RateBenchmarks: Timbre beside libsoxr
linked directly), where file and decoder time do not blur the comparison.

Usage: bench-compare-rate.py path/to/timbre
"""
import os, subprocess, sys, tempfile, time
import numpy as np

TIMBRE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build-static/release/timbre")
RUNS = 5
work = tempfile.mkdtemp(prefix="timbre-bench-")
import atexit, shutil  # the work folder (hundreds of MB of audio) goes when the script ends
atexit.register(shutil.rmtree, work, ignore_errors=True)

def run(args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def write(path, channels, rate):
    raw = os.path.join(work, "raw.f32")
    np.stack(channels, 1).astype(np.float32).tofile(raw)
    run(["sox", "-t", "f32", "-r", str(rate), "-c", str(len(channels)), raw, "-e", "floating-point", "-b", "32", path])

def read(path):
    raw = subprocess.run(["sox", path, "-t", "f32", "-"], check=True, capture_output=True).stdout
    ch = int(subprocess.run(["soxi", "-c", path], check=True, capture_output=True, text=True).stdout)
    return np.frombuffer(raw, dtype=np.float32).reshape(-1, ch)[:, 0].astype(float)

def fit(y, hz, rate, margin=4000):
    y = y[margin:len(y) - margin]
    w = 2 * np.pi * hz * (np.arange(len(y)) + margin) / rate
    a = np.stack([np.sin(w), np.cos(w), np.ones_like(w)], 1)
    c, *_ = np.linalg.lstsq(a, y, rcond=None)
    s = a[:, :2] @ c[:2]
    r = y - a @ c
    return np.hypot(c[0], c[1]), 10 * np.log10((r @ r) / (s @ s))

def converters(fin, fout):
    return {
        "timbre high": lambda i, o: [TIMBRE, "render", i, "-o", o, "--preset", "flat", "-r", str(fout), "--quality", "high", "--encoding", "float", "-q"],
        "timbre fast": lambda i, o: [TIMBRE, "render", i, "-o", o, "--preset", "flat", "-r", str(fout), "--quality", "fast", "--encoding", "float", "-q"],
        "soxr HQ (ffmpeg)": lambda i, o: ["ffmpeg", "-v", "error", "-y", "-threads", "1", "-i", i, "-af", f"aresample=resampler=soxr:precision=20:osr={fout}", "-c:a", "pcm_f32le", o],
        "soxr VHQ (ffmpeg)": lambda i, o: ["ffmpeg", "-v", "error", "-y", "-threads", "1", "-i", i, "-af", f"aresample=resampler=soxr:precision=28:osr={fout}", "-c:a", "pcm_f32le", o],
        "sox rate -v": lambda i, o: ["sox", i, "-e", "floating-point", "-b", "32", o, "rate", "-v", str(fout)],
    }

copies = {
    "timbre": lambda i, o: [TIMBRE, "render", i, "-o", o, "--preset", "flat", "--encoding", "float", "-q"],
    "ffmpeg": lambda i, o: ["ffmpeg", "-v", "error", "-y", "-threads", "1", "-i", i, "-c:a", "pcm_f32le", o],
    "sox": lambda i, o: ["sox", i, "-e", "floating-point", "-b", "32", o],
}

def median_times(commands):
    """commands: name -> argv. Interleaved runs; median wall seconds per name."""
    times = {k: [] for k in commands}
    for _ in range(RUNS):
        for k, argv in commands.items():
            t = time.perf_counter(); run(argv); times[k].append(time.perf_counter() - t)
    return {k: float(np.median(v)) for k, v in times.items()}

def conversion_table():
    print("## Sample-rate conversion (1 kHz at -6 dBFS for THD+N; 60 s stereo noise for speed)\n")
    print("Passband deviation is measured up to 0.9 of the lower Nyquist; timbre's fast mode keeps 0.8 (its edge is −6 dB at 0.9 by design).\n")
    print("| conversion | converter | THD+N dB | alias rejection dB | passband dev. dB | whole command × RT | conversion alone × RT |")
    print("|---|---|---|---|---|---|---|")
    for fin, fout in [(44100, 48000), (48000, 44100), (48000, 96000), (96000, 48000)]:
        sine = os.path.join(work, f"sine{fin}.wav")
        write(sine, [0.5 * np.sin(2 * np.pi * 1000 * np.arange(fin * 2) / fin)] * 2, fin)
        alias_hz = 25000 if fin == 96000 else 23000 if (fin, fout) == (48000, 44100) else None
        if alias_hz:
            alias = os.path.join(work, f"alias{fin}.wav")
            write(alias, [0.5 * np.sin(2 * np.pi * alias_hz * np.arange(fin * 2) / fin)] * 2, fin)
        edge = 0.9 * min(fin, fout) / 2
        tones = [100.0, 1000.0, 10000.0, edge * 0.98, edge]
        tone_files = []
        for k, hz in enumerate(tones):
            p = os.path.join(work, f"tone{fin}-{k}.wav"); write(p, [0.5 * np.sin(2 * np.pi * hz * np.arange(fin) / fin)], fin); tone_files.append(p)
        noise = os.path.join(work, f"noise{fin}.wav")
        rng = np.random.default_rng(1)
        write(noise, [rng.uniform(-0.25, 0.25, fin * 60), rng.uniform(-0.25, 0.25, fin * 60)], fin)
        noise_out = os.path.join(work, f"noise-out{fout}.wav")
        write(noise_out, [rng.uniform(-0.25, 0.25, fout * 60), rng.uniform(-0.25, 0.25, fout * 60)], fout)
        conv = converters(fin, fout)
        commands = {k: f(noise, os.path.join(work, "o-" + k.split()[0] + ".wav")) for k, f in conv.items()}
        commands.update({"copy " + k: f(noise, os.path.join(work, "c-" + k + ".wav")) for k, f in copies.items()})
        commands.update({"copy-out " + k: f(noise_out, os.path.join(work, "d-" + k + ".wav")) for k, f in copies.items()})
        times = median_times(commands)
        for name, f in conv.items():
            out = os.path.join(work, "q.wav")
            run(f(sine, out)); _, thdn = fit(read(out), 1000, fout)
            rejection = "—"
            if alias_hz:
                run(f(alias, out)); y = read(out)[4000:-4000]
                rejection = "%.1f" % (20 * np.log10(np.sqrt(np.mean(y ** 2)) / (0.5 / np.sqrt(2)) + 1e-30))
            worst = 0.0
            for hz, p in zip(tones, tone_files):
                run(f(p, out)); amp, _ = fit(read(out), hz, fout); worst = max(worst, abs(20 * np.log10(amp / 0.5)))
            tool = "timbre" if name.startswith("timbre") else "sox" if name.startswith("sox rate") else "ffmpeg"
            whole = 60 / times[name]
            alone = times[name] - (times["copy " + tool] + times["copy-out " + tool]) / 2
            print(f"| {fin / 1000:g}→{fout / 1000:g} kHz | {name} | {thdn:.1f} | {rejection} | {worst:.4f} | {whole:.0f}× | {'%.0f×' % (60 / alone) if alone > 0.005 else 'below noise'} |")
        sys.stdout.flush()

def music(rate, seconds):
    n = rate * seconds
    rng = np.random.default_rng(3)
    t = np.arange(n) / rate
    left = 0.15 * np.sin(2 * np.pi * 220 * t) + 0.1 * np.sin(2 * np.pi * 331.3 * t)
    right = 0.15 * np.sin(2 * np.pi * 220 * t + 0.4) + 0.1 * np.sin(2 * np.pi * 441.7 * t)
    beat = int(0.25 * rate)
    env = np.exp(-(np.arange(n) % beat) / (0.03 * rate))
    burst = rng.uniform(-0.3, 0.3, n) * env
    return [left + burst, right + burst]

def stretch_table():
    print("\n## Time-stretch, 60 s of music-like stereo at 48 kHz (tones + noise bursts every 250 ms)\n")
    src = os.path.join(work, "music.wav"); write(src, music(48000, 60), 48000)
    print("| speed | tool | output seconds | × real time (output audio / wall) |")
    print("|---|---|---|---|")
    for speed in [0.5, 0.75, 1.5, 2.0]:
        commands = {
            "timbre": [TIMBRE, "render", src, "-o", os.path.join(work, "s-t.wav"), "--preset", "flat", "--speed", str(speed), "--encoding", "float", "-q"],
            "rubberband -3": ["rubberband", "-3", "-q", "-T", str(speed), src, os.path.join(work, "s-r.wav")],
        }
        times = median_times(commands)
        for name, t in times.items():
            print(f"| {speed} | {name} | {60 / speed:.0f} | {60 / speed / t:.0f}× |")
        sys.stdout.flush()

def in_process_table():
    """The converters alone, in one process: Benchmarks/RateBenchmarks converts one second of
    stereo noise per iteration with Timbre (pull API, 1024-frame blocks) and with libsoxr
    linked directly (soxr_process, single-threaded), interleaved in one package-benchmark run.
    No file or decoder time: this is the figure to hold against soxr's own speed."""
    print("\n## Converters alone, in process (Benchmarks/RateBenchmarks: 1 s of stereo noise per iteration, median)\n")
    bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Benchmarks")
    out = subprocess.run(["swift", "package", "benchmark", "--target", "RateBenchmarks", "--filter", "Timbre.*",
                          "--filter", "soxr.*", "--no-progress"], cwd=bench, check=True, capture_output=True, text=True).stdout
    medians, name = {}, None
    for line in out.splitlines():
        if line.startswith(("Timbre ", "soxr ")):
            name = line.split(" stereo")[0]
        elif name and line.startswith("│ Time (wall clock)"):
            medians[name] = int(line.split("│")[4])  # columns: metric, p0, p25, p50
            name = None
    print("| conversion | converter | µs per stereo second | × real time | vs soxr HQ |")
    print("|---|---|---|---|---|")
    for fin, fout in [(44100, 48000), (48000, 44100), (48000, 96000), (96000, 48000)]:
        pair = f"{fin}→{fout}"
        hq = medians.get(f"soxr HQ {pair}")
        for label in ["Timbre high", "Timbre high polyphase", "Timbre fast", "soxr HQ", "soxr VHQ"]:
            us = medians.get(f"{label} {pair}")
            if us is None:
                continue
            ratio = f"{hq / us:.2f}× as fast" if hq else "—"
            print(f"| {fin / 1000:g}→{fout / 1000:g} kHz | {label} | {us} | {1e6 / us:.0f}× | {ratio} |")

print(f"(medians of {RUNS} interleaved runs; files in {work})\n")
conversion_table()
stretch_table()
in_process_table()
