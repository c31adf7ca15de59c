## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Targets or labels as doubles for the core (multi-class 0..C-1), checked by
## the likelihood's role (lik_role).
function ycode = valla_labels (y, likelihood, C, n, fname, arg)
  if (islogical (y))
    y = double (y);
  endif
  if (! isnumeric (y) || iscomplex (y))
    arg_error (fname, arg, "must be a real numeric vector");
  endif
  if (! (isvector (y) || isempty (y)) || numel (y) != n)
    arg_error (fname, arg, "has %d elements but '%s' has %d rows", numel (y),
               regexprep (arg, "y$", "x"), n);
  endif
  y = double (y(:));
  bad = find (! isfinite (y), 1);
  if (! isempty (bad))
    arg_error (fname, arg, "contains NaN, NA or Inf (first at %d)", bad);
  endif
  switch (lik_role (likelihood))
    case "multi"
      k = find (y != round (y) | y < 1 | y > C, 1);
      if (! isempty (k))
        arg_error (fname, arg, "must be class labels 1..%d (the network has %d outputs); found %g",
                   C, C, y(k));
      endif
      y -= 1;
    case "two"
      k = find (y != 0 & y != 1, 1);
      if (! isempty (k))
        arg_error (fname, arg, "must be 0/1 for likelihood = \"%s\" (found %g)", likelihood,
                   y(k));
      endif
  endswitch
  ycode = y;
endfunction
