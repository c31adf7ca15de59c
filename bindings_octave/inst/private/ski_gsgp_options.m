## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{o} =} ski_gsgp_options (@var{opts}, @var{fname})
## Private: the checked scalar options of ski_gsgp (method, variance, kernel,
## outputscale, noise, tol, max_iter, rank, loglik, probes, slq_max_iter,
## precond_rank, bounds_policy, backend, seed, verbose, threads); the grid,
## lengthscale and data are checked with the statistics (ski_gsgp_stats).
## @end deftypefn

function o = ski_gsgp_options (opts, fname)
  o.method = check_choice (opts.method, {"gsgp", "ski"}, fname, "method");
  o.variance = check_choice (opts.variance, {"none", "lanczos", "exact"}, fname, "variance");
  o.kernel = check_kernel (opts.kernel, fname);
  o.outputscale = check_positive (opts.outputscale, fname, "outputscale");
  o.noise = check_positive (opts.noise, fname, "noise");
  o.tol = check_positive (opts.tol, fname, "tol");
  o.max_iter = check_count (opts.max_iter, fname, "max_iter", 1);
  if (isempty (opts.rank))
    o.rank = 0;
  else
    o.rank = check_count (opts.rank, fname, "rank", 1);
  endif
  o.loglik = check_flag (opts.loglik, fname, "loglik");
  o.probes = check_count (opts.probes, fname, "probes", 1);
  o.slq_max_iter = check_count (opts.slq_max_iter, fname, "slq_max_iter", 1);
  o.precond_rank = check_count (opts.precond_rank, fname, "precond_rank", 0);
  if (o.precond_rank > 0 && ! strcmp (o.method, "gsgp"))
    arg_error (fname, "precond_rank", "applies to method \"gsgp\" only");
  endif
  o.bounds_policy = check_choice (opts.bounds_policy, ski_bounds_policies (), fname,
                                  "bounds_policy");
  o.backend = check_choice (opts.backend, {"auto", "cpu", "cuda"}, fname, "backend");
  o.seed = check_seed (opts.seed, fname);
  o.verbose = check_flag (opts.verbose, fname, "verbose");
  o.threads = check_threads (opts.threads, fname);
endfunction
