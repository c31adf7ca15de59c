// verb_mlp_fit.cc -- __sgp_call__ ("mlp_fit") behind mlp_fit.m: the seeded MAP
// trainer for an MLP (Adam, weight decay; spec shared/spec/valla.md).
#include "sgp_octave_verbs.h"
#include "sgp_valla_octave.h"

#include <algorithm>
#include <climits>
#include <cmath>

// Usage: [model, loss, info] = __sgp_call__ ("mlp_fit", x, y, widths, activation, init, name, value, ...)
// Private: trains an MLP of layer widths widths (d, hidden..., C) by
// Adam from Glorot-initialized weights, or from the network struct init
// when it is not empty.  y: targets, or labels 0..C-1 as doubles.  The
// options follow as name/value pairs, checked and stored by the core's table
// (__sgp_call__ ("options", "mlp_fit")) and the context's (backend, seed,
// verbose, threads).
// Returns the network struct (W, b, activation, output, skip), the final
// full-data mean loss and a struct with initial_loss, iterations, stop_reason,
// diverged_at and used (likelihood, seed and warning: the core's warning text,
// "" when nothing went wrong).
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
  const sgp_activation act = sgp_valla_octave::activation_arg (args(3), fn, "activation");
  const bool has_init = ! args(4).isempty ();
  sgp_valla_octave::mlp_spec init;
  if (has_init)
    sgp_valla_octave::mlp_arg (args(4), fn, init);
  if (width.size () < 2)
    error ("%s: widths must have at least 2 entries", fn.c_str ());

  // ---- compute (no Octave error inside)
  sgp_valla_net net;
  const int64_t nb = std::min<int64_t> (o.batch_size, x.rows ());
  int st = has_init ? SGP_OK   // sizes refused before anything is allocated
                    : sgp_valla_mlp_check_size (ctx.get (), static_cast<int> (width.size () - 1),
                                                width.data (), 0, nb);
  if (! st)
    st = has_init ? sgp_valla_net_from_mlp (ctx.get (), &init.mlp, &net)
                  : sgp_valla_net_new (ctx.get (), static_cast<int> (width.size () - 1),
                                       width.data (), act, &net);
  ctx.check (st);
  sgp_valla_mlp_fit_info info;
  st = sgp_valla_mlp_fit (ctx.get (), &net, sgp_octave::cview (x), sgp_octave::cview (y), &o,
                          &info);
  octave_scalar_map model;
  if (! st)
    model = sgp_valla_octave::net_value (net);
  sgp_valla_net_free (&net);

  // ---- return results
  ctx.check (st);
  octave_scalar_map res;
  res.assign ("initial_loss", info.initial_loss);
  res.assign ("iterations", static_cast<double> (info.iterations));
  res.assign ("stop_reason", sgp_valla_stop_name (info.stop));
  res.assign ("diverged_at", static_cast<double> (info.diverged_at));
  char warn[512];
  sgp_valla_stop_warning (info.stop, info.diverged_at, warn, sizeof warn);
  octave_scalar_map used;
  used.assign ("likelihood", std::string (sgp_opt_choice_name ("gp_laplace", "likelihood", o.likelihood)));
  used.assign ("seed", static_cast<double> (ctx.get ()->seed));
  used.assign ("warning", std::string (warn));
  res.assign ("used", used);
  return ovl (model, info.final_loss, res);
}

/*
%!test
%! x = linspace (-2, 2, 40)';
%! [m, loss] = __sgp_call__ ("mlp_fit", x, sin (x), [1 10 1], "tanh", [], "iterations", 500, "batch_size", 20, "lr", 1e-2, "seed", 1);
%! assert (size (m.W{1}), [1 10]);
%! assert (size (m.W{2}), [10 1]);
%! assert (m.activation, "tanh");
%! assert (loss < 0.05);
%! [m2, loss2] = __sgp_call__ ("mlp_fit", x, sin (x), [1 10 1], "tanh", [], "iterations", 500, "batch_size", 20, "lr", 1e-2, "seed", 1);
%! assert (m2.W{1}, m.W{1});
%!error <widths> __sgp_call__ ("mlp_fit", 1, 1, 1, "tanh", [], "iterations", 5)
%!error <unknown activation> __sgp_call__ ("mlp_fit", 1, 1, [1 1], "swish", [])
%!error <mlp_fit: 'lr' must be positive> __sgp_call__ ("mlp_fit", 1, 1, [1 1], "tanh", [], "lr", 0)
*/
