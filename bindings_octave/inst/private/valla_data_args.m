## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private (valla): the validation set (struct with x and y) and the test
## inputs, checked against the network's D inputs.
function [xval, yval, xtest] = valla_data_args (v, xtest, likelihood, D, C, fname)
  xval = [];
  yval = [];
  if (! isempty (v))
    if (! (isstruct (v) && isscalar (v) && isfield (v, "x") && isfield (v, "y")))
      arg_error (fname, "validation", "must be a struct with fields x and y");
    endif
    xval = check_input_matrix (v.x, fname, "validation.x");
    if (columns (xval) != D)
      arg_error (fname, "validation.x", "has %d columns but the network expects %d inputs",
                 columns (xval), D);
    endif
    yval = valla_labels (v.y, likelihood, C, rows (xval), fname, "validation.y");
  endif
  if (isempty (xtest))
    return;
  endif
  xtest = check_input_matrix (xtest, fname, "xtest");
  if (columns (xtest) != D)
    arg_error (fname, "xtest", "has %d columns but 'x' has %d", columns (xtest), D);
  endif
  big = find (abs (xtest) > 1e100, 1);   # the core's bound, checked before training
  if (! isempty (big))
    arg_error (fname, "xtest", "holds %g (at most 1e+100 in magnitude: larger values overflow; rescale them)",
               xtest(big));
  endif
endfunction
