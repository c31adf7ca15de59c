// sgp_valla_octave.h -- valla glue shared by the verbs valla_fit, valla_predict,
// valla_forward, valla_net_check and mlp_fit: a network given as plain data (a
// struct of weights, biases, activation, ...; the older W, b cells too) read and
// checked by the core (sgp_valla_net_from_value), owned until the handler returns.
// Header-only so the oct-file Makefile needs no new shim object.
#ifndef SGP_VALLA_OCTAVE_H
#define SGP_VALLA_OCTAVE_H

#include <string>
#include <vector>

#include "sgp_octave.h"

namespace sgp_valla_octave
{
  // The core's copy of a network, freed with the handler's scope.
  struct net_holder
  {
    sgp_valla_net net;
    net_holder () { std::memset (&net, 0, sizeof net); }
    ~net_holder () { sgp_valla_net_free (&net); }
    net_holder (const net_holder&) = delete;
    net_holder& operator = (const net_holder&) = delete;
  };

  // The network v (errors name arg: "'model.weights{2}' has 3 rows but ...").
  inline void
  net_arg (sgp_octave::context& ctx, const octave_value& v, const char *arg, net_holder& h)
  {
    sgp_octave::option_store keep;
    const sgp_value m = sgp_octave::fit_value (v, keep);
    ctx.check (sgp_valla_net_from_value (ctx.get (), &m, arg, ".", &h.net));
  }

  // Optional 0/1 layer flags ([] = all layers) as ints for the core.
  inline std::vector<int>
  layers_arg (const octave_value& v, const std::string& fn, int n_layers)
  {
    std::vector<int> out;
    const Matrix m = sgp_octave::matrix_arg (v, fn, "layers");
    if (m.isempty ())
      return out;
    if (m.numel () != n_layers)
      error ("%s: layers must have one flag per layer (%d)", fn.c_str (), n_layers);
    for (octave_idx_type i = 0; i < m.numel (); i++)
      out.push_back (m(i) != 0);
    return out;
  }
}

#endif
