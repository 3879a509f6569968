#!/usr/bin/env python3
"""Timbre's zero-latency convolution beside zita-convolver, BruteFIR, ffmpeg `afir`, sox `fir`
and pedalboard's `Convolution`: same material, same responses, same run (issue #37, section 3).

Material: 20 s of stereo white noise at 48 kHz (float), and stereo responses of decaying noise
(a room's shape; L and R different) of 256 … 1,048,576 taps.

Cost: ns per stereo frame, from CPU time (user + system, every thread):
- Timbre: `timbre render --block-size B` with a `convolver` preset, minus the same command with
  the `flat` preset (decoding, writing and start-up removed; what is left is the convolution).
- zita-convolver: Benchmarks/Peers/zita-convolver-bench.cc (built here against Debian's
  libzita-convolver-dev), in process: CPU of the processing loop; periods of B frames, the
  smallest partition B (latency B, zita's floor is 64), levels on zita's threads.
- BruteFIR: raw float file in and out, partitions of B (`filter_length: B,N`), minus a 1-tap
  run; wall time (its forked filter processes' CPU is not reported to the parent).
- ffmpeg: `afir` (minimum partition `minp` B), minus `anull`; sox: `fir` (the left response on
  both channels; sox takes one), minus a plain copy; pedalboard: `Convolution` in process
  (`process_time` around `process`), blocks of B.
Each figure the median of 3 runs (interleaved). Worst block: zita's longest `process(true)`
call (it waits for its levels); Timbre's per-block figures are in `make benchmark` (the fir rows).

Latency: the lag that aligns each tool's output with Timbre's (which the tests pin to zero
latency against a Double direct convolution); sox's is not measured (its response is the
left one on both channels).

Usage: bench-compare-convolution.py path/to/timbre [--quick]
"""
import json, os, resource, statistics, subprocess, sys, tempfile, time
import numpy as np

TIMBRE = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "timbre"
QUICK = "--quick" in sys.argv
HERE = os.path.dirname(os.path.abspath(__file__))
RATE = 48_000
SECONDS = 10 if QUICK else 20
TAPS = [256, 4_096, 65_536] if QUICK else [int(t) for t in os.environ.get("TIMBRE_BENCH_TAPS", "256,4096,65536,262144,1048576").split(",")]
BLOCKS = [64, 1_024] if QUICK else [int(b) for b in os.environ.get("TIMBRE_BENCH_BLOCKS", "32,64,256,1024").split(",")]
RUNS = int(os.environ.get("TIMBRE_BENCH_RUNS", "1" if QUICK else "3"))
work = tempfile.mkdtemp(prefix="timbre-bench-conv-")


def child_cpu(args, **kw):
    """CPU seconds (user + system) of a child process and its children; raises on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run(args, capture_output=True, text=True, **kw)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        raise SystemExit(f"{args[0]} failed ({run.returncode}): {run.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), run.stdout


def write_wav(path, planar):
    import wave
    # Float WAV through sox (wave writes integers only): raw float → WAV.
    raw = path + ".raw"
    np.asarray(planar, dtype="<f4").T.tofile(raw)
    subprocess.run(["sox", "-t", "raw", "-r", str(RATE), "-e", "floating-point", "-b", "32", "-c", str(len(planar)), raw, path], check=True)
    os.remove(raw)


rng = np.random.default_rng(37)
frames = SECONDS * RATE
x = (rng.standard_normal((2, frames)) * 0.05).astype(np.float32)
write_wav(os.path.join(work, "in.wav"), x)
x.T.astype("<f4").tofile(os.path.join(work, "in-interleaved.f32"))
x.astype("<f4").tofile(os.path.join(work, "in-planar.f32"))

zita = os.path.join(work, "zita-bench")
subprocess.run(["g++", "-O2", "-o", zita, os.path.join(HERE, "..", "Benchmarks", "Peers", "zita-convolver-bench.cc"),
                "-lzita-convolver", "-lfftw3f", "-lpthread"], check=True)
flat_preset = os.path.join(work, "flat.json")
json.dump({"version": 1, "name": "flat", "chain": []}, open(flat_preset, "w"))


def response(taps):
    t = np.arange(taps)
    h = rng.standard_normal((2, taps)) * np.exp(-6 * t / taps)
    return (h / np.sqrt((h ** 2).sum(axis=1, keepdims=True))).astype(np.float32)


def lag(y, reference, limit=20_000):
    """The delay of y against reference (frames), by the best match of their first stretch."""
    a = reference[0, 20_000:40_000].astype(np.float64)
    best, where = None, 0
    for d in range(0, limit + 1, 1):
        b = y[0, 20_000 + d:40_000 + d].astype(np.float64)
        if len(b) < len(a):
            break
        e = np.max(np.abs(a - b))
        if best is None or e < best:
            best, where = e, d
        if e < 1e-4:
            break
    return where, best


rows = []
for taps in TAPS:
    h = response(taps)
    d = os.path.join(work, f"h{taps}")
    os.makedirs(d, exist_ok=True)
    write_wav(os.path.join(d, "ir.wav"), h)
    h.astype("<f4").tofile(os.path.join(d, "ir-planar.f32"))
    for c in range(2):
        h[c].astype("<f4").tofile(os.path.join(d, f"h{c}.f32"))
    np.savetxt(os.path.join(d, "h0.txt"), h[0], fmt="%.9g")
    json.dump({"version": 1, "name": "conv", "chain": [{"type": "convolver", "file": "ir.wav"}]}, open(os.path.join(d, "conv.json"), "w"))
    out = os.path.join(work, "out.wav")
    reference = None
    for block in BLOCKS:
        costs = {}
        latency = {}
        for run in range(RUNS):
            # Timbre
            tc, _ = child_cpu([TIMBRE, "render", os.path.join(work, "in.wav"), "-o", out, "--preset", os.path.join(d, "conv.json"), "--block-size", str(block)])
            if reference is None:
                ref_raw = os.path.join(work, "ref.f32")
                subprocess.run(["sox", out, "-t", "raw", "-e", "floating-point", "-b", "32", ref_raw], check=True)
                reference = np.fromfile(ref_raw, "<f4").reshape(-1, 2).T
                latency["timbre"] = 0
            tf, _ = child_cpu([TIMBRE, "render", os.path.join(work, "in.wav"), "-o", out, "--preset", flat_preset, "--block-size", str(block)])
            costs.setdefault("Timbre", []).append(tc - tf)
            # zita-convolver
            zout = os.path.join(work, "zita-out.f32")
            _, text = child_cpu([zita, os.path.join(work, "in-planar.f32"), str(frames), os.path.join(d, "ir-planar.f32"), str(taps), str(block), zout])
            cpu, worst, zl = text.split()
            costs.setdefault("zita-convolver", []).append(float(cpu))
            costs.setdefault("zita worst block (µs)", []).append(float(worst))
            if run == 0:
                latency["zita-convolver"] = lag(np.fromfile(zout, "<f4").reshape(2, -1), reference)[0]
            # BruteFIR: partitions of the block size.
            if True:
                parts = max(1, -(-taps // block))
                for name, coeffs in (("bf", [os.path.join(d, "h0.f32"), os.path.join(d, "h1.f32")]), ("bf1", None)):
                    conf = os.path.join(work, name + ".conf")
                    length = f"{block},{parts}" if coeffs else f"{block},1"
                    if coeffs is None:
                        one = os.path.join(work, "one.f32")
                        np.array([1.0], "<f4").tofile(one)
                        coeffs = [one, one]
                    with open(conf, "w") as f:
                        f.write(f"""float_bits: 32; sampling_rate: {RATE}; filter_length: {length}; overflow_warnings: false;
allow_poll_mode: false; monitor_rate: false; powersave: false; lock_memory: false; show_progress: false; safety_limit: 0;
coeff "c0" {{ filename: "{coeffs[0]}"; format: "FLOAT_LE"; }};
coeff "c1" {{ filename: "{coeffs[1]}"; format: "FLOAT_LE"; }};
input "l","r" {{ device: "file" {{path: "{os.path.join(work, 'in-interleaved.f32')}";}}; sample: "FLOAT_LE"; channels: 2; }};
output "ol","or" {{ device: "file" {{path: "{os.path.join(work, name + '-out.f32')}";}}; sample: "FLOAT_LE"; channels: 2; }};
filter "fl" {{ from_inputs: "l"; to_outputs: "ol"; coeff: "c0"; }};
filter "fr" {{ from_inputs: "r"; to_outputs: "or"; coeff: "c1"; }};
""")
                    # BruteFIR forks its filter processes and does not wait for them all, so
                    # their CPU never reaches this process's rusage: wall time instead (on 2
                    # cores its processes may overlap, so this can understate its CPU up to 2×).
                    w0 = time.monotonic()
                    subprocess.run(["brutefir", conf], cwd=work, check=True, capture_output=True)
                    c = time.monotonic() - w0
                    if name == "bf":
                        bfc = c
                        if run == 0:
                            latency["BruteFIR"] = lag(np.fromfile(os.path.join(work, "bf-out.f32"), "<f4").reshape(-1, 2).T, reference)[0]
                    else:
                        costs.setdefault("BruteFIR", []).append(bfc - c)
            # ffmpeg afir (the response as the second input), minus anull.
            fc, _ = child_cpu(["ffmpeg", "-v", "error", "-y", "-i", os.path.join(work, "in.wav"), "-i", os.path.join(d, "ir.wav"),
                               "-filter_complex", f"[0:a][1:a]afir=minp={max(8, block)}:maxp={max(8, block, 8192)}:gtype=none", "-c:a", "pcm_f32le", out])
            if run == 0:
                subprocess.run(["sox", out, "-t", "raw", "-e", "floating-point", "-b", "32", os.path.join(work, "ff.f32")], check=True)
                latency["ffmpeg afir"] = lag(np.fromfile(os.path.join(work, "ff.f32"), "<f4").reshape(-1, 2).T, reference)[0]
            fa, _ = child_cpu(["ffmpeg", "-v", "error", "-y", "-i", os.path.join(work, "in.wav"), "-af", "anull", "-c:a", "pcm_f32le", out])
            costs.setdefault("ffmpeg afir", []).append(fc - fa)
            # sox fir: one response (h0) on both channels.
            sc, _ = child_cpu(["sox", os.path.join(work, "in.wav"), out, "fir", os.path.join(d, "h0.txt")])
            sa, _ = child_cpu(["sox", os.path.join(work, "in.wav"), out])
            costs.setdefault("sox fir", []).append(sc - sa)
            # pedalboard, in process.
            pout = os.path.join(work, "pb.f32")
            _, text = child_cpu([sys.executable, "-c", f"""
import numpy as np, time, pedalboard
x = np.fromfile({os.path.join(work, 'in-planar.f32')!r}, '<f4').reshape(2, -1)
conv = pedalboard.Convolution({os.path.join(d, 'ir.wav')!r})
t = time.process_time()
y = conv.process(x, {RATE}, buffer_size={block}, reset=True)
print(time.process_time() - t)
y.astype('<f4').tofile({pout!r})
"""])
            costs.setdefault("pedalboard Convolution", []).append(float(text.split()[0]))
            if run == 0:
                latency["pedalboard Convolution"] = lag(np.fromfile(pout, "<f4").reshape(2, -1), reference)[0]
        for name, values in costs.items():
            med = statistics.median(values)
            rows.append((taps, block, name, med if "worst" in name else med / frames * 1e9, latency.get(name.replace(" worst block (µs)", ""))))
        print(f"{taps:>9} taps, block {block:>4}: " + ", ".join(f"{n} {statistics.median(v) / (1 if 'worst' in n else frames / 1e9):.1f}" for n, v in costs.items())
              + f"; latency {latency}", flush=True)

print("\n| taps | block | tool | ns per stereo frame | latency (frames) |")
print("|---|---|---|---|---|")
for taps, block, name, value, lat in rows:
    if "worst" in name:
        print(f"| {taps:,} | {block} | {name} | {value:.0f} µs | |")
    else:
        print(f"| {taps:,} | {block} | {name} | {value:.1f} | {'' if lat is None else lat} |")
