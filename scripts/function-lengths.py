#!/usr/bin/env python3
"""Lists the functions in Swift files longer than a limit (lines from `func`/`init` to its
closing brace). Usage: function-lengths.py LIMIT FILE... ; exits 1 if any is longer."""
import re, sys
limit = int(sys.argv[1]); bad = 0
DECL = re.compile(r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|private|fileprivate|internal|static|final|override|mutating|convenience|required|nonisolated)\s+)*(func\s+\w+|init[?!]?\s*\(|var\s+\w+\s*:\s*[^=]*\{\s*$)')
for path in sys.argv[2:]:
    lines = open(path, encoding='utf-8').read().split('\n')
    i = 0
    while i < len(lines):
        m = DECL.match(lines[i])
        if m and '{' in ''.join(lines[i:i+8]):
            depth = 0; started = False; j = i
            while j < len(lines):
                code = re.sub(r'"(?:\\.|[^"\\])*"', '""', lines[j]).split('//')[0]
                for ch in code:
                    if ch == '{': depth += 1; started = True
                    elif ch == '}': depth -= 1
                if started and depth == 0: break
                j += 1
            n = j - i + 1
            if n > limit:
                print(f"{path}:{i+1}: {m.group(1).strip()} is {n} lines"); bad += 1
            i = j + 1 if started else i + 1
        else:
            i += 1
sys.exit(1 if bad else 0)
