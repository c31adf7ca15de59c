// __sgp_valla_metrics__.cc -- private oct-file behind valla_metrics.m: the core's
// checked metrics (sgp_valla_metrics; spec shared/spec/valla.md §7.1).
#include "sgp_octave.h"

#include <cmath>

DEFUN_DLD (__sgp_valla_metrics__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {@var{m} =} __sgp_valla_metrics__ (@var{y}, @var{mu}, @var{var}, @var{prob}, @var{bins})\n\
Private: regression metrics (nll, crps, cqm) of the Gaussian predictive\n\
(@var{mu}, @var{var}) at targets @var{y} when @var{prob} is empty, else\n\
classification metrics (accuracy, nll, ece, brier, and auc for two classes)\n\
of the n-by-C probabilities @var{prob} at labels @var{y} (0..C-1), as a\n\
struct.  The core checks every value; its messages name y, pred, var, bins.\n\
@seealso{valla_metrics}\n\
@end deftypefn")
{
  if (args.length () != 5)
    print_usage ();

  // ---- get inputs
  const std::string fn = "valla_metrics";
  sgp_octave::context ctx (fn, 1);
  const Matrix y = sgp_octave::matrix_arg (args(0), fn, "y");
  const Matrix mu = sgp_octave::matrix_arg (args(1), fn, "pred");
  const Matrix var = sgp_octave::matrix_arg (args(2), fn, "var");
  const Matrix prob = sgp_octave::matrix_arg (args(3), fn, "pred");
  const double bins = sgp_octave::scalar_arg (args(4), fn, "bins");
  const bool classes = ! args(3).isempty ();
  const sgp_cmat none = sgp_cmat_of (nullptr, 0, 0);

  // ---- compute (no Octave error inside)
  double out[5];
  int count = 0;
  const int st = sgp_valla_metrics (ctx.get (), sgp_octave::cview (y),
                                    classes ? none : sgp_octave::cview (mu),
                                    classes ? none : sgp_octave::cview (var),
                                    classes ? sgp_octave::cview (prob) : none,
                                    std::isfinite (bins) && bins >= 0 && bins < 1e18
                                      ? static_cast<int64_t> (bins) : 0,
                                    out, &count);

  // ---- return results
  ctx.check (st);
  static const char *reg[] = {"nll", "crps", "cqm"};
  static const char *cls[] = {"accuracy", "nll", "ece", "brier", "auc"};
  octave_scalar_map m;
  for (int k = 0; k < count; k++)
    m.assign ((classes ? cls : reg)[k], out[k]);
  return ovl (m);
}

/*
%!test
%! m = __sgp_valla_metrics__ ([0.1; -0.3], [0; 0], [0.5; 1], [], 15);
%! assert (fieldnames (m)', {"nll", "crps", "cqm"});
%! assert (m.nll, mean (0.5 * log (2 * pi * [0.5; 1]) + [0.1; -0.3] .^ 2 ./ (2 * [0.5; 1])), 1e-14);
%!error <'y' is empty> __sgp_valla_metrics__ (zeros (0, 1), [], [], [], 15)
%!error <'pred' contains NaN> __sgp_valla_metrics__ ([0; 1], [0; NA], [1; 1], [], 15)
%!error <'bins' must be at least 1> __sgp_valla_metrics__ ([0; 1], [0; 0], [1; 1], [], 0)
*/
