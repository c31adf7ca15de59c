## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private (valla): the "inducing" option as the core takes it: a count
## (n_inducing; 0 when not given: the core's default, sized to the data; the
## core checks it against the rows of x) or an M-by-D matrix with its tags
## (0-based; [] for the default cycling).
function [n_inducing, inducing, tags] = valla_inducing_arg (iv, tg, D, C, fname)
  n_inducing = 0;
  inducing = [];
  tags = [];
  if (isempty (iv))
    ## not given: the core's default
  elseif (isnumeric (iv) && isscalar (iv))
    n_inducing = check_count (iv, fname, "inducing", 1);
  else
    if (! (isnumeric (iv) && isreal (iv) && ndims (iv) == 2 && columns (iv) == D))
      arg_error (fname, "inducing", "must be a number M or an M-by-%d real matrix", D);
    endif
    if (any (! isfinite (iv(:))))
      arg_error (fname, "inducing", "contains NaN or Inf");
    endif
    inducing = full (double (iv));
    n_inducing = rows (inducing);
  endif
  if (isempty (tg))
    return;
  endif
  if (isempty (inducing))
    arg_error (fname, "inducing_tags", "needs a matrix of inducing locations");
  endif
  if (! (isnumeric (tg) && isvector (tg) && numel (tg) == n_inducing
         && all (tg(:) == round (tg(:))) && all (tg(:) >= 1 & tg(:) <= C)))
    arg_error (fname, "inducing_tags", "must be %d whole numbers in 1..%d", n_inducing, C);
  endif
  tags = double (tg(:)) - 1;
endfunction
