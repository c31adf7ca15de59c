// verb_valla_metrics.cc -- __sgp_call__ ("valla_metrics") behind valla_metrics.m: the core
// reads pred (a struct of mean and var or of prob, n-by-C probabilities, P(y = 1),
// or means with var), codes the labels, checks everything and names the metrics
// (sgp_valla_metrics_of; the metrics of the VaLLA paper, docs/valla.md).
#include "sgp_octave_verbs.h"
#include "sgp_octave.h"

#include <cmath>
#include <vector>

// Usage: m = __sgp_call__ ("valla_metrics", pred, y, var, name, value, ...)
// Private: the metrics of valla_metrics as a struct: regression (nll, crps, cqm)
// of predictive means and variances, or classification (accuracy, nll, ece,
// brier, and auc for two classes) of class probabilities at labels.  The core
// reads pred, checks every value and the options ("bins"); its
// messages name pred, y, var, bins.
// See valla_metrics.
octave_value_list
sgp_verbs::valla_metrics (const octave_value_list& args, int)
{
  if (args.length () < 3 || args.length () % 2 == 0)
    print_usage ();
  const std::string fn = "valla_metrics";
  sgp_octave::context ctx (fn, 1);
  sgp_octave::option_store keep;
  const sgp_value pred = sgp_octave::fit_value (args(0), keep),
                  y = sgp_octave::fit_value (args(1), keep),
                  var = sgp_octave::fit_value (args(2), keep);
  std::vector<std::string> names;
  std::vector<sgp_value> values;
  for (int i = 3; i < args.length (); i += 2)
    {
      names.push_back (sgp_octave::string_arg (args(i), fn, "option name"));
      values.push_back (sgp_octave::fit_value (args(i + 1), keep));
    }
  std::vector<const char *> cnames;
  for (const std::string& n : names)
    cnames.push_back (n.c_str ());
  double out[5];
  int count = 0;
  const char *const *mnames = nullptr;
  ctx.check (sgp_valla_metrics_of (ctx.get (), &pred, &y, &var, static_cast<int> (names.size ()),
                                   cnames.data (), values.data (), out, &count, &mnames));
  octave_scalar_map m;
  for (int k = 0; k < count; k++)
    m.assign (mnames[k], out[k]);
  return ovl (m);
}

/*
%!test
%! m = __sgp_call__ ("valla_metrics", struct ("mean", [0; 0], "var", [0.5; 1]), [0.1; -0.3], []);
%! assert (fieldnames (m)', {"nll", "crps", "cqm"});
%! assert (m.nll, mean (0.5 * log (2 * pi * [0.5; 1]) + [0.1; -0.3] .^ 2 ./ (2 * [0.5; 1])), 1e-14);
%!error <'y' is empty> __sgp_call__ ("valla_metrics", zeros (0, 1), zeros (0, 1), [])
%!error <'pred' contains NaN> __sgp_call__ ("valla_metrics", [0; NA], [0; 1], [1; 1])
%!error <'bins' must be a whole number> __sgp_call__ ("valla_metrics", [0; 0], [0; 1], [1; 1], "bins", 0)
*/
