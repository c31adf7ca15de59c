// verb_ski_shape.cc -- __sgp_call__ ("ski_shape") behind ski_check_stats.m: the
// sizes of statistics on a grid, from the core (the fronts compute none).
#include "sgp_octave_verbs.h"
#include "sgp_octave_ski.h"

// Usage: [m, S] = __sgp_call__ ("ski_shape", size, bounds, interpolation, fname)
// Private: grid points m and stencil offsets S of SKI statistics on
// the grid (size, bounds) with interpolation.  Errors start
// with fname.
// See ski_stats.
octave_value_list
sgp_verbs::ski_shape (const octave_value_list& args, int)
{
  if (args.length () != 4)
    print_usage ();
  const std::string fn = sgp_octave::string_arg (args(3), "ski_shape", "fname");
  sgp_octave::context ctx (fn, 0);
  const Matrix size = sgp_octave::matrix_arg (args(0), fn, "grid_size");
  const Matrix bounds = sgp_octave::matrix_arg (args(1), fn, "grid_bounds");
  const sgp_ski_interpolation interp
    = sgp_octave::ski_interp_of (sgp_octave::string_arg (args(2), fn, "interpolation"));
  sgp_ski_grid g;
  int64_t m = 0, S = 0;
  ctx.check (sgp_octave::ski_grid_of (ctx, size, bounds, interp, &g));
  ctx.check (sgp_ski_stats_shape (ctx.get (), &g, interp, &m, &S));
  return ovl (static_cast<double> (m), static_cast<double> (S));
}

/*
%!test
%! [m, S] = __sgp_call__ ("ski_shape", [10 5], [0 1; 0 1], "cubic", "t");
%! assert ([m, S], [50, 49]);
%!error <Invalid call> __sgp_call__ ("ski_shape", 1)
*/
