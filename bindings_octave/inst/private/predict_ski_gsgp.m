## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{pred} =} predict_ski_gsgp (@var{fit}, @var{xnew}, @var{name}, @var{value}, @dots{})
## Private: predictions of a ski_gsgp fit for scalegp_predict.  Returns a
## struct with @code{mean} and @code{var} (latent variance; empty with
## variance "none").  Options: @qcode{"variance"} (@qcode{"none"},
## @qcode{"lanczos"} for a fit made with it, @qcode{"exact"}; default the
## fit's), @qcode{"threads"} and @qcode{"backend"} (default the fit's).
## @end deftypefn

function pred = predict_ski_gsgp (fit, xnew, fname, xarg, varargin)
  ## fname, xarg: the user's function and its argument of the test inputs
  ## (scalegp_predict's xnew, ski_gsgp's xtest), named in errors
  fit = ski_check_fit (fit, fname);
  xs = check_input_matrix (xnew, fname, xarg);
  d = numel (fit.grid.size);
  if (d > 1 && columns (xs) == 1 && rows (xs) == d)
    xs = xs.';  # one point as a column
  endif
  ## the core checks the fit, the options (variance, backend: by default the fit's) and xs
  ## and writes the predictions (sgp_ski_predict_plain)
  p = __sgp_call__ ("ski_predict", fit, fname, "fit", xs, xarg, varargin{:});
  if (! isempty (p.warning))
    warning ("scalegp:not-converged", "%s", p.warning);  # worded by the core
  endif
  ## (under bounds_policy "drop" the core gives NaN at points outside the grid)
  pred = rmfield (p, "warning");
endfunction
