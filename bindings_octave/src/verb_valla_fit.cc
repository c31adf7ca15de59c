// verb_valla_fit.cc -- __sgp_call__ ("valla_fit") behind valla.m: the VaLLA / exact LLA /
// ELLA fit of a pre-trained MLP (spec shared/spec/valla.md).
#include "sgp_octave_verbs.h"
#include "sgp_valla_octave.h"

#include <climits>
#include <cmath>
#include <memory>

namespace
{
  struct fit_deleter
  {
    void operator () (sgp_valla_fit_t *f) const { sgp_valla_fit_free (f); }
  };

  // The fit as plain data, with `used`: the options it used and its warning.
  octave_scalar_map
  result_value (const sgp_valla_fit_t& fit, const sgp_valla_opts& o, uint64_t seed)
  {
    const int64_t M = fit.M, D = fit.D;
    octave_scalar_map val, hist;   // as R's history: objective, validation (iteration, nll)
    val.assign ("iteration", sgp_octave::column_copy (fit.n_eval, fit.trace_val_iter));
    val.assign ("nll", sgp_octave::column_copy (fit.n_eval, fit.trace_val));
    hist.assign ("objective", sgp_octave::column_copy (fit.iterations, fit.trace_obj));
    hist.assign ("validation", val);
    octave_scalar_map res;
    res.assign ("model", sgp_valla_octave::net_value (fit.net));
    res.assign ("inducing", sgp_octave::matrix_copy (M, D, M > 0 ? fit.Z : nullptr));
    res.assign ("tags", M > 0 ? octave_value (sgp_octave::column_copy (M, fit.tags, 1.0))
                              : octave_value (Matrix ()));
    res.assign ("L", sgp_octave::matrix_copy (M, M, fit.L));
    res.assign ("P1", sgp_octave::matrix_copy (M, M, fit.P1));
    res.assign ("P2", sgp_octave::matrix_copy (M, M, fit.P2));
    res.assign ("prior", fit.prior != 0);
    res.assign ("closed_form", fit.closed_form != 0);
    res.assign ("prior_var", sgp_valla_fit_prior_var (&fit));
    res.assign ("noise", fit.likelihood == SGP_LIK_GAUSSIAN
                         ? octave_value (sgp_valla_fit_noise (&fit)) : octave_value (Matrix ()));
    res.assign ("y_mean", fit.y_mean);
    res.assign ("y_sd", fit.y_sd);
    res.assign ("history", hist);
    res.assign ("iterations", static_cast<double> (fit.iterations));
    res.assign ("best_iteration", static_cast<double> (fit.best_iteration));
    res.assign ("clamps", static_cast<double> (fit.clamps));
    res.assign ("stopped_early", fit.stopped_early != 0);
    res.assign ("kernel_cache", fit.kernel_cache != 0);
    res.assign ("n_train", static_cast<double> (fit.N));
    res.assign ("stop_reason", sgp_valla_stop_name (fit.stop));
    res.assign ("diverged_at", static_cast<double> (fit.diverged_at));
    char warn[512];
    sgp_valla_stop_warning (fit.stop, fit.diverged_at, warn, sizeof warn);
    octave_scalar_map used;   // the options the fit used, as R's used list
    used.assign ("likelihood", std::string (sgp_opt_choice_name ("gp_laplace", "likelihood", o.likelihood)));
    used.assign ("method", std::string (sgp_opt_choice_name ("valla", "method", o.method)));
    used.assign ("closed_form", o.closed_form != 0);
    used.assign ("seed", static_cast<double> (seed));
    used.assign ("warning", std::string (warn));
    char over[512];
    sgp_valla_overfit_warning (&fit, over, sizeof over);
    used.assign ("overfit", std::string (over));
    res.assign ("used", used);
    return res;
  }
}

// Usage: res = __sgp_call__ ("valla_fit", model, x, y, xval, yval, inducing, inducing_tags, layers, interrupt_after, name, value, ...)
// Private: the valla fit of scalegp's C core.
//
// model is a network struct (W, b cell arrays, activation, optional
// output, skip, transpose); y holds targets or labels 0..C-1 as
// doubles; xval, yval, inducing (M-by-d), inducing_tags
// (0-based) and layers (one 0/1 flag per layer) may be empty;
// interrupt_after (tests: -1 for none).  The options follow as name/value
// pairs, checked and stored by the core's table (__sgp_call__ ("options", "valla"))
// and the context's (backend, seed, verbose, threads).
// Returns a struct with fields model, inducing, tags (1-based), L, P1, P2,
// prior, closed_form, prior_var, noise, y_mean, y_sd, history, iterations,
// stop_reason, diverged_at, best_iteration, clamps, stopped_early,
// kernel_cache, n_train and used (likelihood, method, closed_form, seed and
// warning: the core's warning text, "" when nothing went wrong, and overfit:
// the overfitting warning, "" when none).
//
// Use valla, which shapes the data.
// See valla.
octave_value_list
sgp_verbs::valla_fit (const octave_value_list& args, int)
{
  if (args.length () < 9)
    print_usage ();

  // ---- get inputs
  const std::string fn = "valla";
  const long interrupt_after
    = sgp_octave::integer_arg (args(8), fn, "interrupt_after", -1, LONG_MAX);
  sgp_octave::context ctx (fn, 0, false, interrupt_after);
  sgp_valla_opts o;
  sgp_octave::option_store keep;
  sgp_octave::verb_options (ctx, "valla", sgp_valla_opts_default, args, 9, o, keep);
  ctx.check (sgp_valla_opts_check (ctx.get (), &o));
  sgp_valla_octave::mlp_spec spec;
  sgp_valla_octave::mlp_arg (args(0), fn, spec);
  const Matrix x = sgp_octave::matrix_arg (args(1), fn, "x");
  const Matrix y = sgp_octave::matrix_arg (args(2), fn, "y");
  const Matrix xval = sgp_octave::matrix_arg (args(3), fn, "validation.x");
  const Matrix yval = sgp_octave::matrix_arg (args(4), fn, "validation.y");
  const Matrix inducing = sgp_octave::matrix_arg (args(5), fn, "inducing");
  const Matrix tags_in = sgp_octave::matrix_arg (args(6), fn, "inducing_tags");
  const std::vector<int> layers
    = sgp_valla_octave::layers_arg (args(7), fn, spec.mlp.n_layers);
  std::vector<int> tags;
  if (! inducing.isempty ())
    {
      o.inducing = sgp_octave::cview (inducing);
      if (! tags_in.isempty ())
        {
          if (tags_in.numel () != inducing.rows ())
            error ("%s: inducing_tags must have one tag per row of inducing", fn.c_str ());
          for (octave_idx_type m = 0; m < tags_in.numel (); m++)
            tags.push_back (static_cast<int> (tags_in(m)));
          o.inducing_tags = tags.data ();
        }
    }
  o.layers = layers.empty () ? nullptr : layers.data ();

  // ---- compute (no Octave error inside)
  sgp_valla_net net;
  int st = sgp_valla_net_from_mlp (ctx.get (), &spec.mlp, &net);
  ctx.check (st);
  sgp_valla_fit_t *raw = nullptr;
  const sgp_cmat none = sgp_cmat_of (nullptr, 0, 0);
  st = sgp_valla_fit (ctx.get (), &net, sgp_octave::cview (x), sgp_octave::cview (y),
                      xval.isempty () ? none : sgp_octave::cview (xval),
                      yval.isempty () ? none : sgp_octave::cview (yval), &o, &raw);
  sgp_valla_net_free (&net);
  std::unique_ptr<sgp_valla_fit_t, fit_deleter> fit (raw);

  // ---- return results
  ctx.check (st);
  return ovl (result_value (*fit, o, ctx.get ()->seed));
}

/*
%!shared model, x, y
%! model = struct ("W", {{[1 -1 0.5], [0.3; -0.2; 0.8]}}, "b", {{[0.1 0 -0.1], 0.2}},
%!                 "activation", "tanh");
%! x = linspace (-2, 2, 8)';
%! y = sin (x);
%!test
%! r = __sgp_call__ ("valla_fit", model, x, y, [], [], [], [], [], -1, "method", "lla", "noise", 0.1,
%!                    "backend", "cpu", "seed", 1);
%! assert (r.prior_var, 1, 1e-14);
%! assert (r.noise, 0.1, 1e-14);
%! assert (r.model.W{1}, model.W{1});
%! assert (r.model.activation, "tanh");
%! assert (rows (r.inducing), 8);
%! assert (r.used.method, "lla");
%!error <x has 2 columns> __sgp_call__ ("valla_fit", model, [x x], y, [], [], [], [], [], -1, "method", "lla")
%!error <W\[2\] must be> __sgp_call__ ("valla_fit", setfield (model, "W", {[1 -1 0.5], [1; 2]}), x, y, [], [], [], [], [], -1)
%!error <model.W and model.b must be cell arrays> __sgp_call__ ("valla_fit", struct ("W", 1, "b", 1, "activation", "tanh"), x, y, [], [], [], [], [], -1)
%!error <unknown activation> __sgp_call__ ("valla_fit", setfield (model, "activation", "swish"), x, y, [], [], [], [], [], -1)
%!error <valla: 'lr' must be positive> __sgp_call__ ("valla_fit", model, x, y, [], [], [], [], [], -1, "lr", 0)
%!error <Invalid call> __sgp_call__ ("valla_fit", 1)
*/
