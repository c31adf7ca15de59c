// sgp_valla_octave.h -- valla glue shared by the verbs valla_fit, valla_predict,
// valla_forward and mlp_fit: an Octave network struct (fields W, b: cell arrays;
// activation, output: names; skip: matrix or []; transpose: flag) as a core
// sgp_valla_mlp view, and a core network back as plain Octave data.
// Header-only so the oct-file Makefile needs no new shim object.
#ifndef SGP_VALLA_OCTAVE_H
#define SGP_VALLA_OCTAVE_H

#include <string>
#include <vector>

#include "sgp_octave.h"

namespace sgp_valla_octave
{
  // Owns the Octave matrices the view points into.
  struct mlp_spec
  {
    std::vector<Matrix> W, b;
    Matrix skip;
    std::vector<int64_t> width;
    std::vector<sgp_cmat> Wv, bv;
    sgp_valla_mlp mlp;
  };

  inline sgp_activation
  activation_arg (const octave_value& v, const std::string& fn, const char *argname)
  {
    const std::string name = sgp_octave::string_arg (v, fn, argname);
    sgp_activation act;
    if (sgp_valla_activation_from_name (name.c_str (), &act) != SGP_OK)
      error ("%s: %s: unknown activation \"%s\"", fn.c_str (), argname, name.c_str ());
    return act;
  }

  inline octave_value
  field (const octave_scalar_map& m, const char *name)
  {
    return m.isfield (name) ? m.getfield (name) : octave_value (Matrix ());
  }

  // Types and layer count only; the core checks shapes and values and names
  // the pieces W[l], b[l], skip.
  inline void
  mlp_arg (const octave_value& v, const std::string& fn, mlp_spec& s)
  {
    if (! v.isstruct () || v.numel () != 1)
      error ("%s: model must be a struct with fields W, b and activation", fn.c_str ());
    const octave_scalar_map m = v.scalar_map_value ();
    if (! m.isfield ("W") || ! m.isfield ("b") || ! m.getfield ("W").iscell ()
        || ! m.getfield ("b").iscell ())
      error ("%s: model.W and model.b must be cell arrays", fn.c_str ());
    const Cell W = m.getfield ("W").cell_value (), b = m.getfield ("b").cell_value ();
    const octave_idx_type L = W.numel ();
    if (L < 1 || b.numel () != L)
      error ("%s: model.W and model.b must have the same number (>= 1) of layers",
             fn.c_str ());
    const octave_value tv = field (m, "transpose");
    const bool transpose = ! tv.isempty () && tv.bool_value ();
    for (octave_idx_type l = 0; l < L; l++)
      {
        s.W.push_back (sgp_octave::matrix_arg (W(l), fn, "model.W"));
        s.b.push_back (sgp_octave::matrix_arg (b(l), fn, "model.b"));
      }
    s.width.resize (L + 1);
    s.width[0] = transpose ? s.W[0].cols () : s.W[0].rows ();
    for (octave_idx_type l = 0; l < L; l++)
      s.width[l + 1] = transpose ? s.W[l].rows () : s.W[l].cols ();
    for (octave_idx_type l = 0; l < L; l++)
      {
        s.Wv.push_back (sgp_octave::cview (s.W[l]));
        s.bv.push_back (sgp_octave::cview (s.b[l]));
      }
    s.skip = sgp_octave::matrix_arg (field (m, "skip"), fn, "model.skip");
    std::memset (&s.mlp, 0, sizeof s.mlp);
    s.mlp.n_layers = static_cast<int> (L);
    s.mlp.width = s.width.data ();
    s.mlp.W = s.Wv.data ();
    s.mlp.b = s.bv.data ();
    s.mlp.transpose = transpose ? 1 : 0;
    s.mlp.skip = s.skip.isempty () ? sgp_cmat_of (nullptr, 0, 0) : sgp_octave::cview (s.skip);
    s.mlp.activation = activation_arg (m.getfield ("activation"), fn, "model.activation");
    const octave_value out = field (m, "output");
    s.mlp.output = out.isempty () ? SGP_ACT_IDENTITY
                                  : activation_arg (out, fn, "model.output");
  }

  // The core's (normalized, in-by-out) network as a plain Octave struct.
  inline octave_scalar_map
  net_value (const sgp_valla_net& net)
  {
    const int L = net.n_layers;
    Cell W (1, L), b (1, L);
    for (int l = 0; l < L; l++)
      {
        W(l) = sgp_octave::matrix_copy (net.width[l], net.width[l + 1], net.W[l]);
        b(l) = sgp_octave::column_copy (net.width[l + 1], net.b[l]);
      }
    const Matrix skip = net.skip ? sgp_octave::matrix_copy (net.width[0], net.width[L], net.skip)
                                 : Matrix ();
    octave_scalar_map m;
    m.assign ("W", W);
    m.assign ("b", b);
    m.assign ("activation", std::string (sgp_valla_activation_name (net.activation)));
    m.assign ("output", std::string (sgp_valla_activation_name (net.output)));
    m.assign ("skip", skip);
    return m;
  }

  inline sgp_likelihood
  likelihood_of (const std::string& name, const std::string& fn)
  {
    const int i = sgp_opt_choice_index ("valla", "likelihood", name.c_str ());
    if (i >= 0)
      return static_cast<sgp_likelihood> (i);
    error ("%s: likelihood: unknown value \"%s\"", fn.c_str (), name.c_str ());
  }

  inline sgp_valla_method
  method_of (const std::string& name, const std::string& fn)
  {
    const int i = sgp_opt_choice_index ("valla", "method", name.c_str ());
    if (i >= 0)
      return static_cast<sgp_valla_method> (i);
    error ("%s: method: unknown value \"%s\"", fn.c_str (), name.c_str ());
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
