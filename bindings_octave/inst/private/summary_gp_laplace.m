## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private: the lines of R's print(summary(<gp_laplace fit>)), same words and
## formats (a parity test compares them).
function lines = summary_gp_laplace (fit, fname)
  [fit, train] = laplace_check_fit (fit, fname);
  k = fit.kernel;
  ll = train.loglik;
  acc = train.accuracy;
  lines = {sprintf("gp_laplace (IterNCGP) with %s likelihood", fit.likelihood), ...
           sprintf("  kernel       %s, lengthscale %s, outputscale %s", k.kernel,
                   fmt_g (k.lengthscale), fmt_g (k.outputscale))};
  h = hyper_line (fit);
  if (! isempty (h))
    lines{end+1} = h;
  endif
  if (isfield (fit, "scaling") && isstruct (fit.scaling))  # (R's laplace_scaling_line)
    lines{end+1} = ["  inputs       " fit.scaling.note];
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

## "  lengthscale .., outputscale .., mean ..[, noise ..][, dispersion ..][, alpha ..];
## log evidence ..; learned: .."
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
  for name = {"dispersion", "alpha"} # where theta has them
    if (isfield (h, name{1}) && ! isempty (h.(name{1})))
      noise = [noise ", " name{1} " " fmt_g(h.(name{1}))];
    endif
  endfor
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
