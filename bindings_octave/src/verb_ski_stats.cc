// verb_ski_stats.cc -- __sgp_call__ ("ski_stats") behind ski_stats.m: the options by
// name to the core's table "ski_stats" and the sufficient statistics of one
// chunk as the struct of ski_stats.
#include "sgp_octave_verbs.h"
#include "sgp_octave_ski.h"

namespace
{
  struct stats_guard
  {
    sgp_ski_stats *st = nullptr;
    ~stats_guard (void) { sgp_ski_stats_free (st); }
  };
}

// Usage: s = __sgp_call__ ("ski_stats", x, y, grid, name, value, ...)
// Private: SKI sufficient statistics of the rows of x (n-by-d) and
// y (n-by-1) on grid (a ski_grid, ski_stats or ski_gsgp struct, or a struct
// with size, bounds and interpolation; the core reads and checks it).  The options come as name/value pairs and go to the core's
// option table, which checks them.  Returns the ski_stats struct (class, grid,
// n, yty, ysum, Wty, Wt1, WtW, probes, probe_seed, rhoz, Wtz, version).  Use
// ski_stats.
// See ski_stats.
octave_value_list
sgp_verbs::ski_stats (const octave_value_list& args, int)
{
  if (args.length () < 3)
    print_usage ();
  const std::string fn = "ski_stats";
  sgp_octave::context ctx (fn, 0);
  sgp_ski_stats_opts o;
  sgp_octave::option_store keep;
  sgp_octave::verb_options (ctx, "ski_stats", sgp_ski_stats_opts_default, args, 3, o, keep);
  const Matrix x = sgp_octave::matrix_arg (args(0), fn, "x");
  const Matrix y = sgp_octave::matrix_arg (args(1), fn, "y");
  // the grid as the user gave it, read and checked by the core
  const sgp_value gv = sgp_octave::fit_value (args(2), keep);
  sgp_ski_grid_data gd;
  ctx.check (sgp_ski_grid_read (ctx.get (), &gv, "grid", ".", &gd));
  const sgp_ski_grid& g = gd.grid;
  o.ski.interpolation = gd.interpolation;
  o.ski.grid_bounds = gd.bounds;
  int64_t m = 0, S = 0;
  ctx.check (sgp_ski_stats_shape (ctx.get (), &g, o.ski.interpolation, &m, &S));

  // ---- compute (no Octave error inside)
  const int64_t np = o.ski.probes;
  Matrix Wtz (m, np);
  double rhoz = 0.0;
  stats_guard sg;
  sgp_ski_stats_data d;
  int code = sgp_ski_stats_compute (ctx.get (), &g, &o.ski, sgp_octave::cview (x),
                                    sgp_octave::cview (y), o.first_row, &sg.st,
                                    np > 0 ? Wtz.fortran_vec () : nullptr, &rhoz);
  if (! code)
    code = sgp_ski_stats_export (ctx.get (), sg.st, &d);
  ctx.check (code);

  // ---- return results
  d.probes = np;
  d.probe_seed = o.ski.seed;
  d.rhoz = rhoz;
  d.uz = np > 0 ? Wtz.data () : nullptr;
  return ovl (sgp_octave::ski_stats_map (d, gd.bounds));
}

/*
%!shared g
%! g = struct ("size", 10, "bounds", [-1 3], "interpolation", "linear");
%!test
%! s = __sgp_call__ ("ski_stats", [0.5; 1.5], [1; 2], g);
%! assert (s.n, 2);
%! assert (s.yty, 5);
%! assert (sum (s.Wt1), 2, 1e-14);
%! assert (size (s.WtW), [10 3]);
%! assert ([s.probes, s.probe_seed], [0, 1]);
%!error <outside> __sgp_call__ ("ski_stats", 5, 1, g)
%!error <ski_stats: 'probes' must be a whole number> __sgp_call__ ("ski_stats", 5, 1, g, "probes", -1)
%!error <ski_stats: 'grid.size' must have 1 to 8 values> __sgp_call__ ("ski_stats", 5, 1, setfield (g, "size", ones (1, 9)))
%!error <Invalid call> __sgp_call__ ("ski_stats", 1)
*/
