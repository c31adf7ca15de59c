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
  if (isfield (fit, "backend"))
    backend0 = fit.backend;
  else
    backend0 = "auto";
  endif
  opts = parse_options (fname, struct ("variance", fit.variance, "threads", [],
                                       "backend", backend0), varargin{:});
  backend = check_choice (opts.backend, {"auto", "cpu", "cuda"}, fname, "backend");
  variance = check_choice (opts.variance, {"none", "lanczos", "exact"}, fname, "variance");
  xs = check_input_matrix (xnew, fname, xarg);
  d = numel (fit.grid.size);
  if (columns (xs) != d)
    if (d > 1 && columns (xs) == 1 && rows (xs) == d)
      xs = xs.';
    else
      arg_error (fname, xarg, "has %d columns but the fit has %d dimensions", columns (xs), d);
    endif
  endif
  if (strcmp (variance, "lanczos") && isempty (fit.love))
    arg_error (fname, "variance", "\"lanczos\" needs a fit made with \"variance\", \"lanczos\"");
  endif
  stats = fit.stats;
  copt = struct ("kernel", fit.kernel, "lengthscale", fit.lengthscale,
                 "outputscale", fit.outputscale, "noise", fit.noise, "method", 0,
                 "tol", fit.tol, "max_iter", fit.max_iter,
                 "variance", find (strcmp (variance, {"none", "lanczos", "exact"})) - 1,
                 "rank", 0, "loglik", false, "slq_max_iter", 100,
                 "bounds_policy", find (strcmp (fit.bounds_policy, ski_bounds_policies ())) - 1,
                 "backend", backend);
  if (isfield (fit, "hyper") && isfield (fit.hyper, "mean"))
    copt.mean = fit.hyper.mean;
  endif
  if (isempty (fit.love))
    Ft = zeros (0, 0);
    c0 = zeros (0, 1);
  else
    Ft = fit.love.Ft;
    c0 = fit.love.c0;
  endif
  [m, v, warn] = __sgp_ski_predict__ (stats, copt, fit.weights, Ft, c0, xs,
                                      check_threads (opts.threads, fname), fname, xarg);
  if (! isempty (warn))
    warning ("scalegp:not-converged", "%s", warn);  # worded by the core
  endif
  ## (under bounds_policy "drop" the core gives NaN at points outside the grid)
  pred = struct ("mean", m, "var", v);
endfunction
