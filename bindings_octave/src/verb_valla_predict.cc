// verb_valla_predict.cc -- __sgp_call__ ("valla_predict") behind scalegp_predict for
// valla fits: predictions from the plain-data fit struct (also after load), read
// by the core and written by it as plain data, and ("valla_fit_check"): the
// core's check of its fields.
#include "sgp_octave_verbs.h"
#include "sgp_valla_octave.h"

#include <memory>

namespace
{
  struct fit_deleter
  {
    void operator () (sgp_valla_result *f) const { sgp_valla_fit_free (f); }
  };
}

// Usage: __sgp_call__ ("valla_fit_check", fit, fname, arg)
// Private: the core's check of a valla fit's fields (errors name the function
// fname and the field, "'fit.P1' is missing ..." with arg = "fit").
octave_value_list
sgp_verbs::valla_fit_check (const octave_value_list& args, int)
{
  if (args.length () != 3 || ! args(1).is_string () || ! args(2).is_string ())
    print_usage ();
  sgp_octave::context ctx (args(1).string_value (), 0);
  sgp_octave::option_store keep;
  const sgp_value fv = sgp_octave::fit_value (args(0), keep);
  ctx.check (sgp_valla_fit_check (ctx.get (), &fv, args(2).string_value ().c_str (), "."));
  return ovl ();
}

// Usage: p = __sgp_call__ ("valla_predict", fit, xnew, name, value, ...)
// Private: valla predictions at xnew from a valla fit struct (plain data, also
// after load), read and checked by the core (errors name 'fit.<field>').
// The options go to the core's table "valla_predict" (type, full_cov,
// prob_method, mc_samples; seed and threads: the context's), which checks them.
// Returns the core's struct (sgp_valla_predict_result) with fields pred (mean,
// var: n-by-C; latent_var (gaussian); prob (softmax: n-by-classes, bernoulli:
// P(y = 1)); cov (with full_cov: C-by-C-by-n latent covariance blocks)) and type
// (the checked type's name).
// See scalegp_predict, valla.
octave_value_list
sgp_verbs::valla_predict (const octave_value_list& args, int)
{
  if (args.length () < 2 || args.length () % 2)
    print_usage ();

  // ---- get inputs
  const std::string fn = "scalegp_predict";
  sgp_octave::context ctx (fn, 0);
  sgp_octave::option_store keep;
  sgp_valla_predict_opts po;
  sgp_octave::verb_options (ctx, "valla_predict", sgp_valla_predict_opts_default, args, 2, po,
                            keep);
  const sgp_value fv = sgp_octave::fit_value (args(0), keep);
  const Matrix xnew = sgp_octave::matrix_arg (args(1), fn, "xnew");

  // ---- compute (no Octave error inside)
  sgp_valla_result *raw = nullptr;
  int st = sgp_valla_fit_read (ctx.get (), &fv, "fit", ".", &raw);
  std::unique_ptr<sgp_valla_result, fit_deleter> fit (raw);
  if (! st)
    st = sgp_valla_predict_check (ctx.get (), fit->likelihood, &po);
  ctx.check (st);

  // ---- return results
  return ovl (sgp_octave::build_map ([&] (sgp_value_arena *a)
    {
      sgp_value out;
      st = sgp_valla_predict_result (ctx.get (), fit.get (), sgp_octave::cview (xnew), &po,
                                     a, &out);
      return out;
    }, [&] () { ctx.check (st); }));
}

/*
%!shared model, fit
%! model = struct ("W", {{[1 -1 0.5], [0.3; -0.2; 0.8]}}, "b", {{[0.1 0 -0.1], 0.2}},
%!                 "activation", "tanh");
%! fit = struct ("model", model, "likelihood", "gaussian", "method", "valla",
%!               "inducing", zeros (0, 1), "tags", [], "layers", [], "L", [], "P1", [], "P2", [],
%!               "prior", true, "closed_form", false, "prior_var", 2, "noise", 0.1, "y_mean", 0,
%!               "y_sd", 1, "n", 1, "d", 1, "C", 1, "n_class", 1, "iterations", 0,
%!               "best_iteration", 0, "stopped_early", false, "clamps", 0,
%!               "history", struct ("objective", [], "validation",
%!                                  struct ("iteration", [], "nll", [])),
%!               "x_range", [0; 1]);
%!test
%! ## no inducing points: the prior s0 J J' plus noise; the mean is the network output
%! xs = [-1; 0.5];
%! r = __sgp_call__ ("valla_predict", fit, xs, "full_cov", true, "seed", 1);
%! p = r.pred;
%! a = tanh (xs * model.W{1} + model.b{1});
%! assert (p.mean, a * model.W{2} + model.b{2}, 1e-14);
%! J = @(i) [kron((1 - a(i,:).^2) .* model.W{2}', xs(i)), (1 - a(i,:).^2) .* model.W{2}', a(i,:), 1];
%! k = 2 * [sumsq(J (1)); sumsq(J (2))];
%! assert (p.latent_var, k, 1e-13);
%! assert (p.var, k + 0.1, 1e-13);
%! assert (squeeze (p.cov), k, 1e-13);
%! assert (r.type, "list");
%!error <'fit.P1' is missing> __sgp_call__ ("valla_predict", rmfield (fit, "P1"), 0)
%!error <newdata has 2 columns> __sgp_call__ ("valla_predict", fit, [0 0])
%!error <'fit.prior_var' must be one positive> __sgp_call__ ("valla_predict", setfield (fit, "prior_var", 0), 0)
%!error <'prob_method' must be one of> __sgp_call__ ("valla_predict", fit, 0, "prob_method", "laplace")
%!error <'fit.closed_form' is missing> __sgp_call__ ("valla_predict", rmfield (fit, "closed_form"), 0)
%!error <'fit.prior' must be TRUE or FALSE> __sgp_call__ ("valla_predict", setfield (fit, "prior", "yes"), 0)
%!error <'prior' a fit without inducing points has prior = true> __sgp_call__ ("valla_predict", setfield (fit, "prior", false), 0)
%!error <'fit.model.weights\{1\}' contains NaN> __sgp_call__ ("valla_predict", setfield (fit, "model", struct ("weights", {{NaN}}, "biases", {{0}})), 0)
*/
