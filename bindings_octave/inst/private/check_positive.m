## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{v} =} check_positive (@var{v}, @var{fname}, @var{arg}, @var{lengths})
## Private: a column of positive finite doubles whose number of elements is one
## of @var{lengths} (default 1).
## @end deftypefn

function v = check_positive (v, fname, arg, lengths)
  if (nargin < 4)
    lengths = 1;
  endif
  lengths = unique (lengths);
  if (! (isnumeric (v) || islogical (v)) || iscomplex (v) || ! any (numel (v) == lengths)
      || (numel (v) > 1 && ! isvector (v)))
    if (isscalar (lengths))
      what = sprintf ("a scalar");
      if (lengths != 1)
        what = sprintf ("a vector of length %d", lengths);
      endif
    else
      what = sprintf ("a scalar or a vector of length %d", max (lengths));
    endif
    if (! isnumeric (v) && ! islogical (v))
      got = class (v);
    elseif (iscomplex (v))
      got = "complex";
    else
      got = sprintf ("%d values", numel (v));
    endif
    arg_error (fname, arg, "must be real and numeric, %s (got %s)", what, got);
  endif
  v = full (double (v(:)));
  if (any (! isfinite (v)) || any (v <= 0))
    arg_error (fname, arg, "must be positive and finite (got %s)",
               strjoin (arrayfun (@(t) sprintf ("%g", t), v.', "uniformoutput", false), ", "));
  endif
endfunction
