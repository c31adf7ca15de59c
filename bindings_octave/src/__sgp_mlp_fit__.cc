// __sgp_mlp_fit__.cc -- private oct-file behind mlp_fit.m: the seeded MAP
// trainer for an MLP (Adam, weight decay; spec shared/spec/valla.md).
#include "sgp_valla_octave.h"

#include <algorithm>
#include <climits>
#include <cmath>

DEFUN_DLD (__sgp_mlp_fit__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {[@var{model}, @var{loss}, @var{info}] =} __sgp_mlp_fit__ (@var{x}, @var{y}, @var{widths}, @var{activation}, @var{likelihood}, @var{iterations}, @var{batch_size}, @var{lr}, @var{weight_decay}, @var{init}, @var{seed}, @var{threads})\n\
Private: trains an MLP of layer widths @var{widths} (d, hidden@dots{}, C) by\n\
Adam from Glorot-initialized weights, or from the network struct @var{init}\n\
when it is not empty.  @var{y}: targets, or labels 0..C-1 as doubles.\n\
Returns the network struct (W, b, activation, output, skip), the final\n\
full-data mean loss and a struct with initial_loss, iterations, stop_reason,\n\
advice (the core's warning text, \"\" when nothing went wrong) and diverged_at.\n\
@seealso{mlp_fit}\n\
@end deftypefn")
{
  if (args.length () != 12)
    print_usage ();

  // ---- get inputs
  const std::string fn = "mlp_fit";
  const long nthreads = sgp_octave::integer_arg (args(11), fn, "threads", 0, INT_MAX);
  sgp_octave::context ctx (fn, static_cast<int> (nthreads));
  const Matrix x = sgp_octave::matrix_arg (args(0), fn, "x");
  const Matrix y = sgp_octave::matrix_arg (args(1), fn, "y");
  const Matrix wd = sgp_octave::matrix_arg (args(2), fn, "widths");
  std::vector<int64_t> width;
  for (octave_idx_type i = 0; i < wd.numel (); i++)
    width.push_back (static_cast<int64_t> (wd(i)));
  const sgp_activation act = sgp_valla_octave::activation_arg (args(3), fn, "activation");
  sgp_valla_mlp_fit_opts o;
  sgp_valla_mlp_fit_opts_default (&o);
  o.likelihood = sgp_valla_octave::likelihood_of (
    sgp_octave::string_arg (args(4), fn, "likelihood"), fn);
  o.iterations = sgp_octave::integer_arg (args(5), fn, "iterations", 0, LONG_MAX);
  o.batch_size = sgp_octave::integer_arg (args(6), fn, "batch_size", 1, LONG_MAX);
  o.lr = sgp_octave::scalar_arg (args(7), fn, "lr");
  o.weight_decay = sgp_octave::scalar_arg (args(8), fn, "weight_decay");
  const bool has_init = ! args(9).isempty ();
  sgp_valla_octave::mlp_spec init;
  if (has_init)
    sgp_valla_octave::mlp_arg (args(9), fn, init);
  ctx.set_seed (args(10));
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
  res.assign ("advice", sgp_valla_stop_advice (info.stop));
  res.assign ("diverged_at", static_cast<double> (info.diverged_at));
  return ovl (model, info.final_loss, res);
}

/*
%!test
%! x = linspace (-2, 2, 40)';
%! [m, loss] = __sgp_mlp_fit__ (x, sin (x), [1 10 1], "tanh", "gaussian", 500, 20, 1e-2, 0, [], 1, 0);
%! assert (size (m.W{1}), [1 10]);
%! assert (size (m.W{2}), [10 1]);
%! assert (m.activation, "tanh");
%! assert (loss < 0.05);
%! [m2, loss2] = __sgp_mlp_fit__ (x, sin (x), [1 10 1], "tanh", "gaussian", 500, 20, 1e-2, 0, [], 1, 0);
%! assert (m2.W{1}, m.W{1});
%!error <widths> __sgp_mlp_fit__ (1, 1, 1, "tanh", "gaussian", 5, 1, 1e-2, 0, [], 1, 0)
%!error <unknown activation> __sgp_mlp_fit__ (1, 1, [1 1], "swish", "gaussian", 5, 1, 1e-2, 0, [], 1, 0)
*/
