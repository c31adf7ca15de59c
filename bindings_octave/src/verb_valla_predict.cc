// verb_valla_predict.cc -- __sgp_call__ ("valla_predict") behind scalegp_predict for
// valla fits: predictions from the plain-data fit struct (also after load), and
// ("valla_fit_check"): the core's check of its fields.
#include "sgp_octave_verbs.h"
#include "sgp_valla_octave.h"

#include <climits>
#include <cmath>
#include <cstring>
#include <memory>

namespace
{
  struct fit_deleter
  {
    void operator () (sgp_valla_fit_t *f) const { sgp_valla_fit_free (f); }
  };

  octave_value
  get (const octave_scalar_map& m, const char *name, const std::string& fn)
  {
    if (! m.isfield (name))
      error ("%s: fit has no field '%s' (not a valla result?)", fn.c_str (), name);
    return m.getfield (name);
  }

  // A true/false field: a logical or a real 0/1 scalar.
  int
  flag (const octave_scalar_map& m, const char *name, const std::string& fn)
  {
    const octave_value v = get (m, name, fn);
    if (! ((v.islogical () || v.isreal ()) && ! v.is_string () && v.numel () == 1)
        || ! (v.double_value () == 0 || v.double_value () == 1))
      error ("%s: fit field '%s' must be true or false (the fit is damaged; refit it)",
             fn.c_str (), name);
    return v.double_value () != 0;
  }
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

// Usage: p = __sgp_call__ ("valla_predict", model, fit, xnew, name, value, ...)
// Private: valla predictions at xnew from the network struct model
// and the plain-data fields of a valla fit (likelihood, method, inducing, tags
// (1-based), layers, P1, P2, prior, closed_form, prior_var, noise, y_mean, y_sd).
// The options go to the core's table "valla_predict" (type, full_cov,
// prob_method, mc_samples; seed and threads: the context's), which checks them.
// Returns a struct with fields mean, var, latent_var (n-by-C), prob
// (classification: n-by-classes, probit or Monte-Carlo), cov (with full_cov:
// C-by-C-by-n latent covariance blocks) and type (the checked type's name).
// See scalegp_predict, valla.
octave_value_list
sgp_verbs::valla_predict (const octave_value_list& args, int)
{
  if (args.length () < 3 || args.length () % 2 == 0)
    print_usage ();

  // ---- get inputs
  const std::string fn = "scalegp_predict";
  sgp_octave::context ctx (fn, 0);
  sgp_octave::option_store keep;
  sgp_valla_predict_opts po;
  sgp_octave::verb_options (ctx, "valla_predict", sgp_valla_predict_opts_default, args, 3, po,
                            keep);
  const bool full_cov = po.full_cov, mc = po.mc;
  sgp_valla_octave::mlp_spec spec;
  sgp_valla_octave::mlp_arg (args(0), fn, spec);
  if (! args(1).isstruct () || args(1).numel () != 1)
    error ("%s: fit must be a struct", fn.c_str ());
  const octave_scalar_map f = args(1).scalar_map_value ();
  const Matrix xnew = sgp_octave::matrix_arg (args(2), fn, "xnew");

  sgp_valla_fit_data d;
  std::memset (&d, 0, sizeof d);
  d.likelihood = sgp_valla_octave::likelihood_of (
    sgp_octave::string_arg (get (f, "likelihood", fn), fn, "likelihood"), fn);
  ctx.check (sgp_valla_predict_check (ctx.get (), d.likelihood, &po));
  d.method = sgp_valla_octave::method_of (
    sgp_octave::string_arg (get (f, "method", fn), fn, "method"), fn);
  const Matrix Z = sgp_octave::matrix_arg (get (f, "inducing", fn), fn, "inducing");
  const Matrix tg = sgp_octave::matrix_arg (get (f, "tags", fn), fn, "tags");
  const Matrix P1 = sgp_octave::matrix_arg (get (f, "P1", fn), fn, "P1");
  const Matrix P2 = sgp_octave::matrix_arg (get (f, "P2", fn), fn, "P2");
  const std::vector<int> layers
    = sgp_valla_octave::layers_arg (get (f, "layers", fn), fn, spec.mlp.n_layers);
  std::vector<int> tags;
  if (! tg.isempty ())
    {
      if (tg.numel () != Z.rows ())
        error ("%s: tags must have one entry per row of inducing (%ld)", fn.c_str (),
               static_cast<long> (Z.rows ()));
      for (octave_idx_type m = 0; m < tg.numel (); m++)
        {
          if (tg(m) != std::round (tg(m)) || ! (tg(m) >= 1) || tg(m) > INT_MAX)
            error ("%s: tags must be whole numbers 1..C", fn.c_str ());
          tags.push_back (static_cast<int> (tg(m)) - 1);
        }
    }
  const sgp_cmat none = sgp_cmat_of (nullptr, 0, 0);
  d.inducing = Z.isempty () ? none : sgp_octave::cview (Z);
  d.tags = tags.empty () ? nullptr : tags.data ();
  d.layers = layers.empty () ? nullptr : layers.data ();
  d.P1 = P1.isempty () ? none : sgp_octave::cview (P1);
  d.P2 = P2.isempty () ? none : sgp_octave::cview (P2);
  d.prior = flag (f, "prior", fn);
  d.closed_form = flag (f, "closed_form", fn);
  d.prior_var = sgp_octave::scalar_arg (get (f, "prior_var", fn), fn, "prior_var");
  const octave_value nv = get (f, "noise", fn);   // [] for classification
  d.noise = nv.isempty () ? 0.0 : sgp_octave::scalar_arg (nv, fn, "noise");
  d.y_mean = sgp_octave::scalar_arg (get (f, "y_mean", fn), fn, "y_mean");
  d.y_sd = sgp_octave::scalar_arg (get (f, "y_sd", fn), fn, "y_sd");

  // ---- compute (no Octave error inside)
  sgp_valla_fit_t *raw = nullptr;
  int st = sgp_valla_fit_from_data (ctx.get (), &spec.mlp, &d, &raw);
  std::unique_ptr<sgp_valla_fit_t, fit_deleter> fit (raw);
  ctx.check (st);
  if (xnew.cols () != fit->D)
    error ("%s: xnew has %ld columns but the network expects %ld inputs", fn.c_str (),
           static_cast<long> (xnew.cols ()), static_cast<long> (fit->D));
  const octave_idx_type n = xnew.rows (), C = fit->C, K = fit->n_class;
  const bool cls = d.likelihood != SGP_LIK_GAUSSIAN;
  Matrix mean (n, C), var (n, C), lvar (n, C), prob (cls ? n : 0, cls ? K : 0);
  Matrix cov (full_cov ? C * C : 0, full_cov ? n : 0);
  st = sgp_valla_predict (ctx.get (), fit.get (), sgp_octave::cview (xnew),
                          sgp_octave::mview (mean), sgp_octave::mview (var),
                          sgp_octave::mview (lvar),
                          cls && ! mc ? sgp_octave::mview (prob)
                                                : sgp_mat_of (nullptr, 0, 0),
                          full_cov ? sgp_octave::mview (cov) : sgp_mat_of (nullptr, 0, 0));
  if (! st && cls && mc)
    st = sgp_valla_predict_mc (ctx.get (), fit.get (), sgp_octave::cview (xnew), po.mc_samples,
                               sgp_octave::mview (prob));

  // ---- return results
  ctx.check (st);
  octave_scalar_map p;
  p.assign ("mean", mean);
  p.assign ("var", var);
  p.assign ("latent_var", lvar);
  if (cls)
    p.assign ("prob", prob);
  if (full_cov)
    {
      NDArray c (dim_vector (C, C, n));
      std::copy (cov.data (), cov.data () + cov.numel (), c.fortran_vec ());
      p.assign ("cov", c);
    }
  p.assign ("type", std::string (sgp_opt_choice_name ("valla_predict", "type", po.type)));
  return ovl (p);
}

/*
%!shared model, fit
%! model = struct ("W", {{[1 -1 0.5], [0.3; -0.2; 0.8]}}, "b", {{[0.1 0 -0.1], 0.2}},
%!                 "activation", "tanh");
%! fit = struct ("likelihood", "gaussian", "method", "valla", "inducing", zeros (0, 1),
%!               "tags", [], "layers", [], "P1", [], "P2", [], "prior", true, "closed_form", false,
%!               "prior_var", 2, "noise", 0.1, "y_mean", 0, "y_sd", 1);
%!test
%! ## no inducing points: the prior s0 J J' plus noise; the mean is the network output
%! xs = [-1; 0.5];
%! p = __sgp_call__ ("valla_predict", model, fit, xs, "full_cov", true, "seed", 1);
%! a = tanh (xs * model.W{1} + model.b{1});
%! assert (p.mean, a * model.W{2} + model.b{2}, 1e-14);
%! J = @(i) [kron((1 - a(i,:).^2) .* model.W{2}', xs(i)), (1 - a(i,:).^2) .* model.W{2}', a(i,:), 1];
%! k = 2 * [sumsq(J (1)); sumsq(J (2))];
%! assert (p.latent_var, k, 1e-13);
%! assert (p.var, k + 0.1, 1e-13);
%! assert (squeeze (p.cov), k, 1e-13);
%!error <fit has no field 'P1'> __sgp_call__ ("valla_predict", model, rmfield (fit, "P1"), 0)
%!error <xnew has 2 columns> __sgp_call__ ("valla_predict", model, fit, [0 0])
%!error <prior_var must be positive> __sgp_call__ ("valla_predict", model, setfield (fit, "prior_var", 0), 0)
%!error <'prob_method' must be one of> __sgp_call__ ("valla_predict", model, fit, 0, "prob_method", "laplace")
%!error <fit has no field 'closed_form'> __sgp_call__ ("valla_predict", model, rmfield (fit, "closed_form"), 0)
%!error <field 'prior' must be true or false> __sgp_call__ ("valla_predict", model, setfield (fit, "prior", "yes"), 0)
%!error <'prior' a fit without inducing points has prior = true> __sgp_call__ ("valla_predict", model, setfield (fit, "prior", false), 0)
*/
