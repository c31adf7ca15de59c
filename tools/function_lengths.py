#!/usr/bin/env python3
"""tools/function_lengths.py -- the size limits of the code: no function over 120
lines, no .c file over 800 lines and no header over 400 (small files, one purpose;
ARCHITECTURE.md). C/C++: a function runs from a definition line at column 0 (or
DEFUN_DLD) to its matching brace, comments and strings left out; R: `name <-
function(` to its matching brace; Octave: function .. endfunction. File limits
apply to C sources (.c, .cc, .cu) and headers (.h, .cuh).

  python3 tools/function_lengths.py [folder ...]     (from the repository root;
      default: core cuda bindings_r bindings_octave R)

Prints the 12 longest functions and every function or file over its limit, and
exits with status 1 when there is one (make check-core runs it on core/ and cuda/)."""
import os, re, sys

def strip_c(line, state):
    out = []; i = 0
    while i < len(line):
        if state['block']:
            j = line.find('*/', i)
            if j < 0: return ''.join(out)
            state['block'] = False; i = j + 2; continue
        c = line[i]
        if line.startswith('/*', i): state['block'] = True; i += 2; continue
        if line.startswith('//', i): break
        if c in '"\'':
            q = c; i += 1
            while i < len(line) and line[i] != q:
                i += 2 if line[i] == '\\' else 1
            i += 1; continue
        out.append(c); i += 1
    return ''.join(out)

def c_funcs(path):
    lines = open(path, errors='replace').read().split('\n')
    res = []; state = {'block': False}; depth = 0; start = None; name = None
    pending = None
    for k, raw in enumerate(lines):
        s = strip_c(raw, state)
        if depth == 0:
            m = re.match(r'^[A-Za-z_][\w\s\*:<>,&]*?\b([A-Za-z_]\w*)\s*\(', s)
            if m and not s.startswith(('if', 'for', 'while', 'return', 'typedef', 'struct', '#')) and ';' not in s.split(')')[-1]:
                pending = (k, m.group(1))
            elif re.match(r'^DEFUN_DLD\s*\((\w+)', s):
                pending = (k, re.match(r'^DEFUN_DLD\s*\((\w+)', s).group(1))
        for ch in s:
            if ch == '{':
                if depth == 0 and pending: start, name = pending; pending = None
                elif depth == 0: start, name = None, None
                depth += 1
            elif ch == '}':
                depth -= 1
                if depth == 0 and start is not None:
                    res.append((k - start + 1, name, start + 1)); start = None
        if depth == 0 and s.strip().endswith(';'): pending = None
    return res

def r_funcs(path):
    lines = open(path, errors='replace').read().split('\n')
    res = []
    for k, l in enumerate(lines):
        m = re.match(r'^\s*([\w.]+|`[^`]+`)\s*<-\s*function\s*\(', l)
        if not m: continue
        depth = 0; seen = False
        for j in range(k, len(lines)):
            s = re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'|#.*$', '', lines[j])
            for ch in s:
                if ch == '{': depth += 1; seen = True
                elif ch == '}': depth -= 1
            if seen and depth == 0:
                res.append((j - k + 1, m.group(1), k + 1)); break
            if not seen and j > k and not s.strip().endswith((',', '(')) and '{' not in s and j - k > 20:
                break
    return res

def m_funcs(path):
    lines = open(path, errors='replace').read().split('\n')
    res = []; stack = []
    for k, l in enumerate(lines):
        s = l.strip()
        if re.match(r'^function\b', s):
            name = re.sub(r'^function\s+(\[?[^=]*\]?\s*=\s*)?', '', s).split('(')[0].strip()
            stack.append((k, name))
        elif s == 'endfunction' and stack:
            st, name = stack.pop(); res.append((k - st + 1, name, st + 1))
    return res

MAX_FUNC, MAX_C, MAX_H = 120, 800, 400
roots = sys.argv[1:] or ['core', 'cuda', 'bindings_r', 'bindings_octave', 'R']
allf = []; over_files = []
for r in roots:
    for dp, _, fs in os.walk(r):
        if '/obj' in dp or '/bin' in dp: continue
        for f in sorted(fs):
            p = os.path.join(dp, f)
            if f.endswith(('.c', '.h', '.cc', '.cu', '.cuh')):
                allf += [(n, p, nm, ln) for n, nm, ln in c_funcs(p)]
                limit = MAX_H if f.endswith(('.h', '.cuh')) else MAX_C
                lines = len(open(p, errors='replace').read().splitlines())
                if lines > limit: over_files.append((lines, p, limit))
            elif f.endswith('.R'): allf += [(n, p, nm, ln) for n, nm, ln in r_funcs(p)]
            elif f.endswith('.m'): allf += [(n, p, nm, ln) for n, nm, ln in m_funcs(p)]
allf.sort(reverse=True)
for n, p, nm, ln in allf[:12]:
    print(f"{n:5d}  {p}:{ln}  {nm}")
over_funcs = [a for a in allf if a[0] > MAX_FUNC]
print("functions:", len(allf), f" over {MAX_FUNC} lines:", len(over_funcs))
for n, p, nm, ln in over_funcs:
    print(f"function over {MAX_FUNC} lines: {p}:{ln} {nm} ({n})")
for n, p, limit in sorted(over_files, reverse=True):
    print(f"file over {limit} lines: {p} ({n})")
print("files over their limit (.c 800, .h 400):", len(over_files))
sys.exit(1 if over_funcs or over_files else 0)
