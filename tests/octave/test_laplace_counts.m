## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## gp_laplace's count likelihoods (binomial with trials, negbin with a
## dispersion and offsets) against a dense Laplace oracle written out here, as
## tests/testthat/test-laplace-counts.R: Newton on the dense K with each
## likelihood's formulas and the evidence -1/2 a'(f - m) + log p(y | f)
## - 1/2 log|I + W^1/2 K W^1/2|. Policy "cholesky" with the full budget reaches
## the mode to rounding: 1e-8 relative leaves room for the conditioning of B
## (below 1e3); the gradient against central differences (h = 1e-4) to 1e-6.
## Run by tests/octave/run_all.m.

%!function cs = counts_case (lik)
%!  n = 30;
%!  u = mod ((1:n)' * 0.6180339887, 1);           # deterministic uniforms
%!  cs.x = sort (2 * sin (1.7 * (1:n)'));
%!  t = sin (2 * cs.x) + 0.3 * (u - 0.5);
%!  cs.trials = 1 + mod ((0:n-1)', 7);
%!  cs.offset = 0.3 * cos (3 * (1:n)');
%!  if (strcmp (lik, "binomial"))
%!    cs.y = min (floor (cs.trials ./ (1 + exp (-t)) + u), cs.trials);
%!  else
%!    cs.y = floor (exp (1 + t + cs.offset) .* (0.3 + 1.4 * u) + mod (u * 7, 1));
%!  endif
%!  cs.dispersion = 2.5;  cs.lengthscale = 0.8;  cs.outputscale = 1.3;  cs.mean = 0.4;
%!endfunction

%!function [lp, g, w] = counts_lik (cs, lik, f)
%!  y = cs.y;
%!  if (strcmp (lik, "binomial"))
%!    t = cs.trials;  p = 1 ./ (1 + exp (-f));
%!    lp = gammaln (t + 1) - gammaln (y + 1) - gammaln (t - y + 1) + y .* log (p) + (t - y) .* log1p (-p);
%!    g = y - t .* p;  w = t .* p .* (1 - p);
%!  else
%!    r = cs.dispersion;  mu = exp (f + cs.offset);
%!    lp = gammaln (y + r) - gammaln (r) - gammaln (y + 1) + r * log (r ./ (r + mu)) + y .* log (mu ./ (r + mu));
%!    g = r * (y - mu) ./ (r + mu);  w = r * mu .* (y + r) ./ (r + mu) .^ 2;
%!  endif
%!endfunction

%!function [f, ev] = counts_oracle (cs, lik)
%!  n = rows (cs.x);
%!  K = cs.outputscale * exp (-0.5 * ((cs.x - cs.x') / cs.lengthscale) .^ 2);
%!  f = cs.mean * ones (n, 1);
%!  for it = 1:100
%!    [~, g, w] = counts_lik (cs, lik, f);
%!    sw = sqrt (w);
%!    L = chol (eye (n) + (sw * sw') .* K, "lower");
%!    b = w .* (f - cs.mean) + g;
%!    a = b - sw .* (L' \ (L \ (sw .* (K * b))));
%!    fn = cs.mean + K * a;
%!    step = max (abs (fn - f));
%!    f = fn;
%!    if (step < 1e-13)
%!      break;
%!    endif
%!  endfor
%!  [lp, ~, w] = counts_lik (cs, lik, f);
%!  sw = sqrt (w);
%!  L = chol (eye (n) + (sw * sw') .* K, "lower");
%!  ev = -0.5 * sum (a .* (f - cs.mean)) + sum (lp) - sum (log (diag (L)));
%!endfunction

%!function fit = counts_fit (cs, lik, varargin)
%!  o = struct ("likelihood", lik, "policy", "cholesky", "max_iter", rows (cs.x), "max_newton", 50,
%!              "tol", 1e-12, "lengthscale", cs.lengthscale, "outputscale", cs.outputscale,
%!              "mean", cs.mean, "seed", 1);
%!  if (strcmp (lik, "binomial"))
%!    o.trials = cs.trials;
%!  else
%!    o.offset = cs.offset;  o.dispersion = cs.dispersion;
%!  endif
%!  for i = 1:2:numel (varargin)   # overrides
%!    o.(varargin{i}) = varargin{i + 1};
%!  endfor
%!  args = [fieldnames(o), struct2cell(o)]';
%!  fit = gp_laplace (cs.x, cs.y, "learn", {}, args{:});
%!endfunction

%!test
%! for lik = {"binomial", "negbin"}
%!   cs = counts_case (lik{1});
%!   fit = counts_fit (cs, lik{1});
%!   assert (fit.converged);
%!   [f, ev] = counts_oracle (cs, lik{1});
%!   assert (max (abs (fit.f - f)) / max (abs (f)) <= 1e-8);
%!   assert (abs (fit.loglik - ev) / abs (ev) <= 1e-8);
%! endfor

%!test
%! h = 1e-4;
%! for lik = {"binomial", "negbin"}
%!   cs = counts_case (lik{1});
%!   fit = counts_fit (cs, lik{1});
%!   ev = @(l, s, m) counts_fit (cs, lik{1}, "lengthscale", cs.lengthscale * exp (l),
%!                               "outputscale", cs.outputscale * exp (s), "mean", cs.mean + m).loglik;
%!   fd = [(ev(h, 0, 0) - ev(-h, 0, 0)), (ev(0, h, 0) - ev(0, -h, 0)), (ev(0, 0, h) - ev(0, 0, -h))] / (2 * h);
%!   g = [fit.loglik_grad.lengthscale, fit.loglik_grad.outputscale, fit.loglik_grad.mean];
%!   assert (max (abs (g - fd) ./ max (abs (g), 1)) <= 1e-6);
%! endfor

%!shared cs
%! cs = counts_case ("binomial");
%!error <gp_laplace: 'y' binomial counts must be whole numbers in 0..trials \(trials = 3\) \(element 3 is -1\)> gp_laplace (cs.x, [cs.y(1:2); -1; cs.y(4:end)], "likelihood", "binomial", "trials", cs.trials)
%!error <'y' binomial counts must be whole numbers> gp_laplace (cs.x, [cs.y(1:2); 0.5; cs.y(4:end)], "likelihood", "binomial", "trials", cs.trials)
%!error <element 3 is 4> gp_laplace (cs.x, [cs.y(1:2); 4; cs.y(4:end)], "likelihood", "binomial", "trials", cs.trials)
%!error <gp_laplace: 'trials' must be whole numbers .= 1 \(element 5 is 0\)> gp_laplace (cs.x, cs.y, "likelihood", "binomial", "trials", [cs.trials(1:4); 0; cs.trials(6:end)])
%!error <'trials' is only used with likelihood = "binomial"> gp_laplace (cs.x, double (cs.y > 0), "trials", cs.trials)
%!error <gp_laplace: 'y' negbin counts must be non-negative integers \(element 3 is -1\)> gp_laplace (cs.x, [cs.y(1:2); -1; cs.y(4:end)], "likelihood", "negbin")
%!error <'y' negbin counts must be non-negative integers \(element 3 is 0.5\)> gp_laplace (cs.x, [cs.y(1:2); 0.5; cs.y(4:end)], "likelihood", "negbin")
%!error <'dispersion' must be positive and finite \(got 0\)> gp_laplace (cs.x, cs.y, "likelihood", "negbin", "dispersion", 0)
%!test
%! fit = counts_fit (cs, "binomial");
%! p = scalegp_predict (fit, cs.x(1:5), "type", "response");
%! assert (all (p > 0 & p < 1));
%! v = scalegp_plot_data (fit);
%! assert (v.py, cs.y ./ cs.trials);
