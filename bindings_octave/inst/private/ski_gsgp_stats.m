## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {[@var{stats}, @var{lengthscale}] =} ski_gsgp_stats (@var{x}, @var{y}, @var{has_data}, @var{opts}, @var{given}, @var{o}, @var{fname})
## Private: the statistics ski_gsgp fits from: those of @var{x}, @var{y} on a
## grid made from the options, or the given @qcode{"stats"} (checked against
## the other options); and the checked lengthscale (one or d values).
## @var{opts}, @var{given}: from parse_options; @var{o}: ski_gsgp_options.
## @end deftypefn

function [stats, lengthscale] = ski_gsgp_stats (x, y, has_data, opts, given, o, fname)
  check_grid_pad (opts, o, fname);
  if (isempty (opts.stats))
    if (! has_data)
      arg_error (fname, "x", "and 'y' are needed (or \"stats\")");
    endif
    if (columns (x) > 8)
      arg_error (fname, "x", "has %d columns; the grid supports at most 8", columns (x));
    endif
    lengthscale = check_positive (opts.lengthscale, fname, "lengthscale", [1, columns(x)]);
    range = [min(x, [], 1).', max(x, [], 1).'];
    grid = ski_make_grid (range, rows (x), opts.grid_size, opts.grid_bounds,
                          opts.interpolation, lengthscale, opts.grid_pad, fname);
    copts = struct ("first_row", 0, "bounds_policy", o.bounds_policy,
                    "probes", if_else (o.loglik, o.probes, 0), "seed", o.seed,
                    "verbose", o.verbose, "threads", o.threads);
    stats = ski_stats_chunk (x, y, grid, copts, fname);
  else
    [stats, lengthscale] = given_stats (x, has_data, opts, given, o, fname);
  endif
  if (strcmp (o.method, "ski") && ! has_data)
    arg_error (fname, "x", "and 'y' are needed by method \"ski\" (the statistics are not enough)");
  endif
  ## (with bounds_policy "drop" the statistics count the kept rows only; the
  ## core compares those)
  if (strcmp (o.method, "ski") && ! strcmp (o.bounds_policy, "drop") && rows (x) != stats.n)
    arg_error (fname, "x", "has %d rows but 'stats' count %d points", rows (x), stats.n);
  endif
  if (o.precond_rank >= prod (stats.grid.size))
    arg_error (fname, "precond_rank", "must be less than the %d grid points",
               prod (stats.grid.size));
  endif
endfunction

## A grid_pad that leaves the data at the edges outside the valid range.
function check_grid_pad (opts, o, fname)
  if (isempty (opts.grid_pad) || ! isempty (opts.grid_bounds) || ! isempty (opts.stats)
      || ! strcmp (o.bounds_policy, "error"))
    return;
  endif
  need = if_else (strcmpi (opts.interpolation, "linear"), 0, 1);
  gp = opts.grid_pad;
  if (isnumeric (gp) && isreal (gp) && isscalar (gp) && ! isnan (gp) && gp < need)
    arg_error (fname, "grid_pad", ["is %g: with fewer than %d cell of padding the data at ", ...
                                   "the edges fall outside the valid range of %s ", ...
                                   "interpolation (use grid_pad >= %d, or bounds_policy ", ...
                                   "\"clamp\", \"truncate\" or \"drop\")"],
               gp, need, opts.interpolation, need);
  endif
endfunction

## The "stats" option: it fixes the grid and interpolation.
function [stats, lengthscale] = given_stats (x, has_data, opts, given, o, fname)
  if (given.grid_size || given.grid_bounds || given.grid_pad)
    arg_error (fname, "stats", "fixes the grid: leave \"grid_size\", \"grid_bounds\" and \"grid_pad\" unset");
  endif
  stats = ski_check_stats (opts.stats, fname, "stats");
  stats.class = "ski_stats";
  if (given.interpolation && ! strcmpi (opts.interpolation, stats.grid.interpolation))
    arg_error (fname, "interpolation", "differs from that of 'stats' (\"%s\")",
               stats.grid.interpolation);
  endif
  d = numel (stats.grid.size);
  if (has_data && columns (x) != d)
    arg_error (fname, "x", "has %d columns but 'stats' has a %d-dimensional grid",
               columns (x), d);
  endif
  lengthscale = check_positive (opts.lengthscale, fname, "lengthscale", [1, d]);
  if (o.loglik && stats.probes < 1)
    arg_error (fname, "stats", "has no probe sketches for \"loglik\"; make them with ski_stats (..., \"probes\", %d)", o.probes);
  endif
endfunction
