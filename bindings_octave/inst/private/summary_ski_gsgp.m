## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private: the lines of R's print(summary(<ski_gsgp fit>)), same words and
## formats (a parity test compares them).
function lines = summary_ski_gsgp (fit, fname)
  fit = ski_check_fit (fit, fname);
  g = fit.grid;
  lines = {sprintf("ski_gsgp fit (method \"%s\") on %g points", fit.method, fit.stats.n)};
  for j = 1:numel (g.size)
    lines{end+1} = sprintf ("  grid dim %d: %d points on [%.4g, %.4g]", j, g.size(j),
                            g.bounds(j, 1), g.bounds(j, 2));
  endfor
  mu = "";
  if (isfield (fit, "hyper") && isfield (fit.hyper, "mean") && ! isempty (fit.hyper.mean))
    mu = sprintf (", prior mean %.4g", fit.hyper.mean);
  endif
  lines{end+1} = sprintf ("  %s interpolation; %s kernel, lengthscale %s, outputscale %.4g, noise %.4g%s",
                          g.interpolation, fit.kernel, fmt_g (fit.lengthscale),
                          fit.outputscale, fit.noise, mu);
  lines{end+1} = sprintf ("  %d CG iterations, relative residual %.3g, %s", fit.iterations,
                          fit.rel_residual, if_else (fit.converged, "converged", "not converged"));
  if (isfield (fit, "learned") && ! isempty (fit.learned))
    evals = 0;
    if (isstruct (fit.optim) && isfield (fit.optim, "loglik"))
      evals = numel (fit.optim.loglik);
    endif
    lines{end+1} = sprintf ("  learned %s by maximizing the log marginal likelihood (%d evaluations)",
                            strjoin (cellstr (fit.learned), ", "), evals);
  endif
  if (isfield (fit, "loglik"))
    lines{end+1} = sprintf ("  log marginal likelihood %.6g%s%s", fit.loglik,
                            se_text (fit), gradient_text (fit));
  endif
  t = fit.timings;
  names = fieldnames (t);
  times = cellfun (@(n) sprintf ("%s %.3gs", n, t.(n)), names, "uniformoutput", false);
  lines{end+1} = sprintf ("  variances: %s; time %s", fit.variance, strjoin (times(:).', ", "));
endfunction

## " +- se", " (exact)" for the exact one (se 0), or "" (none)
function s = se_text (fit)
  s = "";
  if (isfield (fit, "loglik_se") && ! isempty (fit.loglik_se) && ! isnan (fit.loglik_se))
    if (fit.loglik_se > 0)
      s = sprintf (" +- %.2g", fit.loglik_se);
    else
      s = " (exact)";
    endif
  endif
endfunction

function s = gradient_text (fit)
  s = "";
  gr = [];
  if (isfield (fit, "loglik_grad"))
    gr = fit.loglik_grad;
  endif
  if (isstruct (gr) && numfields (gr) > 0)
    names = fieldnames (gr);
    parts = cellfun (@(n) sprintf ("%s %.3g", n, gr.(n)), names, "uniformoutput", false);
    s = ["; gradient " strjoin(parts(:).', ", ")];
  endif
endfunction
