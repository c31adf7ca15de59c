## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{fit} =} ski_gsgp_result (@var{r}, @var{stats}, @var{o})
## Private: the ski_gsgp fit struct (the fields of the R result, in its order)
## from the oct-file's result @var{r}, the statistics and the checked options
## @var{o}.
## @end deftypefn

function fit = ski_gsgp_result (r, stats, o)
  fit = struct ();
  fit.class = "ski_gsgp";
  fit.grid = stats.grid;
  fit.weights = r.weights;
  fit.iterations = r.iterations;
  fit.converged = r.converged;
  fit.rel_residual = r.rel_residual;
  fit.stop = ski_stop_reason (r.stop);
  fit.history = struct ("iteration", (0:r.iterations).', "rel_residual", r.history);
  fit.stats = stats;
  for name = {"kernel", "lengthscale", "outputscale", "noise", "method", "variance", "tol", ...
              "max_iter", "bounds_policy", "backend", "seed", "slq_max_iter", "precond_rank"}
    fit.(name{1}) = o.(name{1});
  endfor
  if (strcmp (o.variance, "lanczos"))
    fit.rank = rows (r.love_Ft);
    fit.love = struct ("Ft", r.love_Ft, "c0", r.love_c0);
  else
    fit.rank = [];
    fit.love = [];
  endif
  if (o.loglik)
    fit.loglik = r.loglik;
    fit.logdet = r.logdet;
    fit.logdet_se = r.logdet_se;
    fit.datafit = r.datafit;
    fit.probes_used = r.probes_used;
  endif
endfunction
