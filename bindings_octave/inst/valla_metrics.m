## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {@var{m} =} valla_metrics (@var{pred}, @var{y})
## @deftypefnx {} {@var{m} =} valla_metrics (@var{pred}, @var{y}, @var{name}, @var{value}, @dots{})
## Calibration metrics of predictive distributions, as R's @code{valla_metrics}.
##
## Regression (Gaussian predictive mean and variance, the variance including
## the noise): mean negative log-likelihood @code{nll}, continuous ranked
## probability score @code{crps} and centred quantile metric @code{cqm}.
## Classification (class probabilities): @code{accuracy}, mean @code{nll},
## expected calibration error @code{ece} and the @code{brier} score, plus the
## ROC @code{auc} for two classes (NaN when @var{y} holds one class only).
##
## @var{pred} is a @code{valla} fit's @code{test} field or a
## @code{scalegp_predict} result (a struct with @code{mean} and @code{var}, or
## @code{prob}), an n-by-C matrix of class probabilities, a vector of
## P(y = 1) (binary), or a vector of predictive means with the
## @qcode{"var"} option.  @var{y} holds the targets, labels 1..C, or 0/1 with
## P(y = 1).  Options: @qcode{"var"} (predictive variances), @qcode{"bins"}
## (ECE bins, 15).
##
## Returns a struct of the metrics.  Empty inputs, NaN/NA/Inf, lengths that do
## not match, non-positive variances, rows of probabilities that do not sum to
## 1 and labels outside the classes are errors naming the argument.
## @seealso{valla, scalegp_predict}
## @end deftypefn

function m = valla_metrics (pred, y, varargin)
  fname = "valla_metrics";
  if (nargin < 2)
    print_usage ();
  endif
  opts = parse_options (fname, struct ("var", [], "bins", 15), varargin{:});
  bins = check_count (opts.bins, fname, "bins", 1);
  v = opts.var;
  mu = [];
  prob = [];
  if (isstruct (pred))
    if (isfield (pred, "prob") && ! isempty (pred.prob))
      prob = pred.prob;
    elseif (isfield (pred, "mean"))
      mu = pred.mean;
      if (isfield (pred, "var"))
        v = pred.var;
      endif
    else
      arg_error (fname, "pred", "is a struct without 'mean' or 'prob'");
    endif
  elseif (! isvector (pred) || (rows (pred) == 1 && numel (y) == 1 && columns (pred) > 1))
    prob = pred;                        # n-by-C (one point: a row of C)
  elseif (isempty (v))
    prob = pred(:);
  else
    mu = pred(:);
  endif
  num = @(z, arg) numeric_arg (z, fname, arg);
  y = num (y, "y");
  if (isempty (prob))
    m = __sgp_valla_metrics__ (y(:), num (mu, "pred")(:), num (v, "var")(:), [], bins);
    return;
  endif
  prob = num (prob, "pred");
  if (columns (prob) == 1)
    ## P(y = 1): labels 0/1 (or 1/2)
    if (! any (isnan (y(:))) && ! all (y(:) == 0 | y(:) == 1) && all (y(:) == 1 | y(:) == 2))
      y -= 1;
    endif
    prob = [1 - prob(:), prob(:)];
  else
    y -= 1;
  endif
  m = __sgp_valla_metrics__ (y(:), [], [], prob, bins);
endfunction

## A real numeric or logical array as doubles (the core checks the values).
function z = numeric_arg (z, fname, arg)
  if (! ((isnumeric (z) || islogical (z)) && isreal (z)))
    arg_error (fname, arg, "must be real numbers");
  endif
  z = double (z);
endfunction

%!test
%! y = [0.1; -0.3; 1.2; 0.4]; mu = [0; 0; 1; 0.5]; v = [0.5; 1; 2; 0.3];
%! m = valla_metrics (struct ("mean", mu, "var", v), y);
%! assert (m.nll, mean (0.5 * log (2 * pi * v) + (y - mu) .^ 2 ./ (2 * v)), 1e-14);
%! assert (valla_metrics (mu, y, "var", v), m);
%! P = [0.8 0.2; 0.3 0.7; 0.4 0.6; 0.6 0.4]; lab = [1; 2; 2; 1];
%! mc = valla_metrics (P, lab);
%! assert (mc.accuracy, 1);
%! assert (mc.brier, mean (sum ((P - eye (2)(lab, :)) .^ 2, 2)), 1e-14);
%! mb = valla_metrics (P(:, 2), lab - 1);
%! assert (mb.auc, 1);
%! assert (isnan (valla_metrics (P(:, 2), [1; 1; 1; 1]).auc));

%!shared y, mu, v, P, lab
%! y = [0.1; -0.3; 1.2; 0.4]; mu = [0; 0; 1; 0.5]; v = [0.5; 1; 2; 0.3];
%! P = [0.8 0.2; 0.3 0.7; 0.4 0.6; 0.6 0.4]; lab = [1; 2; 2; 1];
%!error <valla_metrics: 'y' is empty> valla_metrics (struct ("mean", [], "var", []), [])
%!error <'y' contains NaN or Inf \(row 1> valla_metrics (struct ("mean", mu, "var", v), [NA; y(2:end)])
%!error <'pred' contains NaN or Inf \(row 4> valla_metrics (struct ("mean", [mu(1:3); NaN], "var", v), y)
%!error <'var' must be positive \(row 2\)> valla_metrics (struct ("mean", mu, "var", [v(1); 0; v(3:4)]), y)
%!error <'var' must have one predictive variance> valla_metrics (mu, y, "var", v(2:end))
%!error <'var' is empty> valla_metrics (struct ("mean", mu), y)
%!error <'pred' is a struct without> valla_metrics (struct ("var", v), y)
%!error <'pred' contains NaN or Inf \(row 3> valla_metrics ([P(1:2, :); NA 0.5; P(4, :)], lab)
%!error <'y' contains NaN or Inf \(row 4> valla_metrics (P, [lab(1:3); NA])
%!error <'pred' must have one row of probabilities> valla_metrics (P(2:end, :), lab)
%!error <'pred' row 1 sums to 1.1> valla_metrics ([P, 0.1 * ones(4, 1)], lab)
%!error <'y' the label at row 3 is not one of the 2 classes> valla_metrics (P, [1; 2; 3; 1])
%!error <'bins' must be a whole number> valla_metrics (P, lab, "bins", 0)
%!error <'y' must be real numbers> valla_metrics (P, {1, 2, 2, 1})
