// verb_valla_fit.cc -- __sgp_call__ ("valla_fit") behind valla.m: the VaLLA / exact LLA /
// ELLA fit of a pre-trained MLP (docs/valla.md).
#include "sgp_octave_verbs.h"
#include "sgp_valla_octave.h"

#include <climits>
#include <cmath>
#include <memory>

namespace
{
  struct fit_deleter
  {
    void operator () (sgp_valla_result *f) const { sgp_valla_fit_free (f); }
  };
}

// Usage: res = __sgp_call__ ("valla_fit", model, x, y, xval, yval, inducing, inducing_tags, layers, interrupt_after, name, value, ...)
// Private: the valla fit of scalegp's C core.
//
// model is a network struct (weights, biases: cell arrays; activation,
// optional output, skip, transpose; or the older W, b), read and checked by
// the core; y holds targets or labels 0..C-1 as
// doubles; xval, yval, inducing (M-by-d), inducing_tags
// (0-based) and layers (one 0/1 flag per layer) may be empty;
// interrupt_after (tests: -1 for none).  The options follow as name/value
// pairs, checked and stored by the core's table (__sgp_call__ ("options", "valla"))
// and the context's (backend, seed, verbose, threads).
// Returns the core's struct (sgp_valla_fit_plain) with fields fit (model,
// inducing, tags (1-based), L, prior_var, noise, history, ..., x_range, seed,
// stop_reason, diverged_at: the fields of R's valla list), warning (the core's
// warning text, "" when nothing went wrong) and overfit (the overfitting
// warning, "" when none).
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
  sgp_valla_octave::net_holder net;
  sgp_valla_octave::net_arg (ctx, args(0), "model", net);
  const Matrix x = sgp_octave::matrix_arg (args(1), fn, "x");
  const Matrix y = sgp_octave::matrix_arg (args(2), fn, "y");
  const Matrix xval = sgp_octave::matrix_arg (args(3), fn, "validation.x");
  const Matrix yval = sgp_octave::matrix_arg (args(4), fn, "validation.y");
  const Matrix inducing = sgp_octave::matrix_arg (args(5), fn, "inducing");
  const Matrix tags_in = sgp_octave::matrix_arg (args(6), fn, "inducing_tags");
  const std::vector<int> layers
    = sgp_valla_octave::layers_arg (args(7), fn, net.net.n_layers);
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
  sgp_valla_result *raw = nullptr;
  const sgp_cmat none = sgp_cmat_of (nullptr, 0, 0);
  const int st = sgp_valla_fit (ctx.get (), &net.net, sgp_octave::cview (x),
                                sgp_octave::cview (y),
                                xval.isempty () ? none : sgp_octave::cview (xval),
                                yval.isempty () ? none : sgp_octave::cview (yval), &o, &raw);
  std::unique_ptr<sgp_valla_result, fit_deleter> fit (raw);

  // ---- return results
  ctx.check (st);
  const sgp_valla_fit_parts p = {fit.get (), &o, ctx.get ()->seed, sgp_octave::cview (x),
                                 nullptr};
  return ovl (sgp_octave::build_map ([&] (sgp_value_arena *a)
                                     { return sgp_valla_fit_plain (&p, a); }));
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
%! assert (r.fit.prior_var, 1, 1e-14);
%! assert (r.fit.noise, 0.1, 1e-14);
%! assert (r.fit.model.weights{1}, model.W{1});
%! assert (r.fit.model.activation, "tanh");
%! assert (rows (r.fit.inducing), 8);
%! assert (r.fit.method, "lla");
%!error <x has 2 columns> __sgp_call__ ("valla_fit", model, [x x], y, [], [], [], [], [], -1, "method", "lla")
%!error <'model.W\{2\}' has 2 rows but layer 1 has 3 outputs> __sgp_call__ ("valla_fit", setfield (model, "W", {[1 -1 0.5], [1; 2]}), x, y, [], [], [], [], [], -1)
%!error <'model.W' must be a non-empty list of matrices> __sgp_call__ ("valla_fit", struct ("W", 1, "b", 1, "activation", "tanh"), x, y, [], [], [], [], [], -1)
%!error <'model.activation' is unknown> __sgp_call__ ("valla_fit", setfield (model, "activation", "swish"), x, y, [], [], [], [], [], -1)
%!error <valla: 'lr' must be positive> __sgp_call__ ("valla_fit", model, x, y, [], [], [], [], [], -1, "lr", 0)
%!error <Invalid call> __sgp_call__ ("valla_fit", 1)
*/
