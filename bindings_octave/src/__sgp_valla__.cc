// __sgp_valla__.cc -- private oct-file behind valla.m: the VaLLA / exact LLA /
// ELLA fit of a pre-trained MLP (spec shared/spec/valla.md).
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

  double
  num (const octave_scalar_map& o, const char *name, const std::string& fn)
  {
    if (! o.isfield (name))
      error ("%s: options: missing field %s", fn.c_str (), name);
    return sgp_octave::scalar_arg (o.getfield (name), fn, name);
  }

  int64_t
  count (const octave_scalar_map& o, const char *name, const std::string& fn)
  {
    const double v = num (o, name, fn);
    return std::isfinite (v) ? static_cast<int64_t> (v) : -1;
  }

  // The numbers and the init_A choice of the options struct (the inducing
  // points, layers and backend come separately).
  void
  numeric_opts (const octave_scalar_map& om, const std::string& fn, sgp_valla_opts& o)
  {
    o.prior_var = num (om, "prior_var", fn);
    o.noise = num (om, "noise", fn);
    o.learn = static_cast<unsigned> (num (om, "learn", fn));
    o.closed_form = num (om, "closed_form", fn) != 0;
    o.iterations = count (om, "iterations", fn);
    o.batch_size = count (om, "batch_size", fn);
    o.lr = num (om, "lr", fn);
    o.alpha = num (om, "alpha", fn);
    o.eval_every = count (om, "eval_every", fn);
    o.patience = count (om, "patience", fn);
    o.restore_best = num (om, "restore_best", fn) != 0;
    o.beta1 = num (om, "beta1", fn);
    o.beta2 = num (om, "beta2", fn);
    o.adam_eps = num (om, "adam_eps", fn);
    const std::string init_A = sgp_octave::string_arg (om.getfield ("init_A"), fn, "init_A");
    if (init_A != "identity" && init_A != "closed_form")
      error ("%s: init_A: unknown value \"%s\"", fn.c_str (), init_A.c_str ());
    o.init_A = init_A == "closed_form" ? SGP_VALLA_INIT_CLOSED_FORM : SGP_VALLA_INIT_IDENTITY;
    o.standardize_y = num (om, "standardize_y", fn) != 0;
    o.kmeans_iter = count (om, "kmeans_iter", fn);
    o.kmeans_max = count (om, "kmeans_max", fn);
    o.jitter = num (om, "jitter", fn);
    const double cmb = num (om, "cache_max_bytes", fn);
    o.cache_max_bytes = cmb >= 0 && cmb < 9e18 ? static_cast<size_t> (cmb) : (size_t) -1;
    o.val_frac = num (om, "val_frac", fn);
    o.val_max = count (om, "val_max", fn);
    o.lla_max = count (om, "lla_max", fn);
    o.ella_rank = count (om, "ella_rank", fn);
  }

  // The fit as the struct valla.m returns (R's valla list).
  octave_scalar_map
  fit_value (const sgp_valla_fit_t *fit)
  {
    const int64_t M = fit->M, D = fit->D;
    octave_scalar_map val, hist;   // as R's history: objective, validation (iteration, nll)
    val.assign ("iteration", sgp_octave::column_copy (fit->n_eval, fit->trace_val_iter));
    val.assign ("nll", sgp_octave::column_copy (fit->n_eval, fit->trace_val));
    hist.assign ("objective", sgp_octave::column_copy (fit->iterations, fit->trace_obj));
    hist.assign ("validation", val);
    octave_scalar_map res;
    res.assign ("model", sgp_valla_octave::net_value (fit->net));
    res.assign ("inducing", sgp_octave::matrix_copy (M, D, M > 0 ? fit->Z : nullptr));
    res.assign ("tags", M > 0 ? octave_value (sgp_octave::column_copy (M, fit->tags, 1.0))
                              : octave_value (Matrix ()));
    res.assign ("L", sgp_octave::matrix_copy (M, M, fit->L));
    res.assign ("P1", sgp_octave::matrix_copy (M, M, fit->P1));
    res.assign ("P2", sgp_octave::matrix_copy (M, M, fit->P2));
    res.assign ("prior", fit->prior != 0);
    res.assign ("closed_form", fit->closed_form != 0);
    res.assign ("prior_var", sgp_valla_fit_prior_var (fit));
    res.assign ("noise", fit->likelihood == SGP_LIK_GAUSSIAN
                         ? octave_value (sgp_valla_fit_noise (fit)) : octave_value (Matrix ()));
    res.assign ("y_mean", fit->y_mean);
    res.assign ("y_sd", fit->y_sd);
    res.assign ("history", hist);
    res.assign ("iterations", static_cast<double> (fit->iterations));
    res.assign ("best_iteration", static_cast<double> (fit->best_iteration));
    res.assign ("clamps", static_cast<double> (fit->clamps));
    res.assign ("stopped_early", fit->stopped_early != 0);
    res.assign ("kernel_cache", fit->kernel_cache != 0);
    res.assign ("n_train", static_cast<double> (fit->N));
    res.assign ("stop_reason", sgp_valla_stop_name (fit->stop));
    res.assign ("advice", sgp_valla_stop_advice (fit->stop));
    res.assign ("diverged_at", static_cast<double> (fit->diverged_at));
    return res;
  }
}

DEFUN_DLD (__sgp_valla__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {@var{res} =} __sgp_valla__ (@var{model}, @var{x}, @var{y}, @var{opts}, @var{xval}, @var{yval}, @var{inducing}, @var{inducing_tags}, @var{layers}, @var{seed}, @var{verbose}, @var{threads})\n\
@deftypefnx {} {@var{res} =} __sgp_valla__ (@dots{}, @var{interrupt_after})\n\
Private: the valla fit of scalegp's C core.\n\
\n\
@var{model} is a network struct (W, b cell arrays, activation, optional\n\
output, skip, transpose); @var{y} holds targets or labels 0..C-1 as\n\
doubles; @var{opts} a struct of the core options (likelihood, method,\n\
init_A and backend as strings, the others numbers); @var{xval}, @var{yval},\n\
@var{inducing} (M-by-d) and @var{inducing_tags} (0-based) may be empty.\n\
Returns a struct with fields model, inducing, tags (1-based), L, P1, P2,\n\
prior, closed_form, prior_var, noise, y_mean, y_sd, history, iterations,\n\
stop_reason,\n\
advice (the core's warning text, \"\" when nothing went wrong), diverged_at,\n\
best_iteration, clamps, stopped_early, kernel_cache and n_train.\n\
\n\
Use @code{valla}, which validates its arguments; this function only checks\n\
types (the core checks values).\n\
@seealso{valla}\n\
@end deftypefn")
{
  if (args.length () != 12 && args.length () != 13)
    print_usage ();

  // ---- get inputs
  const std::string fn = "valla";
  sgp_octave::context ctx (fn, sgp_octave::run_args_of (args, 10, fn));
  sgp_valla_octave::mlp_spec spec;
  sgp_valla_octave::mlp_arg (args(0), fn, spec);
  const Matrix x = sgp_octave::matrix_arg (args(1), fn, "x");
  const Matrix y = sgp_octave::matrix_arg (args(2), fn, "y");
  if (! args(3).isstruct ())
    error ("%s: opts must be a struct", fn.c_str ());
  const octave_scalar_map om = args(3).scalar_map_value ();
  const Matrix xval = sgp_octave::matrix_arg (args(4), fn, "validation.x");
  const Matrix yval = sgp_octave::matrix_arg (args(5), fn, "validation.y");
  const Matrix inducing = sgp_octave::matrix_arg (args(6), fn, "inducing");
  const Matrix tags_in = sgp_octave::matrix_arg (args(7), fn, "inducing_tags");
  const std::vector<int> layers
    = sgp_valla_octave::layers_arg (args(8), fn, spec.mlp.n_layers);
  ctx.set_seed (args(9));

  sgp_valla_opts o;
  sgp_valla_opts_default (&o);
  o.likelihood = sgp_valla_octave::likelihood_of (
    sgp_octave::string_arg (om.getfield ("likelihood"), fn, "likelihood"), fn);
  o.method = sgp_valla_octave::method_of (
    sgp_octave::string_arg (om.getfield ("method"), fn, "method"), fn);
  o.n_inducing = count (om, "n_inducing", fn);
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
  numeric_opts (om, fn, o);
  o.layers = layers.empty () ? nullptr : layers.data ();
  const std::string backend = sgp_octave::string_arg (om.getfield ("backend"), fn, "backend");
  ctx.set_backend (backend);

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
  return ovl (fit_value (fit.get ()));
}

/*
%!shared model, x, y, o
%! model = struct ("W", {{[1 -1 0.5], [0.3; -0.2; 0.8]}}, "b", {{[0.1 0 -0.1], 0.2}},
%!                 "activation", "tanh");
%! x = linspace (-2, 2, 8)';
%! y = sin (x);
%! o = struct ("likelihood", "gaussian", "method", "lla", "n_inducing", 4, "prior_var", 1,
%!             "noise", 0.1, "learn", 0, "closed_form", 0, "iterations", 0,
%!             "batch_size", 8, "lr", 1e-3, "alpha", 1, "eval_every", 100, "patience", 1,
%!             "restore_best", 1, "beta1", 0.9, "beta2", 0.999, "adam_eps", 1e-8,
%!             "init_A", "identity", "standardize_y", 1, "kmeans_iter", 10,
%!             "kmeans_max", 50000, "jitter", 1e-8, "cache_max_bytes", 2^31,
%!             "val_frac", 0.1, "val_max", -1, "lla_max", 5000, "ella_rank", 20,
%!             "backend", "cpu");
%!test
%! r = __sgp_valla__ (model, x, y, o, [], [], [], [], [], 1, false, 0);
%! assert (r.prior_var, 1, 1e-14);
%! assert (r.noise, 0.1, 1e-14);
%! assert (r.model.W{1}, model.W{1});
%! assert (r.model.activation, "tanh");
%! assert (rows (r.inducing), 8);
%!error <x has 2 columns> __sgp_valla__ (model, [x x], y, o, [], [], [], [], [], 1, false, 0)
%!error <W\[2\] must be> __sgp_valla__ (setfield (model, "W", {[1 -1 0.5], [1; 2]}), x, y, o, [], [], [], [], [], 1, false, 0)
%!error <model.W and model.b must be cell arrays> __sgp_valla__ (struct ("W", 1, "b", 1, "activation", "tanh"), x, y, o, [], [], [], [], [], 1, false, 0)
%!error <unknown activation> __sgp_valla__ (setfield (model, "activation", "swish"), x, y, o, [], [], [], [], [], 1, false, 0)
%!error <Invalid call> __sgp_valla__ (1)
*/
