// verb_ski_laplace.cc -- __sgp_call__ ("ski_laplace") behind ski_laplace.m: the
// data as views, the options by name to the core's table, and the fit the core
// writes as plain data.
#include "sgp_octave_verbs.h"
#include "sgp_octave.h"
#include "sgp_octave_ski.h"

#include <cstring>

// Usage: r = __sgp_call__ ("ski_laplace", x, y, ydim, offset, trials, xtest, stats, name, value, ...)
// Private: the ski_laplace fit of scalegp's C core.  x: locations (points,
// binned, scattered) or [] (cells);
// y: one value per cell (NaN: no data), per row of x, or [] (points); ydim:
// the grid's shape of a cells y ([] for a vector); offset, trials, xtest: [] or
// the data; stats: a ski_stats struct (points layout) or [].  The options come as name/value pairs and go to the core's option
// table.  Returns the struct the core writes (sgp_ski_laplace_run).
// See ski_laplace.
octave_value_list
sgp_verbs::ski_laplace (const octave_value_list& args, int)
{
  if (args.length () < 7)
    print_usage ();
  const std::string fn = "ski_laplace";
  sgp_octave::context ctx (fn, 0, false);
  sgp_ski_laplace_opts o;
  sgp_octave::option_store keep;
  sgp_octave::verb_options (ctx, "ski_laplace", sgp_ski_laplace_opts_default, args, 7, o, keep);
  static const char *const names[] = {"x", "y", "ydim", "offset", "trials", "xtest"};
  Matrix m[6];
  sgp_cmat v[6];
  for (int i = 0; i < 6; i++)
    {
      m[i] = sgp_octave::matrix_arg (args(i), fn, names[i]);
      v[i] = m[i].isempty () ? sgp_cmat {nullptr, 0, 0, 1} : sgp_octave::cview (m[i]);
    }
  sgp_octave::ski_stats_view sv;
  const bool has_stats = ! args(6).isempty ();
  if (has_stats)
    sgp_octave::ski_stats_arg (ctx, args(6), sv);
  const sgp_ski_laplace_data d = {v[0], v[1], v[2], v[3], v[4], v[5], has_stats ? &sv.d : nullptr};
  int st = SGP_OK;
  octave_scalar_map out = sgp_octave::build_map ([&] (sgp_value_arena *a) {
    sgp_value r;
    std::memset (&r, 0, sizeof r);
    st = sgp_ski_laplace_run (ctx.get (), &o, &d, a, &r);
    return r;
  }, [&] () { ctx.check (st); });
  return ovl (out);
}

// Usage: __sgp_call__ ("ski_laplace_predict", fit, fname, arg)
// Usage: p = __sgp_call__ ("ski_laplace_predict", fit, fname, arg, xnew, xname, name, value, ...)
// Private: checks a ski_laplace fit struct (plain data, also after save/load) as
// the core does for both hosts, errors naming the function fname and the field
// ("'fit.weights' ..." with arg = "fit").  With xnew (named xname in errors)
// and the options "type", "variance", "offset" (table "ski_laplace_predict"):
// the core's predictions, a struct with fields pred (mean, var, response,
// response_var) and type.  See scalegp_predict, ski_laplace.
octave_value_list
sgp_verbs::ski_laplace_predict (const octave_value_list& args, int)
{
  if (args.length () != 3 && args.length () < 5)
    print_usage ();
  const std::string fn = args(1).string_value (), arg = args(2).string_value ();
  sgp_octave::context ctx (fn, 0);
  sgp_octave::option_store keep;
  const sgp_value fit = sgp_octave::fit_value (args(0), keep);
  sgp_ski_laplace_predict_opts o;
  sgp_ski_laplace_predict_opts_default (&o);
  Matrix xnew;
  std::string xname = "xnew";
  sgp_cmat xv = {nullptr, 0, 0, 1};
  if (args.length () >= 5)
    {
      xname = args(4).string_value ();
      xnew = sgp_octave::matrix_arg (args(3), fn, xname.c_str ());
      xv = sgp_octave::cview (xnew);
      ctx.check (sgp_octave::forward_options (ctx, "ski_laplace_predict", args, 5, &o, keep));
    }
  int st = SGP_OK;
  if (args.length () == 3)  // the check only
    {
      sgp_value_arena *a = sgp_value_arena_new ();
      sgp_value p;
      st = a ? sgp_ski_laplace_predict_plain (ctx.get (), &fit, arg.c_str (), ".", &o, xv, a, &p)
             : SGP_ENOMEM;
      sgp_value_arena_free (a);
      ctx.check (st);
      return ovl ();
    }
  return ovl (sgp_octave::build_map ([&] (sgp_value_arena *a)
    {
      sgp_value p;
      st = sgp_ski_laplace_predict_plain (ctx.get (), &fit, arg.c_str (), ".", &o, xv, a, &p);
      return p;
    }, [&] ()
    {
      sgp_ctx_rename_arg (ctx.get (), "xtest", xname.c_str ());
      ctx.check (st);
    }));
}

/*
%!test
%! y = [0 1 2; 3 1 0; 0 0 5; 1 2 1];
%! r = __sgp_call__ ("ski_laplace", [], y, size (y), [], [], [], [], "lengthscale", 1.5,
%!                   "outputscale", 1, "mean", 0, "verbose", false);
%! assert (r.converged);
%! assert (numel (r.weights), 12);
%!test
%! y = [0 1 2; 3 1 0; 0 0 5; 1 2 1];
%! fit = ski_laplace ([], y, "lengthscale", 1.5, "outputscale", 1, "mean", 0,
%!                    "xtest", [1.5 2; 3 1], "verbose", false);
%! r = __sgp_call__ ("ski_laplace_predict", fit, "f", "fit", [1.5 2; 3 1], "xnew");
%! assert (r.pred.mean, fit.test.mean);
%! assert (r.pred.var, fit.test.var);
%! assert (r.type, "list");
%!error <f: 'fit.weights' has 2 values; need 12> __sgp_call__ ("ski_laplace_predict", setfield (ski_laplace ([], [0 1 2; 3 1 0; 0 0 5; 1 2 1], "lengthscale", 1, "outputscale", 1, "mean", 0, "verbose", false), "weights", [1; 2]), "f", "fit")
%!error <ski_laplace: 'layout' must be one of> __sgp_call__ ("ski_laplace", [], 1, [], [], [], [], [], "layout", "x")
*/
