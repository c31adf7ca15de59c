// __sgp_ski_grid__.cc -- private oct-file behind ski_grid.m: the grid of a
// ski_gsgp model (automatic sizes and bounds of the core).
#include "sgp_octave_ski.h"

DEFUN_DLD (__sgp_ski_grid__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {[@var{size}, @var{bounds}] =} __sgp_ski_grid__ (@var{range}, @var{n}, @var{grid_size}, @var{grid_bounds}, @var{interpolation}, @var{grid_pad}, @var{lengthscale}, @var{fname})\n\
Private: the grid of scalegp's ski_gsgp core.\n\
\n\
@var{range} is d-by-2 (min, max per dimension), @var{n} the number of data\n\
points, @var{grid_size} d values (0 = automatic), @var{grid_bounds} d-by-2 or\n\
empty (from @var{range} plus @var{grid_pad} cells; -1 = default pad),\n\
@var{lengthscale} empty or 1 or d values (for the automatic size).  Errors\n\
start with @var{fname}.  Use @code{ski_grid}.\n\
@seealso{ski_grid}\n\
@end deftypefn")
{
  if (args.length () != 8)
    print_usage ();
  const std::string fn = sgp_octave::string_arg (args(7), "__sgp_ski_grid__", "fname");
  sgp_octave::context ctx (fn, 0);
  const Matrix range = sgp_octave::matrix_arg (args(0), fn, "range");
  const double n = sgp_octave::scalar_arg (args(1), fn, "n");
  const Matrix size = sgp_octave::matrix_arg (args(2), fn, "grid_size");
  const Matrix bounds = sgp_octave::matrix_arg (args(3), fn, "grid_bounds");
  const std::string interp = sgp_octave::string_arg (args(4), fn, "interpolation");
  const long pad = sgp_octave::integer_arg (args(5), fn, "grid_pad", -1, 1000000);
  const Matrix ell = sgp_octave::matrix_arg (args(6), fn, "lengthscale");
  const octave_idx_type d = range.rows ();
  if (range.cols () != 2 || d < 1 || d > SGP_SKI_MAX_D || size.numel () != d)
    error ("%s: the grid needs 1 to %d dimensions", fn.c_str (), SGP_SKI_MAX_D);

  sgp_ski_opts o;
  sgp_ski_grid g;
  sgp_ski_opts_default (&o);
  for (octave_idx_type j = 0; j < d; j++)
    {
      if (! (size(j) >= 0 && size(j) <= INT_MAX)) // 0: automatic
        error ("%s: 'grid_size' must be whole numbers in 1..%d", fn.c_str (), INT_MAX);
      o.grid_size[j] = static_cast<int64_t> (size(j));
    }
  o.grid_bounds = bounds.isempty () ? nullptr : bounds.data ();
  o.interpolation = sgp_octave::ski_interp_of (interp);
  o.grid_pad = static_cast<int> (pad);
  o.kernel.lengthscale = ell.isempty () ? nullptr : ell.data ();
  o.kernel.n_lengthscale = ell.numel ();
  const int st = sgp_ski_make_grid (ctx.get (), sgp_octave::cview (range),
                                    static_cast<int64_t> (n), &o, &g);
  ctx.check (st);

  Matrix gsize (1, d), gb (d, 2);
  for (octave_idx_type j = 0; j < d; j++)
    {
      gsize(j) = static_cast<double> (g.m[j]);
      gb(j, 0) = g.lo[j];
      gb(j, 1) = g.m[j] > 1 ? g.lo[j] + static_cast<double> (g.m[j] - 1) * g.h[j] : g.lo[j];
    }
  return ovl (gsize, gb);
}

/*
%!test
%! [s, b] = __sgp_ski_grid__ ([0 1], 10, 11, [0 1], "cubic", -1, [], "t");
%! assert (s, 11);
%! assert (b, [0 1], 1e-15);
%!test
%! [s, b] = __sgp_ski_grid__ ([0 1], 10, 9, [], "cubic", -1, [], "t");
%! assert (s, 9);
%! h = 1 / (9 - 1 - 4);
%! assert (b, [-2*h, 1 + 2*h], 1e-14);
%!error <grid_size> __sgp_ski_grid__ ([0 1], 10, 3, [], "cubic", -1, [], "t")
%!error <Invalid call> __sgp_ski_grid__ (1)
*/
