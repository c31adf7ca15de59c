// verb_valla_net_check.cc -- __sgp_call__ ("valla_net_check"): a network given as
// plain data read and checked by the core (valla's and mlp_fit's model), for
// the fronts that need its shape before the fit.
#include "sgp_octave_verbs.h"
#include "sgp_valla_octave.h"

// Usage: s = __sgp_call__ ("valla_net_check", model, fname, arg)
// Private: the core's check of the network struct model (fields weights,
// biases, activation, optional output, skip, transpose; or the older W, b),
// errors naming the function fname and the argument arg ("'model.weights{2}'
// ...").  Returns a struct with D (inputs), C (outputs) and L (layers).
// See valla.
octave_value_list
sgp_verbs::valla_net_check (const octave_value_list& args, int)
{
  if (args.length () != 3 || ! args(1).is_string () || ! args(2).is_string ())
    print_usage ();
  sgp_octave::context ctx (args(1).string_value (), 0);
  const std::string arg = args(2).string_value ();
  sgp_valla_octave::net_holder h;
  sgp_valla_octave::net_arg (ctx, args(0), arg.c_str (), h);
  return ovl (sgp_octave::build_map ([&] (sgp_value_arena *a)
                                     { return sgp_valla_net_shape_plain (&h.net, a); }));
}

/*
%!test
%! s = __sgp_call__ ("valla_net_check", struct ("weights", {{[1 2 3], [1; 2; 3]}},
%!                   "biases", {{[0 0 0], 0}}), "valla", "model");
%! assert ([s.D, s.C, s.L], [1, 1, 2]);
%!error <valla: 'model' must be a network> __sgp_call__ ("valla_net_check", 1, "valla", "model")
%!error <valla: 'model.biases\{2\}' must be numeric of length 1> __sgp_call__ ("valla_net_check", struct ("weights", {{[1 2 3], [1; 2; 3]}}, "biases", {{[0 0 0], [0 0]}}), "valla", "model")
*/
