## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{v} =} option_value (@var{fname}, @var{pairs}, @var{name})
## Private: the value of option @var{name} in the name/value cell @var{pairs},
## else the core's default for @var{fname} (from its option table, or the
## context's: backend, seed, verbose, threads).
## @end deftypefn

function v = option_value (fname, pairs, name)
  k = find (strcmp (pairs(1:2:end), name), 1, "last");
  if (! isempty (k))
    v = pairs{2*k};
    return;
  endif
  t = __sgp_call__ ("options", fname);
  if (! any (strcmp (t.name, name)))
    t = __sgp_call__ ("options", "context");
  endif
  d = t.default{strcmp (t.name, name)};
  if (d(1) == '"')
    v = d(2:end-1);
  elseif (any (strcmp (d, {"TRUE", "FALSE"})))
    v = strcmp (d, "TRUE");
  elseif (strcmp (d, "NULL"))
    v = [];
  else
    v = str2double (d);
  endif
endfunction
