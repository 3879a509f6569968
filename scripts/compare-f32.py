#!/usr/bin/env python3
"""Compares two files of 32-bit floats (a debug and a release render of the same preset).

Passes when they have the same length and differ by at most 1e-6 (Float rounding of signals
within ±1). Prints the largest difference. Standard library only.
"""
import sys
from array import array

def load(path):
    a = array("f")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return a

a, b = load(sys.argv[1]), load(sys.argv[2])
if len(a) != len(b) or len(a) == 0:
    sys.exit(f"compare-f32: {len(a)} vs {len(b)} samples")
diff = max(abs(x - y) for x, y in zip(a, b))
print(f"debug vs release: {len(a)} samples, largest difference {diff:.3g}{' (bit-identical)' if a == b else ''}")
if not diff <= 1e-6:
    sys.exit("compare-f32: debug and release renders differ by more than 1e-6")
