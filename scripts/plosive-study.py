#!/usr/bin/env python3
"""Does a de-plosive (a dynamic low cut for popped "p" and "b") help the voice clean-up scores?

usage: plosive-study.py TIMBRE_BIN OUT_DIR

The speech track of `voice-cleanup-scores.py` (espeak-ng voices and the ALSA prompts, 48 kHz)
with pink room noise 30 dB under it and, at every word that starts after 150 ms of silence, a
pop: a breath blast into the microphone, modelled as white noise low-passed at 120 Hz
(12 dB/octave) under a 5 ms rise and a 30 ms decay, 120 ms long, its first 50 ms at 0, +6 or
+12 dB over the word's first 200 ms (and a run with no pops). Scored against the speech alone
(wideband PESQ / STOI) as `voice-cleanup-scores.py` scores, through Timbre's own nodes:
`Presets/voice-cleanup.json` (`dehum`, `denoise`), then `deplosive` (300 Hz, rise 12 dB, its
default, and rise 6 dB); the same with podcast-clean's static 80 Hz 24 dB/octave high-pass in
front. The table it prints is in docs/ACCURACY.md.
"""
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
from scipy.signal import butter, resample_poly, sosfilt

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("vcs", os.path.join(here, "voice-cleanup-scores.py"))
vcs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vcs)
RATE = vcs.RATE


def onsets(clean):
    """Starts of words after at least 150 ms of silence (10 ms frames within 40 dB of the loudest)."""
    e = np.array([np.mean(clean[i:i + 480] ** 2) for i in range(0, len(clean) - 480, 480)])
    on = e > e.max() * 1e-4
    return [i * 480 for i in range(15, len(on)) if on[i] and not on[i - 15:i].any()]


def pops(clean, level_db, rng):
    x = np.zeros_like(clean)
    lp = butter(2, 120, "lowpass", fs=RATE, output="sos")
    n = int(0.12 * RATE)
    t = np.arange(n) / RATE
    envelope = np.minimum(t / 0.005, 1) * np.exp(-np.maximum(t - 0.005, 0) / 0.03)
    for o in onsets(clean):
        burst = sosfilt(lp, rng.standard_normal(n)) * envelope
        word = np.sqrt(np.mean(clean[o:o + int(0.2 * RATE)] ** 2))
        burst *= word * 10 ** (level_db / 20) / np.sqrt(np.mean(burst[: int(0.05 * RATE)] ** 2))
        x[o:o + n] += burst[: len(x) - o]
    return x


def main():
    timbre, work = sys.argv[1], os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    clean, pauses = vcs.speech_track(work)
    rng = np.random.default_rng(5)
    room = vcs.coloured(len(clean), 1, rng)
    room *= np.sqrt(vcs.active_power(clean) / np.mean(room ** 2) / 10 ** (30 / 10))
    chains = {
        "clean-up": [{"type": "dehum"}, {"type": "denoise"}],
        "clean-up + deplosive": [{"type": "dehum"}, {"type": "denoise"}, {"type": "deplosive"}],
        "clean-up + deplosive rise 6 dB": [{"type": "dehum"}, {"type": "denoise"}, {"type": "deplosive", "rise": 6}],
        "80 Hz high-pass + clean-up": [{"type": "highpass", "frequency": 80, "slope": 24}, {"type": "dehum"}, {"type": "denoise"}],
        "80 Hz high-pass + clean-up + deplosive": [{"type": "highpass", "frequency": 80, "slope": 24}, {"type": "dehum"}, {"type": "denoise"}, {"type": "deplosive"}],
    }
    for k, (name, chain) in enumerate(chains.items()):
        with open(os.path.join(work, f"chain{k}.json"), "w") as f:
            json.dump({"version": 1, "name": name, "chain": chain}, f)
    clean16 = resample_poly(clean, 1, 3)

    def render(x, preset, tag):
        a, b = os.path.join(work, f"in-{tag}.wav"), os.path.join(work, f"out-{tag}.wav")
        vcs.write(a, x)
        subprocess.run([timbre, "render", a, "-o", b, "--preset", preset, "--quiet"], check=True)
        return vcs.align(vcs.read(b), x)

    columns = ["input"] + list(chains)
    print("| pops | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for level in [None, 0, 6, 12]:
        mix = clean + room + (pops(clean, level, np.random.default_rng(100 + (level or 0))) if level is not None else 0)
        tag = "none" if level is None else str(level)
        outputs = [mix] + [render(mix, os.path.join(work, f"chain{k}.json"), f"{tag}-{k}") for k in range(len(chains))]
        cells = []
        for y in outputs:
            s = vcs.scores(clean16, y, mix, pauses)
            cells.append(f"{s['pesq']:.2f} / {s['stoi']:.3f}")
        print(f"| {'none' if level is None else f'{level:+d} dB'} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
