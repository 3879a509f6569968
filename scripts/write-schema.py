#!/usr/bin/env python3
"""`make schema`: writes the node kinds' ranges and defaults from the catalog into
Presets/timbre-preset.schema.json. `timbre presets schema` (PresetSchemaNumbers in
TimbreEngine) does the writing; this script only keeps the file's own key order and layout
(two-space indentation) so a change shows as the numbers that changed, and replaces the file
atomically.

Usage: write-schema.py TIMBRE_BINARY [SCHEMA]
"""
import json, os, subprocess, sys, tempfile

binary = sys.argv[1]
path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "Presets", "timbre-preset.schema.json")
with open(path, encoding="utf-8") as f:
    template = json.load(f)
fresh = json.loads(subprocess.run([binary, "presets", "schema", path], check=True, capture_output=True, text=True).stdout)

def ordered(new, old):
    """`new` with its keys in `old`'s order (keys only in `new` at the end), recursively."""
    if isinstance(new, dict):
        old = old if isinstance(old, dict) else {}
        keys = [k for k in old if k in new] + [k for k in new if k not in old]
        return {k: ordered(new[k], old.get(k)) for k in keys}
    if isinstance(new, list):
        old = old if isinstance(old, list) else []
        return [ordered(v, old[i] if i < len(old) else None) for i, v in enumerate(new)]
    return new

text = json.dumps(ordered(fresh, template), indent=2, ensure_ascii=False) + "\n"
fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".schema.", suffix=".tmp")
with os.fdopen(fd, "w", encoding="utf-8") as f:
    f.write(text)
os.replace(tmp, path)
print(f"{path}: written from the catalog")
