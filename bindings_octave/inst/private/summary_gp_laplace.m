## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private: the lines of R's print(summary(<gp_laplace fit>)), same words and
## formats (a parity test compares them).
function lines = summary_gp_laplace (fit, fname)
  fit = laplace_check_fit (fit, fname);
  k = fit.kernel;
  [ll, acc] = train_fit (fit);
  lines = {sprintf("gp_laplace (IterNCGP) with %s likelihood", fit.likelihood), ...
           sprintf("  kernel       %s, lengthscale %s, outputscale %s", k.kernel,
                   fmt_g (k.lengthscale), fmt_g (k.outputscale))};
  h = hyper_line (fit);
  if (! isempty (h))
    lines{end+1} = h;
  endif
  lines(end+1:end+4) = {
    sprintf("  data         n = %d, d = %d, C = %d", rows (fit.x), columns (fit.x), fit.n_class), ...
    sprintf("  solver       %s policy: %d Newton steps, %.0f iterations, rank %d", fit.policy,
            fit.newton_steps, fit.iterations, columns (fit.root)), ...
    sprintf("  convergence  %s (stop reason \"%s\", last relative step %.3g)",
            if_else (fit.converged, "yes", "NO"), fit.stop_reason, fit.steps.delta(end)), ...
    sprintf("  train log-likelihood at the mode  %.4f", ll)};
  if (! isempty (acc))
    lines{end+1} = sprintf ("  train accuracy                    %.4f", acc);
  endif
endfunction

## "  lengthscale .., outputscale .., mean ..[, noise ..]; log evidence ..; learned: .."
## (R's laplace_hyper_line); "" without hyperparameters.
function s = hyper_line (fit)
  s = "";
  if (! isfield (fit, "hyper") || ! isstruct (fit.hyper))
    return;
  endif
  h = fit.hyper;
  noise = "";
  if (isfield (h, "noise") && ! isempty (h.noise))
    noise = [", noise " fmt_g(h.noise)];
  endif
  ev = "not computed";
  if (! isnan (fit.loglik))
    ev = fmt_g (fit.loglik, 6);
  endif
  if (isfield (fit, "loglik_se") && isscalar (fit.loglik_se) && isfinite (fit.loglik_se) && fit.loglik_se > 0)
    ev = [ev " (se " fmt_g(fit.loglik_se, 2) ")"];
  endif
  learned = "nothing learned";
  if (! isempty (fit.learned))
    learned = ["learned: " strjoin(cellstr (fit.learned), ", ")];
  endif
  s = sprintf ("  lengthscale %s, outputscale %s, mean %s%s; log evidence %s; %s",
               fmt_g (h.lengthscale), fmt_g (h.outputscale), fmt_g (h.mean), noise, ev, learned);
endfunction

## The training log-likelihood at the mode and, for classification, the
## training accuracy (R's summary.gp_laplace).
function [ll, acc] = train_fit (fit)
  f = fit.f;
  y = fit.y(:);
  acc = [];
  switch (fit.likelihood)
    case "bernoulli"
      f = f(:, 1);
      ll = sum (y .* f - log1p (exp (-abs (f))) - max (f, 0));
      acc = mean ((f > 0) == (y == 1));
    case "poisson"
      eta = f(:, 1) + if_else (isempty (fit.offset), 0, fit.offset(:));
      ll = sum (y .* eta - exp (eta) - gammaln (y + 1));
    case "softmax"
      mx = max (f, [], 2);
      ll = sum (f(sub2ind (size (f), (1:rows (f))', y)) - mx - log (sum (exp (f - mx), 2)));
      [~, k] = max (f, [], 2);
      acc = mean (k == y);
    otherwise  # gaussian
      s2 = fit.noise(:);
      ll = sum (-0.5 * log (2 * pi * s2) - (y - f(:, 1)) .^ 2 ./ (2 * s2));
  endswitch
endfunction
