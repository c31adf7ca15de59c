## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private (valla): "inducing": a number M goes to the core with the options
## (which checks it), an M-by-D matrix is data with optional 0-based tags.
function [inducing, tags, opts] = valla_inducing_arg (iv, tg, D, C, opts, fname)
  inducing = [];
  tags = [];
  if (isempty (iv))
    ## not given: the core's default
  elseif (isnumeric (iv) && isscalar (iv))
    opts = set_option (opts, "inducing", iv);
  else
    if (! (isnumeric (iv) && isreal (iv) && ndims (iv) == 2 && columns (iv) == D))
      arg_error (fname, "inducing", "must be a number M or an M-by-%d real matrix", D);
    endif
    if (any (! isfinite (iv(:))))
      arg_error (fname, "inducing", "contains NaN or Inf");
    endif
    inducing = full (double (iv));
  endif
  if (isempty (tg))
    return;
  endif
  if (isempty (inducing))
    arg_error (fname, "inducing_tags", "needs a matrix of inducing locations");
  endif
  if (! (isnumeric (tg) && isvector (tg) && numel (tg) == rows (inducing)
         && all (tg(:) == round (tg(:))) && all (tg(:) >= 1 & tg(:) <= C)))
    arg_error (fname, "inducing_tags", "must be %d whole numbers in 1..%d", rows (inducing), C);
  endif
  tags = double (tg(:)) - 1;
endfunction
