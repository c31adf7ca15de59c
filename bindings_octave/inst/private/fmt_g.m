## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private: numbers as the summaries show them, "%.<digits>g" joined by spaces
## (R's fmt_g: the same C format, so both hosts print the same characters).
function s = fmt_g (v, digits)
  if (nargin < 2)
    digits = 4;
  endif
  s = strjoin (arrayfun (@(u) sprintf ("%.*g", digits, u), double (v(:)).',
                         "uniformoutput", false), " ");
endfunction
