#!/usr/bin/env python3
"""tools/function_lengths.py -- the longest functions of the code (the project's rule: none over
120 lines in core/, bindings_r/, bindings_octave/, R/). C/C++: from a definition line
at column 0 (or DEFUN_DLD) to its matching brace, comments and strings left out;
R: `name <- function(` to its matching brace; Octave: function .. endfunction.

  python3 tools/function_lengths.py [folder ...]     (from the repository root)

Prints the 12 longest and the count over 120 lines; not part of make check."""
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

roots = sys.argv[1:] or ['core', 'bindings_r', 'bindings_octave', 'R']
allf = []
for r in roots:
    for dp, _, fs in os.walk(r):
        if '/obj' in dp: continue
        for f in fs:
            p = os.path.join(dp, f)
            if f.endswith(('.c', '.h', '.cc', '.cu')): allf += [(n, p, nm, ln) for n, nm, ln in c_funcs(p)]
            elif f.endswith('.R'): allf += [(n, p, nm, ln) for n, nm, ln in r_funcs(p)]
            elif f.endswith('.m'): allf += [(n, p, nm, ln) for n, nm, ln in m_funcs(p)]
allf.sort(reverse=True)
for n, p, nm, ln in allf[:12]:
    print(f"{n:5d}  {p}:{ln}  {nm}")
print("functions:", len(allf), " over 120 lines:", sum(1 for a in allf if a[0] > 120))
