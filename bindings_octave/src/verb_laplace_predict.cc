// verb_laplace_predict.cc -- __sgp_call__ ("laplace_predict") behind scalegp_predict (and the
// fit checks of scalegp_summary / scalegp_plot_data) for gp_laplace fits: the core
// checks the fit struct, the options and the new inputs, then predicts.
#include "sgp_octave_verbs.h"
#include "sgp_octave.h"

// Usage: t = __sgp_call__ ("laplace_predict", fit, fname, arg)
// Usage: p = __sgp_call__ ("laplace_predict", fit, fname, arg, xnew, xname, oname, name, value, ...)
// Private: checks a gp_laplace fit struct (plain data, also after save/load) as the
// core does for both hosts, errors naming the function fname and the field
// ("'fit.root' ..." with arg = "fit"), and gives what summary and plot read
// (sgp_laplace_train_plain: loglik, accuracy, plot_scale, plot_y).  With xnew
// (named xname in errors; the offset oname) and the options "offset", "type",
// "threads": the core's predictions (sgp_laplace_predict_plain), a struct
// with fields pred (mean, var (latent, m-by-C) and the response: prob, rate_mean
// and rate_var, or y_var) and type (the checked type's name).
// See scalegp_predict, gp_laplace.
octave_value_list
sgp_verbs::laplace_predict (const octave_value_list& args, int)
{
  if (args.length () != 3 && args.length () < 6)
    print_usage ();
  const std::string fn = args(1).string_value (), arg = args(2).string_value ();
  sgp_octave::context ctx (fn, 0);
  sgp_octave::option_store keep;
  const sgp_value fit = sgp_octave::fit_value (args(0), keep);
  sgp_laplace_result view;
  sgp_kernel k;
  ctx.check (sgp_laplace_fit_check (ctx.get (), &fit, arg.c_str (), ".", &view, &k));
  if (args.length () == 3)  // the check: what summary and plot read
    {
      int st = SGP_OK;
      return ovl (sgp_octave::build_map ([&] (sgp_value_arena *a)
        {
          sgp_value t;
          st = sgp_laplace_train_plain (ctx.get (), &fit, a, &t);
          return t;
        }, [&] () { ctx.check (st); }));
    }
  const std::string xname = args(4).string_value (), oname = args(5).string_value ();
  const Matrix xnew = sgp_octave::matrix_arg (args(3), fn, xname.c_str ());
  sgp_laplace_predict_opts o;
  sgp_laplace_predict_opts_default (&o);
  int st = sgp_octave::forward_options (ctx, "gp_laplace_predict", args, 6, &o, keep);
  if (! st)
    st = sgp_laplace_predict_check (ctx.get (), &view, &o, xnew.rows ());
  sgp_ctx_rename_arg (ctx.get (), "offset", oname.c_str ());  // gp_laplace's xtest_offset
  ctx.check (st);

  return ovl (sgp_octave::build_map ([&] (sgp_value_arena *a)
    {
      sgp_value p;
      st = sgp_laplace_predict_plain (ctx.get (), &view, sgp_octave::cview (xnew), o.offset, a,
                                      &p);
      const char *type = sgp_opt_choice_name ("gp_laplace_predict", "type", o.type);
      return st ? p : sgp_predict_result_plain (p, type, a);
    }, [&] ()
    {
      sgp_ctx_rename_arg (ctx.get (), "xtest", xname.c_str ());
      ctx.check (st);
    }));
}

/*
%!shared fit
%! fit = gp_laplace ([0; 1; 2], [0; 1; 1], "max_iter", 3, "seed", 1, "learn", {});
%!test
%! r = __sgp_call__ ("laplace_predict", fit, "f", "fit", [0; 0.5], "xnew", "offset");
%! assert (size (r.pred.mean), [2 1]);
%! assert (size (r.pred.prob), [2 1]);
%! assert (r.type, "list");
%!error <f: 'fit.weights' is 2 x 1; need 3 x 1> __sgp_call__ ("laplace_predict", setfield (fit, "weights", [1; 2]), "f", "fit")
%!error <f: 'fit' must be a gp_laplace fit> __sgp_call__ ("laplace_predict", 1, "f", "fit")
%!error <f: 'xnew' has 2 columns> __sgp_call__ ("laplace_predict", fit, "f", "fit", [0 0], "xnew", "offset")
%!error <f: 'offset' is only used with likelihood = "poisson"> __sgp_call__ ("laplace_predict", fit, "f", "fit", 0, "xnew", "offset", "offset", 1)
*/
