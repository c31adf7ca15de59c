// __sgp_ski_stats__.cc -- private oct-file behind ski_stats.m: the sufficient
// statistics of one chunk as plain matrices.
#include "sgp_octave_ski.h"

#include <climits>

DEFUN_DLD (__sgp_ski_stats__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {@var{s} =} __sgp_ski_stats__ (@var{x}, @var{y}, @var{size}, @var{bounds}, @var{interpolation}, @var{policy}, @var{first_row}, @var{probes}, @var{seed}, @var{verbose}, @var{nthreads}, @var{fname})\n\
Private: SKI sufficient statistics of the rows of @var{x} (n-by-d) and\n\
@var{y} (n-by-1) on the grid (@var{size}, @var{bounds}).  @var{policy} is the\n\
bounds policy code (0 error, 1 truncate, 2 clamp, 3 drop).  Returns a struct\n\
with fields n, yty, ysum, Wty, Wt1, WtW, rhoz, Wtz.  Use @code{ski_stats}.\n\
@seealso{ski_stats}\n\
@end deftypefn")
{
  if (args.length () != 12)
    print_usage ();
  const std::string fn = sgp_octave::string_arg (args(11), "__sgp_ski_stats__", "fname");
  const long nthreads = sgp_octave::integer_arg (args(10), fn, "threads", 0, INT_MAX);
  sgp_octave::context ctx (fn, static_cast<int> (nthreads), args(9).bool_value ());
  const Matrix x = sgp_octave::matrix_arg (args(0), fn, "x");
  const Matrix y = sgp_octave::matrix_arg (args(1), fn, "y");
  const Matrix size = sgp_octave::matrix_arg (args(2), fn, "grid_size");
  const Matrix bounds = sgp_octave::matrix_arg (args(3), fn, "grid_bounds");
  const std::string interp = sgp_octave::string_arg (args(4), fn, "interpolation");
  const long policy = sgp_octave::integer_arg (args(5), fn, "bounds_policy", 0, 3);
  const double first_row = sgp_octave::scalar_arg (args(6), fn, "first_row");
  const long probes = sgp_octave::integer_arg (args(7), fn, "probes", 0, INT_MAX);
  const double seed = sgp_octave::scalar_arg (args(8), fn, "seed");

  sgp_ski_grid g;
  sgp_ski_opts o;
  int64_t m = 0, S = 0;
  sgp_ski_opts_default (&o);
  o.interpolation = sgp_octave::ski_interp_of (interp);
  ctx.check (sgp_octave::ski_grid_of (ctx, size, bounds, o.interpolation, &g));
  o.bounds_policy = static_cast<sgp_ski_bounds_policy> (policy);
  o.probes = probes;
  o.seed = static_cast<uint64_t> (seed);
  ctx.check (sgp_ski_stats_shape (ctx.get (), &g, o.interpolation, &m, &S));

  // ---- compute (no Octave error inside)
  Matrix Wtz (m, probes);
  double rhoz = 0.0;
  sgp_ski_stats *st = nullptr;
  sgp_ski_stats_data d;
  int code = sgp_ski_stats_compute (ctx.get (), &g, &o, sgp_octave::cview (x),
                                    sgp_octave::cview (y), static_cast<int64_t> (first_row),
                                    &st, probes > 0 ? Wtz.fortran_vec () : nullptr, &rhoz);
  if (! code)
    code = sgp_ski_stats_export (ctx.get (), st, &d);
  if (code)
    {
      sgp_ski_stats_free (st);
      ctx.check (code);
    }
  const Matrix Wty = sgp_octave::matrix_copy (m, 1, d.uy);
  const Matrix Wt1 = sgp_octave::matrix_copy (m, 1, d.u1);
  const Matrix WtW = sgp_octave::matrix_copy (m, S, d.D);
  octave_scalar_map out;
  out.assign ("n", static_cast<double> (d.n));
  out.assign ("yty", d.yy);
  out.assign ("ysum", d.ysum);
  sgp_ski_stats_free (st);
  out.assign ("Wty", Wty);
  out.assign ("Wt1", Wt1);
  out.assign ("WtW", WtW);
  out.assign ("rhoz", rhoz);
  out.assign ("Wtz", Wtz);
  return ovl (out);
}

/*
%!test
%! s = __sgp_ski_stats__ ([0.5; 1.5], [1; 2], 10, [-1 3], "linear", 0, 0, 0, 1, false, 0, "t");
%! assert (s.n, 2);
%! assert (s.yty, 5);
%! assert (sum (s.Wt1), 2, 1e-14);
%! assert (size (s.WtW), [10 3]);
%!error <outside> __sgp_ski_stats__ (5, 1, 10, [-1 3], "linear", 0, 0, 0, 1, false, 0, "t")
%!error <Invalid call> __sgp_ski_stats__ (1)
*/
