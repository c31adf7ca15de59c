## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private: the lines of R's summary(<ski_laplace fit>): its print lines, then
## the Newton history as R prints a data frame (digits 4, no row names); same
## words and formats (a parity test compares them).
function lines = summary_ski_laplace (fit, fname)
  __sgp_call__ ("ski_laplace_predict", fit, fname, "fit");  # the core's check of the fit
  lines = print_lines (fit);
  h = fit.history;
  if (isstruct (h) && numfields (h) > 0 && numel (h.(fieldnames (h){1})) > 0)
    lines = [lines, history_lines(h)];
  endif
endfunction

## R's print.ski_laplace
function lines = print_lines (fit)
  u = fit.used;
  sz = fit.grid.size(:).';
  lines = {sprintf("<ski_laplace> %s, %s layout, %s grid (%d cells, %d observed), %s kernel",
                   u.likelihood, u.layout, strjoin (arrayfun (@(s) sprintf ("%d", s), sz,
                                                              "uniformoutput", false), " x "),
                   prod (sz), numel (fit.observed), u.kernel)};
  state = "converged";
  if (! (islogical (fit.converged) || isnumeric (fit.converged)) || ! isscalar (fit.converged)
      || ! fit.converged)
    state = ["NOT converged: " fit.stop_reason];
  endif
  lines{end+1} = sprintf ("  mode: %d Newton steps, %d CG steps, mode bound %.3g (%s)",
                          fit.newton_steps, fit.iterations, fit.mode_error, state);
  h = fit.hyper;
  learned = "nothing learned";
  if (! isempty (fit.learned))
    learned = ["learned: " strjoin(cellstr (fit.learned)(:).', ", ")];
  endif
  lines{end+1} = sprintf ("  lengthscale %s, outputscale %s, mean %s; %s", fmt_g (h.lengthscale),
                          fmt_g (h.outputscale), fmt_g (h.mean), learned);
  if (isempty (fit.loglik) || isnan (fit.loglik))
    lines{end+1} = "  log evidence not computed";
  else
    se = "";
    if (fit.loglik_se > 0)
      se = sprintf ("+- %.2g ", fit.loglik_se);
    endif
    lines{end+1} = sprintf ("  log evidence %.6g %s(%s)", fit.loglik, se, u.loglik_method);
  endif
endfunction

## R's print(<data frame>, row.names = FALSE, digits = 4): per column one
## format (r_format_real), the header and the entries right-justified to the
## wider of the two, each column after one space.
function lines = history_lines (h)
  names = fieldnames (h);
  cols = cell (1, numel (names));
  for j = 1:numel (names)
    s = r_format_real (double (h.(names{j})(:)), 4);
    w = max (columns (s{1}), columns (names{j}));
    cols{j} = [sprintf("%*s", w, names{j}), cellfun(@(t) sprintf ("%*s", w, t), s(:).',
                                                    "uniformoutput", false)];
  endfor
  rows = numel (cols{1});
  lines = cell (1, rows);
  for i = 1:rows
    lines{i} = strjoin (cellfun (@(c) [" " c{i}], cols, "uniformoutput", false), "");
  endfor
endfunction
