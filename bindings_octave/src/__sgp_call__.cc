// __sgp_call__.cc -- the one oct-file of scalegp: __sgp_call__ ("verb", ...)
// runs the verb's handler (sgp_octave_verbs.h) with the arguments after the
// name, as R's .Call entry of the same name does (registered in src/init.c).
#include "sgp_octave_verbs.h"

namespace
{
  struct entry
  {
    const char *verb;
    sgp_verbs::handler fn;
  };

  const entry entries[] = {
    {"info", sgp_verbs::info},
    {"options", sgp_verbs::options},
    {"option_check", sgp_verbs::option_check},
    {"kernel_matrix", sgp_verbs::kernel_matrix},
    {"kernel_apply", sgp_verbs::kernel_apply},
    {"laplace_fit", sgp_verbs::laplace_fit},
    {"laplace_predict", sgp_verbs::laplace_predict},
    {"ski_grid", sgp_verbs::ski_grid},
    {"ski_grid_check", sgp_verbs::ski_grid_check},
    {"ski_stats", sgp_verbs::ski_stats},
    {"ski_gsgp", sgp_verbs::ski_gsgp},
    {"ski_laplace", sgp_verbs::ski_laplace},
    {"ski_laplace_predict", sgp_verbs::ski_laplace_predict},
    {"ski_predict", sgp_verbs::ski_predict},
    {"ski_shape", sgp_verbs::ski_shape},
    {"ski_stats_merge", sgp_verbs::ski_stats_merge},
    {"ski_outside", sgp_verbs::ski_outside},
    {"ski_acc", sgp_verbs::ski_acc},
    {"h5_rows", sgp_verbs::h5_rows},
    {"valla_fit", sgp_verbs::valla_fit},
    {"valla_predict", sgp_verbs::valla_predict},
    {"valla_fit_check", sgp_verbs::valla_fit_check},
    {"valla_forward", sgp_verbs::valla_forward},
    {"valla_net_check", sgp_verbs::valla_net_check},
    {"valla_metrics", sgp_verbs::valla_metrics},
    {"mlp_fit", sgp_verbs::mlp_fit},
  };
}

DEFUN_DLD (__sgp_call__, args, nargout,
           "-*- texinfo -*-\n\
@deftypefn {} {[@dots{}] =} __sgp_call__ (@var{verb}, @dots{})\n\
Private: the one oct-file of scalegp's C core.  Runs the handler named\n\
@var{verb} (e.g. @qcode{\"laplace_fit\"}) with the arguments after it; the\n\
.m functions call it, each verb's usage is in its source file\n\
@file{verb_@var{verb}.cc}.  Without arguments: the verbs, a cellstr.\n\
@end deftypefn")
{
  if (args.length () == 0 && nargout <= 1)
    {
      Cell names (static_cast<octave_idx_type> (sizeof entries / sizeof entries[0]), 1);
      for (octave_idx_type i = 0; i < names.numel (); i++)
        names(i) = std::string (entries[i].verb);
      return ovl (names);
    }
  if (args.length () == 0 || ! args(0).is_string ())
    print_usage ();
  const std::string verb = args(0).string_value ();
  for (const entry& e : entries)
    if (verb == e.verb)
      return e.fn (args.slice (1, args.length () - 1), nargout);
  error ("__sgp_call__: no verb '%s'", verb.c_str ());
}

/*
%!test
%! v = __sgp_call__ ();
%! assert (iscellstr (v) && any (strcmp (v, "laplace_fit")));
%!error <no verb 'nonsense'> __sgp_call__ ("nonsense")
%!error <Invalid call> __sgp_call__ (1)
*/
