// verb_ski_grid_check.cc -- __sgp_call__ ("ski_grid_check"): a grid given as plain
// data read and checked by the core (sgp_ski_grid_read), for the fronts that
// index a grid: ski_stats' chunk sources, the grid of statistics and of a fit.
#include "sgp_octave_verbs.h"
#include "sgp_octave_ski.h"

// Usage: g = __sgp_call__ ("ski_grid_check", grid, fname, arg)
// Private: the core's check of grid (a ski_grid struct, a ski_stats or ski_gsgp
// struct whose grid is read, or a struct with size, bounds and interpolation),
// errors naming the function fname and the argument arg ("'fit.grid.size' ...").
// Returns the grid as ski_grid writes it: size (1-by-d), bounds (d-by-2, the
// given numbers) and interpolation.
// See ski_stats.
octave_value_list
sgp_verbs::ski_grid_check (const octave_value_list& args, int)
{
  if (args.length () != 3 || ! args(1).is_string () || ! args(2).is_string ())
    print_usage ();
  sgp_octave::context ctx (args(1).string_value (), 0);
  const std::string arg = args(2).string_value ();
  sgp_octave::option_store keep;
  const sgp_value v = sgp_octave::fit_value (args(0), keep);
  sgp_ski_grid_data g;
  ctx.check (sgp_ski_grid_read (ctx.get (), &v, arg.c_str (), ".", &g));
  return ovl (sgp_octave::build_map ([&] (sgp_value_arena *a) {
    return sgp_ski_grid_plain (&g.grid, g.interpolation, g.bounds, a);
  }));
}

/*
%!test
%! g = __sgp_call__ ("ski_grid_check", struct ("size", int32 ([10; 12]), "bounds", [0 1; -1 1],
%!                   "interpolation", "linear"), "ski_stats", "grid");
%! assert (g.size, [10 12]);
%! assert (g.bounds, [0 1; -1 1]);
%! assert (g.interpolation, "linear");
%!test
%! s = struct ("n", 1, "grid", struct ("size", 5, "bounds", [0 2], "interpolation", "cubic"));
%! g = __sgp_call__ ("ski_grid_check", s, "ski_stats", "grid");
%! assert (g.size, 5);
%!error <ski_stats: 'grid' must be a grid from ski_grid> __sgp_call__ ("ski_grid_check", 3, "ski_stats", "grid")
%!error <scalegp_predict: 'fit.grid.size' must be whole numbers .= 1 \(got 2.5\)> __sgp_call__ ("ski_grid_check", struct ("size", 2.5, "bounds", [0 1], "interpolation", "cubic"), "scalegp_predict", "fit.grid")
%!error <ski_stats: 'grid.interpolation' must be one of "cubic", "linear"> __sgp_call__ ("ski_grid_check", struct ("size", 5, "bounds", [0 1], "interpolation", "spline"), "ski_stats", "grid")
%!error <Invalid call> __sgp_call__ ("ski_grid_check", 1)
*/
