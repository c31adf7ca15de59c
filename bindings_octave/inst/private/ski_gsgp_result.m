## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{fit} =} ski_gsgp_result (@var{r}, @var{stats})
## Private: the ski_gsgp fit struct (the fields of the R result, in its order)
## from the oct-file's result @var{r} (with the options used, @code{r.used})
## and the statistics.
## @end deftypefn

function fit = ski_gsgp_result (r, stats)
  u = r.used;
  fit = struct ();
  fit.class = "ski_gsgp";
  fit.grid = stats.grid;
  fit.weights = r.weights;
  fit.iterations = r.iterations;
  fit.converged = r.converged;
  fit.rel_residual = r.rel_residual;
  fit.stop = r.stop;
  fit.interp_error = r.interp_error;
  fit.history = struct ("iteration", (0:r.iterations).', "rel_residual", r.history);
  fit.stats = stats;
  for name = {"kernel", "lengthscale", "outputscale", "noise", "method", "variance", "tol", ...
              "max_iter", "bounds_policy", "backend", "seed", "slq_max_iter", "precond_rank"}
    fit.(name{1}) = u.(name{1});
  endfor
  if (isfield (u, "alpha"))  # only kernels that read it (kernel table)
    fit.alpha = u.alpha;
  endif
  if (strcmp (u.variance, "lanczos"))
    fit.rank = rows (r.love_Ft);
    fit.love = struct ("Ft", r.love_Ft, "c0", r.love_c0, "error", r.love_error);
  else
    fit.rank = [];
    fit.love = [];
  endif
  if (! isnan (r.loglik))  # with loglik = true, and whenever something was learned
    fit.loglik = r.loglik;
    fit.logdet = r.logdet;
    fit.logdet_se = r.logdet_se;
    fit.datafit = r.datafit;
    fit.probes_used = r.probes_used;
  endif
  sel = r.selection;
  fit.hyper = sel.hyper;
  if (! isna (r.loglik_se))
    fit.loglik_se = r.loglik_se;
  endif
  fit.loglik_grad = sel.loglik_grad;
  fit.learned = sel.learned;
  fit.optim = sel.optim;
  fit.timings = struct ("preprocess", r.seconds(1), "solve", r.seconds(2));
endfunction
