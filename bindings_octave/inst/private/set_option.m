## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{pairs} =} set_option (@var{pairs}, @var{name}, @var{value})
## Private: the name/value pairs forwarded to the core with option @var{name}
## set to @var{value} (replacing the user's pair, which the front has read;
## the core refuses a name given twice).
## @end deftypefn

function pairs = set_option (pairs, name, value)
  k = find (strcmp (pairs(1:2:end), name), 1);
  if (isempty (k))
    pairs(end+1:end+2) = {name, value};
  else
    pairs{2*k} = value;
  endif
endfunction
