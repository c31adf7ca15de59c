// verb_ski_predict.cc -- __sgp_call__ ("ski_predict") behind scalegp_predict (and the fit
// checks of scalegp_summary / scalegp_plot_data) for ski_gsgp fits: the core
// checks the fit struct and the options, then predicts mean and latent variance.
#include "sgp_octave_verbs.h"
#include "sgp_octave.h"

// Usage: __sgp_call__ ("ski_predict", fit, fname, arg)
// Usage: p = __sgp_call__ ("ski_predict", fit, fname, arg, xtest, xarg, name, value, ...)
// Private: checks a ski_gsgp fit struct (plain data, also after save/load) as the
// core does for both hosts, errors naming the function fname and the field
// ("'fit.weights' ..." with arg = "fit").  With xtest
// (named xarg in errors) and the options "variance", "backend"
// (by default the fit's) and "threads": the core's predictions
// (sgp_ski_predict_plain), a struct with fields mean, var (empty with
// variance "none"), converged (false when the variances are not resolved),
// var_error (the bound on their relative error, NA when not known), clamped
// (variances set to 0 from below) and warning (the core's words when the
// variances are not resolved or some were clamped, else empty).
// See ski_gsgp, scalegp_predict.
octave_value_list
sgp_verbs::ski_predict (const octave_value_list& args, int)
{
  if (args.length () != 3 && args.length () < 5)
    print_usage ();
  const std::string fn = args(1).string_value (), arg = args(2).string_value ();
  sgp_octave::context ctx (fn, 0);
  sgp_octave::option_store keep;
  const sgp_value fit = sgp_octave::fit_value (args(0), keep);
  sgp_ski_fit_view v;
  ctx.check (sgp_ski_fit_check (ctx.get (), &fit, arg.c_str (), ".", &v));
  if (args.length () == 3)
    return ovl ();
  const std::string xarg = args(4).string_value ();
  const Matrix xs = sgp_octave::matrix_arg (args(3), fn, xarg.c_str ());
  sgp_ski_predict_opts o;
  ctx.check (sgp_ski_predict_opts_default (ctx.get (), &v, &o));
  sgp_octave::apply_options (ctx, "ski_gsgp_predict", args, 5, &o, keep);

  int st = SGP_OK;
  return ovl (sgp_octave::build_map ([&] (sgp_value_arena *a)
    {
      sgp_value p;
      st = sgp_ski_predict_plain (ctx.get (), &v, &o, sgp_octave::cview (xs), fn.c_str (), a,
                                  &p);
      return p;
    }, [&] ()
    {
      sgp_ctx_rename_arg (ctx.get (), "xtest", xarg.c_str ());
      ctx.check (st);
    }));
}

/*
%!error <Invalid call> __sgp_call__ ("ski_predict", 1)
%!error <f: 'fit' must be a ski_gsgp fit> __sgp_call__ ("ski_predict", 1, "f", "fit")
*/
