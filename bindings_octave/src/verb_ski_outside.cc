// verb_ski_outside.cc -- __sgp_call__ ("ski_outside") behind ski_stats.m's chunk
// sources: the rows of x outside the grid, by the core's one definition
// (sgp_ski_outside), e.g. the rows that bounds_policy "drop" leaves out.
#include "sgp_octave_verbs.h"
#include "sgp_octave_ski.h"
extern "C" {
#include "ski/ski.h"
}

// Usage: rows = __sgp_call__ ("ski_outside", x, size, bounds, interpolation)
// Private: 1-based indices (a column) of the rows of x that lie outside
// the grid (size, bounds) with interpolation.
// See ski_stats.
octave_value_list
sgp_verbs::ski_outside (const octave_value_list& args, int)
{
  if (args.length () != 4)
    print_usage ();
  const std::string fn = "ski_stats";
  sgp_octave::context ctx (fn, 0);
  const Matrix x = sgp_octave::matrix_arg (args(0), fn, "x");
  const Matrix size = sgp_octave::matrix_arg (args(1), fn, "grid_size");
  const Matrix bounds = sgp_octave::matrix_arg (args(2), fn, "grid_bounds");
  const sgp_ski_interpolation interp
    = sgp_octave::ski_interp_of (sgp_octave::string_arg (args(3), fn, "interpolation"));
  sgp_ski_grid g;
  ctx.check (sgp_octave::ski_grid_of (ctx, size, bounds, interp, &g));
  if (x.columns () != g.d)
    error ("ski_outside: x does not match the grid");
  std::vector<double> out;
  for (octave_idx_type i = 0; i < x.rows (); i++)
    if (sgp_ski_outside (&g, interp, x.data () + i, x.rows ()))
      out.push_back (static_cast<double> (i + 1));
  ColumnVector rows (static_cast<octave_idx_type> (out.size ()));
  for (size_t k = 0; k < out.size (); k++)
    rows(k) = out[k];
  return ovl (rows);
}

/*
%!test
%! r = __sgp_call__ ("ski_outside", [0.5; 2; 0.5; -1], 10, [0 1], "cubic");
%! assert (r, [2; 4]);
%!error <Invalid call> __sgp_call__ ("ski_outside", 1)
*/
