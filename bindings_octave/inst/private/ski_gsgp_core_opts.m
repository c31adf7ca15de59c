## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{copt} =} ski_gsgp_core_opts (@var{o})
## Private: the options struct __sgp_ski_fit__ reads (names as in the core's
## sgp_ski_opts; method, variance and bounds_policy as core codes), from the
## checked options @var{o} of ski_gsgp.
## @end deftypefn

function copt = ski_gsgp_core_opts (o)
  copt = struct ("kernel", o.kernel, "lengthscale", o.lengthscale,
                 "outputscale", o.outputscale, "noise", o.noise,
                 "method", find (strcmp (o.method, {"gsgp", "ski"})) - 1,
                 "tol", o.tol, "max_iter", o.max_iter,
                 "variance", find (strcmp (o.variance, {"none", "lanczos", "exact"})) - 1,
                 "rank", o.rank, "loglik", o.loglik, "slq_max_iter", o.slq_max_iter,
                 "precond_rank", o.precond_rank,
                 "bounds_policy", find (strcmp (o.bounds_policy, ski_bounds_policies ())) - 1,
                 "backend", o.backend);
endfunction
