## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{fit} =} laplace_check_fit (@var{fit}, @var{fname})
## Private: checks the fields of a gp_laplace result that scalegp_predict reads
## (a fit is plain data: it may come from a file, another program or a user's
## edits): types, shapes, finiteness and consistency, as the R package does.
## Errors name the field ("'fit.root' ...").  Returns the fit with the numeric
## fields as full double matrices.
## @end deftypefn

function fit = laplace_check_fit (fit, fname)
  need = {"x", "weights", "root", "likelihood", "n_class", "kernel", "noise", "levels", ...
          "iterations"};
  check_fit_fields (fit, need, "gp_laplace", fname);
  liks = {"bernoulli", "poisson", "softmax", "gaussian"};
  lik = fit.likelihood;
  if (! ischar (lik) || ! any (strcmp (lik, liks)))
    arg_error (fname, "fit.likelihood", "must be one of \"%s\"", strjoin (liks, "\", \""));
  endif
  C = fit.n_class;
  softmax = strcmp (lik, "softmax");
  if (! fit_whole (C) || (softmax && C < 2) || (! softmax && C != 1))
    arg_error (fname, "fit.n_class", "must be %s for likelihood = \"%s\"",
               if_else (softmax, "a whole number >= 2", "1"), lik);
  endif
  fit.x = fit_matrix (fit.x, fname, "x", NaN, NaN);
  [n, d] = size (fit.x);
  if (n == 0 || d == 0)
    arg_error (fname, "fit.x", "is empty (%d x %d)", n, d);
  endif
  fit.weights = fit_matrix (fit.weights, fname, "weights", n, C);
  fit.root = fit_matrix (fit.root, fname, "root", n * C, NaN);
  if (! fit_whole (fit.iterations) || fit.iterations < 0)
    arg_error (fname, "fit.iterations", "must be a whole number >= 0");
  endif
  if ((columns (fit.root) == 0) != (fit.iterations == 0))
    arg_error (fname, "fit.root", "has %d columns but the fit took %d solver iterations",
               columns (fit.root), fit.iterations);
  endif
  fit.kernel = fit_kernel (fit.kernel, d, fname);
  fit.noise = fit_noise (fit.noise, lik, n, fname);
  lev = fit.levels;
  if (! isempty (lev) && (! iscellstr (lev) || numel (lev) != max (2, C)))
    arg_error (fname, "fit.levels", "must be empty or %d class names", max (2, C));
  endif
endfunction

function k = fit_kernel (k, d, fname)
  names = {"rbf", "matern12", "matern32", "matern52"};
  if (! isstruct (k) || ! isscalar (k) || ! all (isfield (k, {"kernel", "lengthscale", ...
                                                             "outputscale"}))
      || ! ischar (k.kernel) || ! any (strcmp (k.kernel, names)))
    arg_error (fname, "fit.kernel", "must be a struct with kernel (one of \"%s\"), lengthscale, outputscale",
               strjoin (names, "\", \""));
  endif
  ell = k.lengthscale;
  if (! isnumeric (ell) || ! isreal (ell) || ! any (numel (ell) == [1, d])
      || ! all (isfinite (ell(:))) || any (ell(:) <= 0))
    arg_error (fname, "fit.kernel", "must have 1 or d = %d positive finite lengthscales", d);
  endif
  s2 = k.outputscale;
  if (! isnumeric (s2) || ! isreal (s2) || ! isscalar (s2) || ! isfinite (s2) || s2 <= 0)
    arg_error (fname, "fit.kernel", "must have one positive finite outputscale");
  endif
endfunction

function noise = fit_noise (noise, lik, n, fname)
  if (! strcmp (lik, "gaussian"))
    if (! isempty (noise))
      arg_error (fname, "fit.noise", "must be empty for likelihood = \"%s\"", lik);
    endif
    return;
  endif
  if (! isnumeric (noise) || ! isreal (noise) || ! any (numel (noise) == [1, n])
      || ! all (isfinite (noise(:))) || any (noise(:) <= 0))
    arg_error (fname, "fit.noise", "must be 1 or %d positive finite variances", n);
  endif
endfunction

function ok = fit_whole (v)
  ok = isnumeric (v) && isreal (v) && isscalar (v) && isfinite (v) && v == fix (v);
endfunction

## A finite real matrix of rows x cols (NaN: any).
function v = fit_matrix (v, fname, name, nr, nc)
  if (! (isnumeric (v) || islogical (v)) || ! isreal (v) || ndims (v) != 2)
    arg_error (fname, ["fit." name], "must be a real numeric matrix");
  endif
  if ((! isnan (nr) && rows (v) != nr) || (! isnan (nc) && columns (v) != nc))
    arg_error (fname, ["fit." name], "is %d x %d; need %s x %s", rows (v), columns (v),
               if_else (isnan (nr), "any", num2str (nr)), if_else (isnan (nc), "any", num2str (nc)));
  endif
  if (! all (isfinite (v(:))))
    arg_error (fname, ["fit." name], "contains NaN or Inf");
  endif
  v = full (double (v));
endfunction
