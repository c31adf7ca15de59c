// sgp_octave_verbs.h -- the verbs of scalegp's one oct-file, __sgp_call__ (one
// gateway per host, as R's sgp_call): __sgp_call__ ("verb", args...)
// runs the handler of that name with the arguments after the verb. The names
// are R's (the .Call entries registered in src/init.c) where both hosts have
// the verb; each handler lives in verb_<name>.cc with its usage and its tests,
// and the table that maps names to handlers is in __sgp_call__.cc.
//
// A handler converts Octave values for one core call and the result back (the
// glue is sgp_octave.h); it raises errors with error () / ctx.check () only
// after the core has returned, as every oct-file did.
#ifndef SGP_OCTAVE_VERBS_H
#define SGP_OCTAVE_VERBS_H

#include <octave/oct.h>

namespace sgp_verbs
{
  // args: the arguments after the verb's name; nargout: the caller's.
  typedef octave_value_list (*handler) (const octave_value_list& args, int nargout);

  octave_value_list info (const octave_value_list& args, int nargout);
  octave_value_list options (const octave_value_list& args, int nargout);
  octave_value_list option_check (const octave_value_list& args, int nargout);
  octave_value_list kernel_matrix (const octave_value_list& args, int nargout);
  octave_value_list kernel_apply (const octave_value_list& args, int nargout);
  octave_value_list laplace_fit (const octave_value_list& args, int nargout);
  octave_value_list laplace_predict (const octave_value_list& args, int nargout);
  octave_value_list ski_grid (const octave_value_list& args, int nargout);
  octave_value_list ski_grid_check (const octave_value_list& args, int nargout);
  octave_value_list ski_stats (const octave_value_list& args, int nargout);
  octave_value_list ski_gsgp (const octave_value_list& args, int nargout);
  octave_value_list ski_laplace (const octave_value_list& args, int nargout);
  octave_value_list ski_laplace_predict (const octave_value_list& args, int nargout);
  octave_value_list ski_predict (const octave_value_list& args, int nargout);
  octave_value_list ski_shape (const octave_value_list& args, int nargout);
  octave_value_list ski_stats_merge (const octave_value_list& args, int nargout);
  octave_value_list ski_outside (const octave_value_list& args, int nargout);
  octave_value_list ski_acc (const octave_value_list& args, int nargout);
  octave_value_list h5_rows (const octave_value_list& args, int nargout);
  octave_value_list valla_fit (const octave_value_list& args, int nargout);
  octave_value_list valla_predict (const octave_value_list& args, int nargout);
  octave_value_list valla_fit_check (const octave_value_list& args, int nargout);
  octave_value_list valla_forward (const octave_value_list& args, int nargout);
  octave_value_list valla_net_check (const octave_value_list& args, int nargout);
  octave_value_list valla_metrics (const octave_value_list& args, int nargout);
  octave_value_list mlp_fit (const octave_value_list& args, int nargout);
}

#endif
