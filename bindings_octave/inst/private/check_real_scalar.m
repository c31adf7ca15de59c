## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private: one real number as a double; its range is the core's to check (one
## message for R and Octave).
function v = check_real_scalar (v, fname, arg)
  if (! ((isnumeric (v) || islogical (v)) && isreal (v) && isscalar (v)))
    arg_error (fname, arg, "must be one real number");
  endif
  v = full (double (v));
endfunction
