#!/usr/bin/env python3
"""How the loudness compensation's five section shapes were chosen (LoudnessCompensationDesign):
one joint least-squares fit over references 60, 70, 80 and 90 phon and listening levels 20 phon
upwards in 10-phon steps, of shared frequencies and Qs (a low shelf, three bells, a high shelf;
RBJ cookbook biquads at 48 kHz) and per-case gains, to the ISO 226:2003 contour difference
Lp(ref + v) − Lp(ref) − v at the standard's 29 frequencies (weight 1), its 12.5 kHz value held at
14–20 kHz and its 20 Hz value at 5–15 Hz (weight 0.5). Prints the shapes and each case's worst
error. The design then solves only the gains, per level, at the plan's sample rate.
Usage: loudness-compensation-shapes.py   (needs numpy, scipy and mosqito)
"""
import numpy as np
from scipy.optimize import least_squares
from mosqito import equal_loudness_contours

FS = 48000.0
freqs = equal_loudness_contours(80)[1]
grid = np.concatenate([freqs, [14000, 16000, 18000, 20000], [5, 10, 15]])
weights = np.concatenate([np.ones(29), 0.5 * np.ones(4), 0.5 * np.ones(3)])
KINDS = "lppph"
START = [(120, 0.4), (20, 1.0), (100, 0.3), (3000, 0.6), (10000, 1.0)]


def boost(ref, level):
    return equal_loudness_contours(level)[0] - equal_loudness_contours(ref)[0] - (level - ref)


def biquad_db(kind, f0, gain, q, f):
    z = np.exp(-1j * 2 * np.pi * f / FS)
    a_ = 10 ** (gain / 40); w0 = 2 * np.pi * f0 / FS; al = np.sin(w0) / (2 * q); c = np.cos(w0); k = 2 * np.sqrt(a_) * al
    if kind == "p":
        b, a = [1 + al * a_, -2 * c, 1 - al * a_], [1 + al / a_, -2 * c, 1 - al / a_]
    elif kind == "l":
        b = [a_ * ((a_ + 1) - (a_ - 1) * c + k), 2 * a_ * ((a_ - 1) - (a_ + 1) * c), a_ * ((a_ + 1) - (a_ - 1) * c - k)]
        a = [(a_ + 1) + (a_ - 1) * c + k, -2 * ((a_ - 1) + (a_ + 1) * c), (a_ + 1) + (a_ - 1) * c - k]
    else:
        b = [a_ * ((a_ + 1) + (a_ - 1) * c + k), -2 * a_ * ((a_ - 1) + (a_ + 1) * c), a_ * ((a_ + 1) + (a_ - 1) * c - k)]
        a = [(a_ + 1) - (a_ - 1) * c + k, 2 * ((a_ - 1) - (a_ + 1) * c), (a_ + 1) - (a_ - 1) * c - k]
    return 20 * np.log10(np.abs((b[0] + b[1] * z + b[2] * z * z) / (a[0] + a[1] * z + a[2] * z * z)))


cases = [(r, level) for r in (60, 70, 80, 90) for level in range(20, r, 10)]
targets = []
for r, level in cases:
    t = boost(r, level)
    targets.append(np.concatenate([t, [t[-1]] * 4, [t[0]] * 3]))
K = len(KINDS)


def unpack(p):
    return [(np.exp(p[2 * i]), np.exp(p[2 * i + 1])) for i in range(K)], p[2 * K:].reshape(len(cases), K)


def residuals(p):
    shapes, gains = unpack(p)
    return np.concatenate([weights * (sum(biquad_db(kd, shapes[i][0], g[i], shapes[i][1], grid) for i, kd in enumerate(KINDS)) - t)
                           for g, t in zip(gains, targets)])


p0 = np.concatenate([np.log(np.array(START)).ravel(), np.ones(len(cases) * K)])
low = np.concatenate([np.log([[15, 0.2]] * K).ravel(), -60 * np.ones(len(cases) * K)])
high = np.concatenate([np.log([[20000, 5]] * K).ravel(), 80 * np.ones(len(cases) * K)])
fit = least_squares(residuals, p0, bounds=(low, high))
shapes, gains = unpack(fit.x)
print("shapes (kind, Hz, Q):", [(kd, round(f, 1), round(q, 3)) for kd, (f, q) in zip(KINDS, shapes)])
for (r, level), res in zip(cases, residuals(fit.x).reshape(len(cases), -1)):
    print(f"reference {r} phon, level {level} phon: worst {np.abs(res[:29]).max():.2f} dB at the ISO frequencies")
