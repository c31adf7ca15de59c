// verb_ski_laplace.cc -- __sgp_call__ ("ski_laplace") behind ski_laplace.m: the
// data as views, the options by name to the core's table, and the fit the core
// writes as plain data.
#include "sgp_octave_verbs.h"
#include "sgp_octave.h"

#include <cstring>

// Usage: r = __sgp_call__ ("ski_laplace", x, y, ydim, offset, trials, xtest, name, value, ...)
// Private: the ski_laplace fit of scalegp's C core.  x: points or [] (cells);
// y: one value per cell (NaN: no data), per row of x, or [] (points); ydim:
// the grid's shape of a cells y ([] for a vector); offset, trials, xtest: [] or
// the data.  The options come as name/value pairs and go to the core's option
// table.  Returns the struct the core writes (sgp_ski_laplace_run).
// See ski_laplace.
octave_value_list
sgp_verbs::ski_laplace (const octave_value_list& args, int)
{
  if (args.length () < 6)
    print_usage ();
  const std::string fn = "ski_laplace";
  sgp_octave::context ctx (fn, 0, false);
  sgp_ski_laplace_opts o;
  sgp_octave::option_store keep;
  sgp_octave::verb_options (ctx, "ski_laplace", sgp_ski_laplace_opts_default, args, 6, o, keep);
  static const char *const names[] = {"x", "y", "ydim", "offset", "trials", "xtest"};
  Matrix m[6];
  sgp_cmat v[6];
  for (int i = 0; i < 6; i++)
    {
      m[i] = sgp_octave::matrix_arg (args(i), fn, names[i]);
      v[i] = m[i].isempty () ? sgp_cmat {nullptr, 0, 0, 1} : sgp_octave::cview (m[i]);
    }
  const sgp_ski_laplace_data d = {v[0], v[1], v[2], v[3], v[4], v[5]};
  int st = SGP_OK;
  octave_scalar_map out = sgp_octave::build_map ([&] (sgp_value_arena *a) {
    sgp_value r;
    std::memset (&r, 0, sizeof r);
    st = sgp_ski_laplace_run (ctx.get (), &o, &d, a, &r);
    return r;
  }, [&] () { ctx.check (st); });
  return ovl (out);
}

/*
%!test
%! y = [0 1 2; 3 1 0; 0 0 5; 1 2 1];
%! r = __sgp_call__ ("ski_laplace", [], y, size (y), [], [], [], "lengthscale", 1.5,
%!                   "outputscale", 1, "mean", 0, "verbose", false);
%! assert (r.converged);
%! assert (numel (r.weights), 12);
%!error <ski_laplace: 'layout' must be one of> __sgp_call__ ("ski_laplace", [], 1, [], [], [], [], "layout", "x")
*/
