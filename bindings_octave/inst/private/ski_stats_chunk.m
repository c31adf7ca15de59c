## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} ski_stats_chunk (@var{x}, @var{y}, @var{grid}, @var{opts}, @var{fname})
## Private: the body of ski_stats (also used by ski_gsgp); @var{opts} has
## first_row, bounds_policy, probes, seed, threads.
## @end deftypefn

function s = ski_stats_chunk (x, y, grid, opts, fname)
  policies = ski_bounds_policies ();
  grid = ski_check_grid (grid, fname, "grid");
  x = check_input_matrix (x, fname, "x");
  y = ski_check_y (y, rows (x), fname);
  if (columns (x) != numel (grid.size))
    arg_error (fname, "x", "has %d columns but the grid has %d dimensions", columns (x),
               numel (grid.size));
  endif
  policy = check_choice (opts.bounds_policy, policies, fname, "bounds_policy");
  first_row = check_count (opts.first_row, fname, "first_row", 0);
  probes = check_count (opts.probes, fname, "probes", 0);
  seed = check_count (opts.seed, fname, "seed", 0);
  verbose = check_flag (opts.verbose, fname, "verbose");
  threads = check_threads (opts.threads, fname);
  r = __sgp_ski_stats__ (x, y, grid.size, grid.bounds, grid.interpolation,
                         find (strcmp (policy, policies)) - 1, first_row, probes, seed,
                         verbose, threads, fname);
  s = struct ("class", "ski_stats", "grid", grid, "n", r.n, "yty", r.yty, "ysum", r.ysum,
              "Wty", r.Wty, "Wt1", r.Wt1, "WtW", r.WtW, "probes", probes,
              "probe_seed", seed, "rhoz", r.rhoz, "Wtz", r.Wtz, "version", 1);
endfunction
