#!/usr/bin/env python3
"""Voice clean-up scores: Timbre's denoiser beside noisereduce, ffmpeg's afftdn and anlmdn,
and speexdsp's preprocessor, on mixtures made here of speech nobody here recorded (espeak-ng
voices and the ALSA voice prompts Debian ships) and noise at set SNRs.

usage: voice-cleanup-scores.py TIMBRE_BIN OUT_DIR [--snr 0,5,10,20] [--noise pink,brown,...]
                               [--processors timbre,noisereduce,...] [--json FILE]

Every mixture is 48 kHz mono; speech starts after 0.6 s of noise alone (the stretch the
learned-profile peers learn from: noisereduce's stationary mode given it is Audacity's
algorithm, afftdn's sample_noise). The SNR is the speech's active power (20 ms frames within
40 dB of its loudest) over the noise's mean power. Each output is aligned to the mixture by
cross-correlation (afftdn and speexdsp add latency) before scoring.

Scores: wideband PESQ (`pesq`, ITU-T P.862.2, at 16 kHz), STOI (`pystoi`, at 16 kHz),
segmental SNR improvement over the mixture (20 ms frames, each clamped to -10…35 dB), and the
residual noise in the pauses (dB below the mixture's noise there).

`timbre-profile-fixed` gives Timbre's denoiser what the profile-learning peers are given: a
profile learned from the lead-in (`timbre noise-profile --start 0.05 --end 0.55`), kept fixed
(`"adaptive": false`, Audacity's way). `--processors timbre-profile` (not run by default)
starts from that profile and keeps tracking: it scores as the tracking denoiser does, within
0.01 PESQ and STOI.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import warnings
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from scipy.io import wavfile
from scipy.signal import resample_poly, lfilter

warnings.filterwarnings("ignore", message="Chunk")  # libsndfile's PEAK chunk, which scipy does not read

RATE = 48_000
LEAD = 0.6  # seconds of noise alone before the speech
SENTENCES = [
    ("en-us", "The birch canoe slid on the smooth planks."),
    ("en-gb", "Glue the sheet to the dark blue background."),
    ("en-us+f3", "It's easy to tell the depth of a well."),
    ("alsa", "Front_Center"),
    ("en-gb-scotland", "These days a chicken leg is a rare dish."),
    ("en-us+f2", "Rice is often served in round bowls."),
    ("alsa", "Rear_Left"),
    ("en-029", "The juice of lemons makes fine punch."),
]
BABBLE = ["The box was thrown beside the parked truck.", "The hogs were fed chopped corn and garbage.",
          "Four hours of steady work faced us.", "A large size in stockings is hard to sell.",
          "The boy was there when the sun rose.", "A rod is used to catch pink salmon."]
PAUSES = [0.45, 1.6, 0.7, 1.2, 0.5, 2.0, 0.8]
NOISES = ["pink", "brown", "fan", "hum50", "hum60", "babble", "step"]
PROCESSORS = ["input", "timbre", "timbre-profile-fixed", "noisereduce-stationary", "noisereduce-nonstationary", "afftdn", "afftdn-profile", "anlmdn", "speexdsp"]


def read(path):
    rate, x = wavfile.read(path)
    if x.dtype == np.int16:
        x = x / 32768.0
    elif x.dtype == np.int32:
        x = x / 2147483648.0
    x = np.asarray(x, dtype=np.float64)
    if x.ndim > 1:
        x = x.mean(axis=1)
    if rate != RATE:
        from math import gcd
        g = gcd(rate, RATE)
        x = resample_poly(x, RATE // g, rate // g)
    return x


def write(path, x):
    wavfile.write(path, RATE, np.asarray(x, dtype=np.float32))


def say(voice, text, work):
    path = os.path.join(work, f"say-{abs(hash((voice, text)))}.wav")
    subprocess.run(["espeak-ng", "-v", voice, "-s", "150", "-w", path, text], check=True)
    return read(path)


def utterance(voice, text, work):
    x = read(f"/usr/share/sounds/alsa/{text}.wav") if voice == "alsa" else say(voice, text, work)
    # Trim the synthesiser's own leading and trailing silence, normalise to -20 dBFS RMS.
    active = np.flatnonzero(np.abs(x) > 1e-3)
    x = x[active[0]:active[-1] + 1]
    return x * (0.1 / np.sqrt(np.mean(x ** 2)))


def speech_track(work):
    """The clean speech and its mask of pauses (True where no one speaks)."""
    parts, pause_mask = [np.zeros(int(LEAD * RATE))], [np.ones(int(LEAD * RATE), bool)]
    for i, (voice, text) in enumerate(SENTENCES):
        u = utterance(voice, text, work)
        parts.append(u); pause_mask.append(np.zeros(len(u), bool))
        gap = PAUSES[i] if i < len(PAUSES) else 0.6
        parts.append(np.zeros(int(gap * RATE))); pause_mask.append(np.ones(int(gap * RATE), bool))
    return np.concatenate(parts), np.concatenate(pause_mask)


def coloured(n, exponent, rng):
    """Noise whose power falls as f^-exponent (1: pink, 2: brown), unit RMS."""
    spectrum = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1 / RATE)
    f[0] = f[1]
    spectrum *= np.maximum(f, 20.0) ** (-exponent / 2)
    x = np.fft.irfft(spectrum, n)
    return x / np.sqrt(np.mean(x ** 2))


def noise(kind, n, rng, work):
    t = np.arange(n) / RATE
    if kind == "pink":
        return coloured(n, 1, rng)
    if kind == "brown":
        return coloured(n, 2, rng)
    if kind == "fan":
        # A fan: broadband (between pink and white, rolled off above 4 kHz) plus the blade-pass
        # tone at 180 Hz and its harmonics, their level wobbling slowly.
        broad = coloured(n, 0.6, rng)
        b, a = [0.2, 0.2], [1, -0.6]
        broad = lfilter(b, a, broad)
        tones = sum((0.6 / k) * np.sin(2 * np.pi * 180 * k * t + k) * (1 + 0.1 * np.sin(2 * np.pi * 0.3 * t)) for k in (1, 2, 3, 5))
        x = broad / np.sqrt(np.mean(broad ** 2)) + tones
        return x / np.sqrt(np.mean(x ** 2))
    if kind in ("hum50", "hum60"):
        f0 = 50.0 if kind == "hum50" else 60.0
        x = sum((1.0 / k) * np.sin(2 * np.pi * f0 * k * t + 0.7 * k) for k in range(1, 9))
        x = x + 0.003 * rng.standard_normal(n)
        return x / np.sqrt(np.mean(x ** 2))
    if kind == "babble":
        voices = ["en-us", "en-gb", "en-us+f3", "en-gb-x-rp", "en-us+f4", "en-029"]
        total = np.zeros(n)
        for k, (voice, text) in enumerate(zip(voices, BABBLE)):
            u = utterance(voice, text, work)
            start = int(k * 0.37 * RATE) % len(u)
            total += np.resize(np.roll(u, -start), n)
        return total / np.sqrt(np.mean(total ** 2))
    if kind == "step":
        x = coloured(n, 1, rng)
        x[: n // 2] *= 10 ** (-10 / 20)  # 10 dB louder from halfway
        return x / np.sqrt(np.mean(x ** 2))
    raise ValueError(kind)


def active_power(x):
    frames = x[: len(x) // 960 * 960].reshape(-1, 960)
    p = np.mean(frames ** 2, axis=1)
    return np.mean(p[p > p.max() * 1e-4])


def mixture(clean, kind, snr, work, seed):
    rng = np.random.default_rng(seed)
    n = noise(kind, len(clean), rng, work)
    n *= np.sqrt(active_power(clean) / np.mean(n ** 2) / 10 ** (snr / 10))
    return clean + n, n


def align(y, reference, most=int(0.25 * RATE)):
    """y shifted so it lines up with reference (the lag of the cross-correlation's peak)."""
    m = min(len(y), len(reference), 6 * RATE)
    size = 1 << int(np.ceil(np.log2(2 * m)))
    c = np.fft.irfft(np.fft.rfft(y[:m], size) * np.conj(np.fft.rfft(reference[:m], size)), size)
    lags = np.concatenate([np.arange(0, most + 1), np.arange(-most, 0)])
    lag = lags[np.argmax(np.concatenate([c[: most + 1], c[size - most:]]))]
    if lag > 0:
        y = y[lag:]
    elif lag < 0:
        y = np.concatenate([np.zeros(-lag), y])
    out = np.zeros(len(reference))
    out[: min(len(y), len(reference))] = y[: len(reference)]
    return out


def process(name, mix_path, out_path, timbre, work, speex):
    mix = read(mix_path)
    if name == "input":
        return mix
    if name == "timbre":
        subprocess.run([timbre, "render", mix_path, "-o", out_path, "--preset", os.path.join(work, "timbre-clean.json"), "--quiet"], check=True)
        return read(out_path)
    if name in ("timbre-profile", "timbre-profile-fixed"):
        # The same chain, its denoiser starting from a profile learned from the lead-in (what
        # the profile-learning peers are given), still tracking.
        profile = out_path + ".profile.json"
        subprocess.run([timbre, "noise-profile", mix_path, "-o", profile, "--start", "0.05", "--end", "0.55"], check=True, capture_output=True)
        with open(os.path.join(work, "timbre-clean.json")) as f:
            doc = json.load(f)
        for node in doc["chain"]:
            if node["type"] == "denoise":
                node["profile"] = profile
                if name == "timbre-profile-fixed":
                    node["adaptive"] = False
        preset = out_path + ".preset.json"
        with open(preset, "w") as f:
            json.dump(doc, f)
        subprocess.run([timbre, "render", mix_path, "-o", out_path, "--preset", preset, "--quiet"], check=True)
        return read(out_path)
    if name.startswith("noisereduce"):
        import noisereduce
        if name.endswith("-stationary"):
            return noisereduce.reduce_noise(y=mix, sr=RATE, stationary=True, y_noise=mix[: int(0.5 * RATE)])
        return noisereduce.reduce_noise(y=mix, sr=RATE, stationary=False)
    if name.startswith("afftdn") or name == "anlmdn":
        # afftdn's noise floor at the top of its range (the mixtures' noise lies near it; at its
        # default, -50 dB, it takes almost nothing away) and 40 dB of reduction; the profile
        # variant learns the noise from the lead-in (its sample_noise command). anlmdn at
        # strength 1000 (its default, 0.00001, changes nothing measurable here).
        if name == "afftdn":
            af = "afftdn=nr=40:nf=-20:tn=1"
        elif name == "afftdn-profile":
            af = "asendcmd=c='0.05 afftdn sample_noise start; 0.55 afftdn sample_noise stop',afftdn=nr=40:nf=-20"
        else:
            af = "anlmdn=s=1000"
        subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", mix_path, "-af", af, "-c:a", "pcm_f32le", out_path], check=True)
        return read(out_path)
    if name == "speexdsp":
        raw = np.clip(np.round(mix * 32767), -32768, 32767).astype("<i2").tobytes()
        out = subprocess.run([speex, str(RATE)], input=raw, capture_output=True, check=True).stdout
        return np.frombuffer(out, "<i2") / 32768.0
    raise ValueError(name)


def seg_snr(clean, y):
    n = 320
    m = len(clean) // n * n
    c, e = clean[:m].reshape(-1, n), (clean[:m] - y[:m]).reshape(-1, n)
    s = 10 * np.log10(np.sum(c ** 2, 1) / np.maximum(np.sum(e ** 2, 1), 1e-20) + 1e-20)
    return float(np.mean(np.clip(s, -10, 35)))


def scores(clean16, y, mix, pauses):
    from pesq import pesq
    from pystoi import stoi
    y16 = resample_poly(y, 1, 3)[: len(clean16)]
    mix16 = resample_poly(mix, 1, 3)[: len(clean16)]
    # The pauses' edges (50 ms each side) left out: speech's own onsets and tails.
    inner = pauses & np.roll(pauses, 2400) & np.roll(pauses, -2400)
    residual = 10 * np.log10(np.mean(y[inner] ** 2) / np.mean(mix[inner] ** 2) + 1e-20)
    return {
        "pesq": float(pesq(16000, clean16, y16, "wb")),
        "stoi": float(stoi(clean16, y16, 16000)),
        "segsnr_gain": seg_snr(clean16, y16) - seg_snr(clean16, mix16),
        "pause_residual_db": float(residual),
    }


def run_one(task):
    kind, snr, name, work, timbre, speex = task
    mix_path = os.path.join(work, f"mix-{kind}-{snr}.wav")
    clean = read(os.path.join(work, "clean.wav"))
    pauses = np.load(os.path.join(work, "pauses.npy"))
    mix = read(mix_path)
    y = process(name, mix_path, os.path.join(work, f"out-{kind}-{snr}-{name}.wav"), timbre, work, speex)
    y = align(np.asarray(y, dtype=np.float64), mix)
    clean16 = resample_poly(clean, 1, 3)
    return kind, snr, name, scores(clean16, y, mix, pauses)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("timbre")
    ap.add_argument("work")
    ap.add_argument("--snr", default="0,5,10,20")
    ap.add_argument("--noise", default=",".join(NOISES))
    ap.add_argument("--processors", default=",".join(PROCESSORS))
    ap.add_argument("--preset", help="the chain Timbre runs (default: Presets/voice-cleanup.json beside this script)")
    ap.add_argument("--json")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    preset = a.preset or os.path.join(here, "..", "Presets", "voice-cleanup.json")
    with open(preset) as f:
        doc = json.load(f)
    with open(os.path.join(work, "timbre-clean.json"), "w") as f:
        json.dump(doc, f)
    speex = os.path.join(work, "speex_denoise")
    processors = a.processors.split(",")
    if "speexdsp" in processors:
        subprocess.run(["cc", "-O2", "-o", speex, os.path.join(here, "..", "Tests", "Fixtures", "speexdsp", "speex_denoise.c"), "-lspeexdsp"], check=True)
    clean, pauses = speech_track(work)
    write(os.path.join(work, "clean.wav"), clean)
    np.save(os.path.join(work, "pauses.npy"), pauses)
    snrs = [int(s) for s in a.snr.split(",")]
    kinds = a.noise.split(",")
    for kind in kinds:
        for snr in snrs:
            # Seeded by the noise's place in NOISES, so a subset makes the full table's mixtures.
            mix, _ = mixture(clean, kind, snr, work, seed=1000 + NOISES.index(kind))
            write(os.path.join(work, f"mix-{kind}-{snr}.wav"), mix)
    tasks = [(k, s, p, work, os.path.abspath(a.timbre), speex) for k in kinds for s in snrs for p in processors]
    results = {}
    with ProcessPoolExecutor(a.jobs) as pool:
        for kind, snr, name, sc in pool.map(run_one, tasks):
            results.setdefault(f"{kind}@{snr}", {})[name] = sc
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    for key, row in results.items():
        print(key)
        for name, sc in row.items():
            print(f"  {name:28s} PESQ {sc['pesq']:.2f}  STOI {sc['stoi']:.3f}  segSNR +{sc['segsnr_gain']:5.1f} dB  pauses {sc['pause_residual_db']:6.1f} dB")


if __name__ == "__main__":
    main()
