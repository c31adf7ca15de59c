// verb_ski_grid.cc -- __sgp_call__ ("ski_grid") behind ski_grid.m: the options by
// name to the core's table "ski_grid" and the grid of x, of a range or of
// grid_bounds with grid_size (automatic sizes and bounds of the core).
#include "sgp_octave_verbs.h"
#include "sgp_octave_ski.h"

// Usage: grid = __sgp_call__ ("ski_grid", x, range, name, value, ...)
// Private: the grid of scalegp's ski_gsgp core.
//
// x: n-by-d data (or []); range: d-by-2 (min, max per dimension;
// or []).  The options come as name/value pairs and go to the core's option
// table, which checks them.  Returns a struct with fields size (1-by-d),
// bounds (d-by-2; given bounds are kept exactly) and interpolation.  Use
// ski_grid.
// See ski_grid.
octave_value_list
sgp_verbs::ski_grid (const octave_value_list& args, int)
{
  if (args.length () < 2)
    print_usage ();
  const std::string fn = "ski_grid";
  const Matrix x = sgp_octave::matrix_arg (args(0), fn, "x");
  const Matrix range = sgp_octave::matrix_arg (args(1), fn, "range");
  sgp_octave::context ctx (fn, 0);
  sgp_ski_grid_opts o;
  sgp_octave::option_store keep;
  sgp_octave::verb_options (ctx, "ski_grid", sgp_ski_grid_opts_default, args, 2, o, keep);
  const sgp_cmat none = {nullptr, 0, 0, 1};
  sgp_ski_grid g;
  ctx.check (sgp_ski_grid_make (ctx.get (), &o, x.isempty () ? none : sgp_octave::cview (x),
                                range.isempty () ? none : sgp_octave::cview (range), &g));

  const double *ub = o.ski.grid_bounds;  // given bounds are kept exactly
  return ovl (sgp_octave::build_map ([&] (sgp_value_arena *a) {
    return sgp_ski_grid_plain (&g, o.ski.interpolation, ub, a);
  }));
}

/*
%!test
%! g = __sgp_call__ ("ski_grid", [], [], "grid_size", 11, "grid_bounds", [0 1]);
%! assert (g.size, 11);
%! assert (g.bounds, [0 1]);
%!test
%! g = __sgp_call__ ("ski_grid", [], [0 1], "grid_size", 9);
%! assert (g.size, 9);
%! h = 1 / (9 - 1 - 4);
%! assert (g.bounds, [-2*h, 1 + 2*h], 1e-14);
%!error <ski_grid: 'grid_size'> __sgp_call__ ("ski_grid", [], [0 1], "grid_size", 3)
%!error <ski_grid: 'x' is needed> __sgp_call__ ("ski_grid", [], [])
%!error <Invalid call> __sgp_call__ ("ski_grid", 1)
*/
