## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private: the lines of R's print(summary(<valla fit>)), same words and
## formats (a parity test compares them).
function lines = summary_valla (fit, fname)
  __sgp_call__ ("valla_fit_check", fit, fname, "fit");  # the core checks the fit's fields
  m = fit.model;
  P = sum (cellfun (@numel, m.weights)) + sum (cellfun (@numel, m.biases)) + numel (m.skip);
  obj = fit.history.objective;
  nll = fit.history.validation.nll;
  noise = "";
  if (! isempty (fit.noise))
    noise = sprintf (", noise %.5g", fit.noise);
  endif
  final = "NA";
  if (! isempty (obj))
    final = sprintf ("%.5g", obj(end));
  endif
  early = "";
  if (fit.stopped_early)
    early = sprintf (" (stopped early; best at %.0f)", fit.best_iteration);
  endif
  lines = {sprintf("valla fit (method \"%s\") with %s likelihood", fit.method, fit.likelihood), ...
           sprintf("  network      %d parameters, %s hidden units, C = %d outputs", P,
                   m.activation, fit.C), ...
           sprintf("  data         n = %d, d = %d; M = %d inducing points", fit.n, fit.d,
                   rows (fit.inducing)), ...
           sprintf("  prior_var    %.5g%s", fit.prior_var, noise), ...
           sprintf("  training     %.0f iterations%s, final objective %s", fit.iterations, early,
                   final)};
  if (! isempty (nll) && isfinite (min (nll)))
    lines{end+1} = sprintf ("  validation   best mean NLL %.5g", min (nll));
  endif
  if (fit.clamps > 0)
    lines{end+1} = sprintf ("  %.0f minibatch variances clamped at 0", fit.clamps);
  endif
endfunction
