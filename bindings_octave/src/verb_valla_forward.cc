// verb_valla_forward.cc -- __sgp_call__ ("valla_forward"): a network's outputs at x (the core's
// forward pass), for valla.m's out-of-fold residuals of refits.
#include "sgp_octave_verbs.h"
#include "sgp_valla_octave.h"

// Usage: g = __sgp_call__ ("valla_forward", model, x)
// Private: the n-by-C outputs of the network struct model (fields weights,
// biases, activation, optional output, skip, transpose; or the older W, b) at
// the n-by-d inputs x.
octave_value_list
sgp_verbs::valla_forward (const octave_value_list& args, int)
{
  if (args.length () != 2)
    print_usage ();
  const std::string fn = "valla";
  sgp_octave::context ctx (fn, 0, false, -1);
  sgp_valla_octave::net_holder h;
  sgp_valla_octave::net_arg (ctx, args(0), "model", h);
  const Matrix x = sgp_octave::matrix_arg (args(1), fn, "x");
  Matrix g (x.rows (), h.net.width[h.net.n_layers]);
  ctx.check (sgp_valla_forward (ctx.get (), &h.net, sgp_octave::cview (x),
                                sgp_mat_of (g.fortran_vec (), g.rows (), g.cols ())));
  return octave_value (g);
}
