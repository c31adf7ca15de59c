// __sgp_mlp_forward__.cc -- private oct-file: a network's outputs at x (the core's
// forward pass), for valla.m's out-of-fold residuals of refits.
#include "sgp_valla_octave.h"

DEFUN_DLD (__sgp_mlp_forward__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {@var{g} =} __sgp_mlp_forward__ (@var{model}, @var{x})\n\
Private: the n-by-C outputs of the network struct @var{model} (fields W, b,\n\
activation, optional output, skip, transpose) at the n-by-d inputs @var{x}.\n\
@end deftypefn")
{
  if (args.length () != 2)
    print_usage ();
  const std::string fn = "valla";
  sgp_octave::context ctx (fn, 0, false, -1);
  sgp_valla_octave::mlp_spec spec;
  sgp_valla_octave::mlp_arg (args(0), fn, spec);
  const Matrix x = sgp_octave::matrix_arg (args(1), fn, "x");
  sgp_valla_net net;
  ctx.check (sgp_valla_net_from_mlp (ctx.get (), &spec.mlp, &net));
  Matrix g (x.rows (), net.width[net.n_layers]);
  const int st = sgp_valla_forward (ctx.get (), &net, sgp_octave::cview (x),
                                    sgp_mat_of (g.fortran_vec (), g.rows (), g.cols ()));
  sgp_valla_net_free (&net);
  ctx.check (st);
  return octave_value (g);
}
