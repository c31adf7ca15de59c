// verb_mlp_fit.cc -- __sgp_call__ ("mlp_fit") behind mlp_fit.m: the seeded MAP
// trainer for an MLP (Adam, weight decay; docs/valla.md).
#include "sgp_octave_verbs.h"
#include "sgp_valla_octave.h"

#include <algorithm>
#include <climits>
#include <cmath>

// Usage: r = __sgp_call__ ("mlp_fit", x, y, widths, activation, init, name, value, ...)
// Private: trains an MLP of layer widths widths (d, hidden..., C) by
// Adam from Glorot-initialized weights, or from the network struct init
// when it is not empty.  y: targets, or labels 0..C-1 as doubles.  The
// options follow as name/value pairs, checked and stored by the core's table
// (__sgp_call__ ("options", "mlp_fit")) and the context's (backend, seed,
// verbose, threads).
// Returns the core's struct (sgp_valla_mlp_fit_plain): model (the network:
// weights, biases, activation, output, skip), loss (the final full-data mean
// loss), initial_loss, iterations, stop_reason, diverged_at and used
// (likelihood, seed and warning: the core's warning text, "" when nothing went
// wrong).
// See mlp_fit.
octave_value_list
sgp_verbs::mlp_fit (const octave_value_list& args, int)
{
  if (args.length () < 5)
    print_usage ();

  // ---- get inputs
  const std::string fn = "mlp_fit";
  sgp_octave::context ctx (fn, 0);
  sgp_valla_mlp_fit_opts o;
  sgp_octave::option_store keep;
  sgp_octave::verb_options (ctx, "mlp_fit", sgp_valla_mlp_fit_opts_default, args, 5, o, keep);
  const Matrix x = sgp_octave::matrix_arg (args(0), fn, "x");
  const Matrix y = sgp_octave::matrix_arg (args(1), fn, "y");
  const Matrix wd = sgp_octave::matrix_arg (args(2), fn, "widths");
  std::vector<int64_t> width;
  for (octave_idx_type i = 0; i < wd.numel (); i++)
    width.push_back (static_cast<int64_t> (wd(i)));
  const std::string aname = sgp_octave::string_arg (args(3), fn, "activation");
  sgp_activation act;
  if (sgp_valla_activation_from_name (aname.c_str (), &act) != SGP_OK)
    error ("%s: activation: unknown activation \"%s\"", fn.c_str (), aname.c_str ());
  const bool has_init = ! args(4).isempty ();
  sgp_valla_octave::net_holder net;
  if (has_init)
    sgp_valla_octave::net_arg (ctx, args(4), "init", net);
  if (width.size () < 2)
    error ("%s: widths must have at least 2 entries", fn.c_str ());

  // ---- compute (no Octave error inside)
  const int64_t nb = std::min<int64_t> (o.batch_size, x.rows ());
  int st = SGP_OK;
  if (! has_init)   // sizes refused before anything is allocated
    {
      const int L = static_cast<int> (width.size () - 1);
      st = sgp_valla_mlp_check_size (ctx.get (), L, width.data (), 0, nb);
      if (! st)
        st = sgp_valla_net_new (ctx.get (), L, width.data (), act, &net.net);
    }
  ctx.check (st);
  sgp_valla_mlp_fit_info info;
  st = sgp_valla_mlp_fit (ctx.get (), &net.net, sgp_octave::cview (x), sgp_octave::cview (y),
                          &o, &info);

  // ---- return results
  ctx.check (st);
  return ovl (sgp_octave::build_map ([&] (sgp_value_arena *a)
    { return sgp_valla_mlp_fit_plain (&net.net, &info, &o, ctx.get ()->seed, a); }));
}

/*
%!test
%! x = linspace (-2, 2, 40)';
%! r = __sgp_call__ ("mlp_fit", x, sin (x), [1 10 1], "tanh", [], "iterations", 500, "batch_size", 20, "lr", 1e-2, "seed", 1);
%! m = r.model;
%! assert (size (m.weights{1}), [1 10]);
%! assert (size (m.weights{2}), [10 1]);
%! assert (m.activation, "tanh");
%! assert (r.loss < 0.05);
%! r2 = __sgp_call__ ("mlp_fit", x, sin (x), [1 10 1], "tanh", [], "iterations", 500, "batch_size", 20, "lr", 1e-2, "seed", 1);
%! assert (r2.model.weights{1}, m.weights{1});
%!error <widths> __sgp_call__ ("mlp_fit", 1, 1, 1, "tanh", [], "iterations", 5)
%!error <unknown activation> __sgp_call__ ("mlp_fit", 1, 1, [1 1], "swish", [])
%!error <mlp_fit: 'lr' must be positive> __sgp_call__ ("mlp_fit", 1, 1, [1 1], "tanh", [], "lr", 0)
*/
