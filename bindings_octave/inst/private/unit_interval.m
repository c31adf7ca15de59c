## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private: one real number in [0, 1), as a double.
function v = unit_interval (v, fname, arg)
  if (! (isnumeric (v) && isreal (v) && isscalar (v) && v >= 0 && v < 1))
    arg_error (fname, arg, "must be one number in [0, 1)");
  endif
  v = double (v);
endfunction
