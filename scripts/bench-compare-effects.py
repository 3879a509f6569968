#!/usr/bin/env python3
"""Timbre's effect nodes beside pedalboard, sox, ffmpeg and LV2 plugins, same material, same
run (issue #38): the `delay`, `distortion` and `reverb` nodes, and the modulation effects, bit
crusher and ladder beside their nearest peers.

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

Distortion: aliasing — a 5 kHz sine (−6 dBFS) driven +24 dB at 48 kHz; every component off
the harmonics falls on a whole kHz (gcd(5,000, 48,000) = 1,000), so the spectrum of the
second second (rfft of 48,000 samples, 1 Hz bins, no window needed: everything is periodic in
it) reads each alias exactly; the figure is the strongest non-harmonic component relative to
the fundamental. Timbre `distortion` (soft = tanh, at its default 8× oversampling, and at 1×);
pedalboard `Distortion(drive_db=24)` (tanh, not oversampled); sox `overdrive 24`; Calf
Saturator through Timbre's LV2 host (input gain +24 dB, its default saturation). Cost as for
the delay (60 s of stereo noise at −18 dBFS, CPU time less the empty command).

Reverb: each one's impulse response (a unit impulse, stereo, wet only where the tool allows,
12 s), measured as `ReverbNodeTests` measures Timbre's: T60 by Schroeder's backward integration
(T30 fit from −5 to −35 dB) in the 500 Hz, 1 kHz and 2 kHz octaves; ringing as the largest
peak of the Welch-averaged tail spectrum (2,048-point Hann, 0.1…1.1 s) over its third-octave
smoothing. Set to 2 s where the tool has a decay time (Timbre: decay 2 with both multipliers
1; Dragonfly Hall: decay 2, late level only, both multipliers 1, its cuts opened; Calf Reverb:
decay_time 2, its damping and cuts opened); pedalboard's `Reverb`
(room_size 0.8) and sox `reverb 80` have none: their T60 is what they give. Cost as above.

Modulation, bit crushing, the ladder: cost only (their accuracy is in the node tests: LFO
frequency, phaser and ladder responses, click-free sweeps), each tool at the closest settings it
has — chorus 3 voices around 15 ms (sox: 22–28 ms, it refuses under 20); flanger 2.5 ms ± 2 ms at 0.25 Hz with 50 % feedback; phaser
6 stages (pedalboard's JUCE phaser has 6, fixed); tremolo 5 Hz at 50 %; 8-bit crushing; a 24 dB
ladder low-pass at 1 kHz. Cost as for the delay.

Usage: bench-compare-effects.py path/to/timbre [delay|distortion|reverb|modulation …] (default: all)
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


def make_noise():
    source = os.path.join(work, "noise.wav")
    run(["sox", "-n", "-r", str(RATE), "-c", "2", "-e", "floating-point", "-b", "32", source, "synth", str(SECONDS), "pinknoise", "gain", "-18"])


def delay():
    source = os.path.join(work, "noise.wav")
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


def spectrum_alias_db(y):
    """The strongest non-harmonic component of 5 kHz over the fundamental, dB, from the second second."""
    seg = np.asarray(y[RATE:2 * RATE], dtype=float)
    mag = np.abs(np.fft.rfft(seg))
    fundamental = mag[5000]
    off = [mag[k] for k in range(1000, 24000, 1000) if k % 5000 != 0]
    return 20 * np.log10(max(off) / fundamental)


def read_f32(path):
    raw = subprocess.run(["ffmpeg", "-loglevel", "error", "-i", path, "-f", "f32le", "-ac", "1", "-"], check=True, capture_output=True).stdout
    return np.frombuffer(raw, dtype=np.float32)


def distortion():
    sine = os.path.join(work, "sine5k.wav")
    x = (0.5 * np.sin(2 * np.pi * 5000 * np.arange(3 * RATE) / RATE)).astype(np.float32)
    with open(os.path.join(work, "sine.f32"), "wb") as f:
        f.write(np.repeat(x, 2).tobytes())  # stereo, both sides the same (Calf's saturator is stereo)
    run(["sox", "-t", "f32", "-r", str(RATE), "-c", "2", os.path.join(work, "sine.f32"), "-e", "floating-point", "-b", "32", sine])
    noise = os.path.join(work, "noise.wav")
    out = os.path.join(work, "dist.wav")
    flat = preset("flat", [])
    timbre_empty = timed([TIMBRE, "render", noise, "-o", out, "--preset", flat, "--quiet"])
    rows = []

    def timbre_row(name, node):
        p = preset(name, [node])
        run([TIMBRE, "render", sine, "-o", out, "--preset", p, "--quiet", "--encoding", "float"])
        y = read_f32(out)
        alias = spectrum_alias_db(y)
        cost = ns_per_frame(timed([TIMBRE, "render", noise, "-o", out, "--preset", p, "--quiet"]) - timbre_empty)
        rows.append((name, alias, cost))

    timbre_row("Timbre distortion soft, 8× (default)", {"type": "distortion", "drive": 24})
    timbre_row("Timbre distortion soft, 16×", {"type": "distortion", "drive": 24, "oversampling": 16})
    timbre_row("Timbre distortion soft, 1× (no oversampling)", {"type": "distortion", "drive": 24, "oversampling": 1})
    timbre_row("Calf Saturator (LV2, +24 dB in)", {"type": "plugin", "uri": "http://calf.sourceforge.net/plugins/Saturator", "controls": {"level_in": 15.85}})

    import pedalboard
    d = pedalboard.Distortion(drive_db=24)
    y = d.process(x[None, :], RATE)[0]
    xs = np.random.default_rng(1).standard_normal((2, SECONDS * RATE)).astype(np.float32) * 0.125
    times = []
    for _ in range(RUNS):
        d = pedalboard.Distortion(drive_db=24)
        start = time.process_time()
        d.process(xs, RATE, buffer_size=512)
        times.append(time.process_time() - start)
    rows.append(("pedalboard Distortion(drive_db=24)", spectrum_alias_db(y), ns_per_frame(statistics.median(times))))

    run(["sox", sine, "-e", "floating-point", "-b", "32", out, "overdrive", "24"])
    sox_alias = spectrum_alias_db(read_f32(out))  # before the cost runs write `out` again
    sox_empty = timed(["sox", noise, out, "vol", "1"])
    rows.append(("sox overdrive 24", sox_alias, ns_per_frame(timed(["sox", noise, out, "overdrive", "24"]) - sox_empty)))

    print("Distortion: strongest alias of a 5 kHz sine at +24 dB drive (dB re the fundamental), and cost (ns per stereo frame):")
    for name, alias, cost in rows:
        print("  %-46s %7.1f dB %8.1f ns" % (name, alias, cost))


def t60(h, hz):
    from scipy.signal import butter, sosfilt
    sos = butter(2, [hz / np.sqrt(2), hz * np.sqrt(2)], btype="bandpass", fs=RATE, output="sos")
    y = sosfilt(sos, h)
    edc = np.cumsum((y ** 2)[::-1])[::-1]
    db = 10 * np.log10(np.maximum(edc, 1e-300) / edc[0])
    start, end = np.argmax(db <= -5), np.argmax(db <= -35)
    if end <= start:
        return float("nan")
    t = np.arange(start, end + 1) / RATE
    slope = np.polyfit(t, db[start:end + 1], 1)[0]
    return -60 / slope


def ringing(h):
    n = 2048
    tail = h[int(0.1 * RATE):int(1.1 * RATE)]
    segs = [tail[k:k + n] * np.hanning(n) for k in range(0, len(tail) - n, n // 2)]
    power = np.mean([np.abs(np.fft.rfft(seg)) ** 2 for seg in segs], axis=0)
    worst = -np.inf
    for k in range(4, n // 2 - 4):
        lo, hi = max(1, int(k / 1.122)), min(n // 2 - 1, int(k * 1.122) + 1)
        worst = max(worst, 10 * np.log10(power[k] / np.mean(power[lo:hi + 1])))
    return worst


def reverb():
    imp = os.path.join(work, "impulse.wav")
    x = np.zeros((12 * RATE, 2), dtype=np.float32)
    x[0, :] = 0.5
    with open(os.path.join(work, "impulse.f32"), "wb") as f:
        f.write(x.tobytes())
    run(["sox", "-t", "f32", "-r", str(RATE), "-c", "2", os.path.join(work, "impulse.f32"), "-e", "floating-point", "-b", "32", imp])
    noise = os.path.join(work, "noise.wav")
    out = os.path.join(work, "verb.wav")
    flat = preset("flat", [])
    timbre_empty = timed([TIMBRE, "render", noise, "-o", out, "--preset", flat, "--quiet"])
    rows = []

    def left(path):
        raw = subprocess.run(["ffmpeg", "-loglevel", "error", "-i", path, "-f", "f32le", "-"], check=True, capture_output=True).stdout
        return np.frombuffer(raw, dtype=np.float32).reshape(-1, 2)[:, 0].astype(float)

    def row(name, set_t60, h, cost):
        rows.append((name, set_t60, [t60(h, f) for f in (500, 1000, 2000)], ringing(h), cost))

    def timbre_reverb(name, node, set_t60):
        p = preset(name.replace(" ", "-"), [node])
        run([TIMBRE, "render", imp, "-o", out, "--preset", p, "--quiet", "--encoding", "float"])
        h = left(out)
        row(name, set_t60, h, ns_per_frame(timed([TIMBRE, "render", noise, "-o", out, "--preset", p, "--quiet"]) - timbre_empty))

    timbre_reverb("Timbre reverb (decay 2 s)", {"type": "reverb", "decay": 2, "lowMultiplier": 1, "highMultiplier": 1, "early": -60, "predelay": 0, "mix": 100}, 2.0)
    timbre_reverb("Dragonfly Hall (LV2, decay 2 s)", {"type": "plugin", "uri": "https://github.com/michaelwillis/dragonfly-reverb",
                   "controls": {"decay": 2, "dry_level": 0, "early_level": 0, "late_level": 100, "delay": 0, "low_mult": 1, "high_mult": 1,
                                "low_cut": 0, "high_cut": 16000}}, 2.0)
    timbre_reverb("Calf Reverb (LV2, decay_time 2 s)", {"type": "plugin", "uri": "http://calf.sourceforge.net/plugins/Reverb",
                   "controls": {"decay_time": 2, "hf_damp": 20000, "bass_cut": 20, "treble_cut": 20000, "dry": 0, "amount": 1}}, 2.0)

    import pedalboard
    xs = np.random.default_rng(1).standard_normal((2, SECONDS * RATE)).astype(np.float32) * 0.125
    r = pedalboard.Reverb(room_size=0.8, wet_level=1.0, dry_level=0.0)
    h = r.process(x.T.copy(), RATE)[0].astype(float)
    times = []
    for _ in range(RUNS):
        r = pedalboard.Reverb(room_size=0.8, wet_level=1.0, dry_level=0.0)
        start = time.process_time()
        r.process(xs, RATE, buffer_size=512)
        times.append(time.process_time() - start)
    row("pedalboard Reverb (room_size 0.8)", None, h, ns_per_frame(statistics.median(times)))

    run(["sox", imp, "-e", "floating-point", "-b", "32", out, "reverb", "-w", "80"])
    h = left(out)
    sox_empty = timed(["sox", noise, out, "vol", "1"])
    row("sox reverb -w 80", None, h, ns_per_frame(timed(["sox", noise, out, "reverb", "-w", "80"]) - sox_empty))

    print("Reverb: T60 in the 500 Hz / 1 kHz / 2 kHz octaves (set where the tool has one), ringing, cost (ns per stereo frame):")
    for name, set_t60, t, ring, cost in rows:
        target = "set %.1f s" % set_t60 if set_t60 else "no setting"
        print("  %-36s %-10s %5.2f / %5.2f / %5.2f s   ringing %5.1f dB   %7.1f ns" % (name, target, t[0], t[1], t[2], ring, cost))


class Costs:
    """ns per stereo frame of each tool on the same 60 s of noise, less each tool's empty command."""

    def __init__(self):
        self.noise = os.path.join(work, "noise.wav")
        self.out = os.path.join(work, "modulation.wav")
        self.timbre_empty = timed([TIMBRE, "render", self.noise, "-o", self.out, "--preset", preset("flat", []), "--quiet"])
        self.sox_empty = timed(["sox", self.noise, self.out, "vol", "1"])
        self.ffmpeg_empty = timed(self.ffmpeg_argv("anull"))
        import pedalboard
        self.pedalboard = pedalboard
        self.samples = np.random.default_rng(1).standard_normal((2, SECONDS * RATE)).astype(np.float32) * 0.125

    def ffmpeg_argv(self, graph):
        return ["ffmpeg", "-y", "-loglevel", "error", "-i", self.noise, "-af", graph, "-c:a", "pcm_f32le", self.out]

    def timbre(self, node):
        path = preset("cost-" + node.get("type", "node"), [node])
        return ns_per_frame(timed([TIMBRE, "render", self.noise, "-o", self.out, "--preset", path, "--quiet"]) - self.timbre_empty)

    def sox(self, effect):
        return ns_per_frame(timed(["sox", self.noise, self.out] + effect) - self.sox_empty)

    def ffmpeg(self, graph):
        return ns_per_frame(timed(self.ffmpeg_argv(graph)) - self.ffmpeg_empty)

    def in_process(self, make):
        """A pedalboard plugin made by `make`, its `process` timed on the array in memory."""
        times = []
        for _ in range(RUNS):
            plugin = make(self.pedalboard)
            start = time.process_time()
            plugin.process(self.samples, RATE, buffer_size=512)
            times.append(time.process_time() - start)
        return ns_per_frame(statistics.median(times))


CALF = "http://calf.sourceforge.net/plugins/"


def modulation():
    c = Costs()
    groups = [
        ("chorus", [
            ("Timbre chorus (3 voices)", lambda: c.timbre({"type": "chorus", "voices": 3})),
            ("Timbre chorus (1 voice)", lambda: c.timbre({"type": "chorus", "voices": 1})),
            ("pedalboard Chorus (1 voice)", lambda: c.in_process(lambda pb: pb.Chorus(rate_hz=0.8, depth=0.25, centre_delay_ms=15, mix=0.5))),
            ("sox chorus (3 voices, 22–28 ms: its least is 20)", lambda: c.sox(["chorus", "0.7", "0.9", "25", "0.4", "0.8", "3", "-s", "28", "0.4", "0.9", "3", "-t", "22", "0.4", "0.7", "3", "-s"])),
            ("ffmpeg chorus (3 voices)", lambda: c.ffmpeg("chorus=0.7:0.9:15|18|12:0.4|0.4|0.4:0.8|0.9|0.7:3|3|3")),
            ("Calf Multi Chorus (LV2, 3 voices)", lambda: c.timbre({"type": "plugin", "uri": CALF + "MultiChorus", "controls": {"voices": 3}})),
        ]),
        ("flanger", [
            ("Timbre flanger", lambda: c.timbre({"type": "flanger"})),
            ("sox flanger", lambda: c.sox(["flanger", "0.5", "2", "50", "71", "0.25", "triangle"])),
            ("ffmpeg flanger", lambda: c.ffmpeg("flanger=delay=0.5:depth=2:regen=50:speed=0.25:shape=triangular")),
            ("Calf Flanger (LV2)", lambda: c.timbre({"type": "plugin", "uri": CALF + "Flanger", "controls": {"feedback": 0.5, "mod_rate": 0.25}})),
        ]),
        ("phaser", [
            ("Timbre phaser (6 stages)", lambda: c.timbre({"type": "phaser", "stages": 6})),
            ("pedalboard Phaser (6 stages)", lambda: c.in_process(lambda pb: pb.Phaser(rate_hz=0.5, depth=0.5, centre_frequency_hz=800, feedback=0, mix=0.5))),
            ("sox phaser", lambda: c.sox(["phaser", "0.8", "0.74", "3", "0.4", "0.5", "-s"])),
            ("ffmpeg aphaser", lambda: c.ffmpeg("aphaser=speed=0.5")),
            ("Calf Phaser (LV2, 6 stages)", lambda: c.timbre({"type": "plugin", "uri": CALF + "Phaser", "controls": {"stages": 6, "mod_rate": 0.5}})),
        ]),
        ("tremolo", [
            ("Timbre tremolo (5 Hz, 50 %)", lambda: c.timbre({"type": "tremolo"})),
            ("sox tremolo 5 50", lambda: c.sox(["tremolo", "5", "50"])),
            ("ffmpeg tremolo (5 Hz, 0.5)", lambda: c.ffmpeg("tremolo=f=5:d=0.5")),
            ("Calf Pulsator (LV2)", lambda: c.timbre({"type": "plugin", "uri": CALF + "Pulsator", "controls": {"timing": 2, "hz": 5, "amount": 0.5}})),
        ]),
        ("bit crushing", [
            ("Timbre bitcrush (8 bits)", lambda: c.timbre({"type": "bitcrush", "bits": 8})),
            ("pedalboard Bitcrush(8)", lambda: c.in_process(lambda pb: pb.Bitcrush(bit_depth=8))),
            ("ffmpeg acrusher (8 bits)", lambda: c.ffmpeg("acrusher=bits=8:mode=lin:aa=0")),
            ("Calf Crusher (LV2, 8 bits)", lambda: c.timbre({"type": "plugin", "uri": CALF + "Crusher", "controls": {"bits": 8}})),
        ]),
        ("ladder", [
            ("Timbre ladder (low-pass 24 dB, 1 kHz)", lambda: c.timbre({"type": "ladder", "cutoff": 1000, "resonance": 0.3})),
            ("pedalboard LadderFilter (LPF24, 1 kHz)", lambda: c.in_process(lambda pb: pb.LadderFilter(mode=pb.LadderFilter.Mode.LPF24, cutoff_hz=1000, resonance=0.3))),
        ]),
    ]
    print("Modulation, crushing, ladder: cost in ns per stereo frame (60 s of stereo 48 kHz float, medians of %d):" % RUNS)
    for title, rows in groups:
        print("  " + title)
        for name, cost in rows:
            try:
                print("    %-44s %7.1f" % (name, cost()))
            except (subprocess.CalledProcessError, AttributeError) as error:
                print("    %-44s  failed: %s" % (name, error))


if __name__ == "__main__":
    sections = {"delay": delay, "distortion": distortion, "reverb": reverb, "modulation": modulation}
    make_noise()
    for name in sys.argv[2:] or list(sections):
        sections[name]()
