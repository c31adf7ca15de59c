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
  ## the core reads pred (a struct, a matrix of probabilities, P(y = 1) or means
  ## with var), codes the labels and checks everything and the options (bins)
  [front, opts] = split_options (fname, {"var"}, varargin{:});
  m = __sgp_call__ ("valla_metrics", pred, y, front.var, opts{:});
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
%!error <'pred' is a list or struct without> valla_metrics (struct ("var", v), y)
%!error <'pred' contains NaN or Inf \(row 3> valla_metrics ([P(1:2, :); NA 0.5; P(4, :)], lab)
%!error <'y' contains NaN or Inf \(row 4> valla_metrics (P, [lab(1:3); NA])
%!error <'pred' must have one row of probabilities> valla_metrics (P(2:end, :), lab)
%!error <'pred' row 1 sums to 1.1> valla_metrics ([P, 0.1 * ones(4, 1)], lab)
%!error <'y' the label at row 3 is not one of the 2 classes> valla_metrics (P, [1; 2; 3; 1])
%!error <'bins' must be a whole number> valla_metrics (P, lab, "bins", 0)
%!error <'y' must be numbers> valla_metrics (P, {1, 2, 2, 1})
