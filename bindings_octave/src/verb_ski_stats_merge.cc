// verb_ski_stats_merge.cc -- __sgp_call__ ("ski_stats_merge") behind ski_stats_merge.m: the sum
// of SKI statistics by the core, which checks that grids and probe sketches
// agree and names the argument (its label) in errors.
#include "sgp_octave_verbs.h"
#include "sgp_octave_ski.h"

#include <vector>

// Usage: s = __sgp_call__ ("ski_stats_merge", stats, labels, fname)
// Private: the sum of the ski_stats structs in the cell stats, each read and
// checked by the core; labels (a cell of strings) are the user's names of
// the arguments.  Returns the merged statistics (the core's
// sgp_ski_stats_merge_plain: the first argument's grid, the summed n, yty,
// ysum, Wty, Wt1, WtW, rhoz, Wtz) with class "ski_stats"; without an output,
// only the checks.  Use ski_stats_merge.
// See ski_stats_merge.
octave_value_list
sgp_verbs::ski_stats_merge (const octave_value_list& args, int nargout)
{
  if (args.length () != 3 || ! args(0).iscell () || ! args(1).iscell ()
      || args(0).numel () != args(1).numel () || args(0).numel () < 1)
    print_usage ();
  const std::string fn = sgp_octave::string_arg (args(2), "ski_stats_merge", "fname");
  sgp_octave::context ctx (fn, 0);
  const Cell stats = args(0).cell_value (), labels = args(1).cell_value ();
  const octave_idx_type k = stats.numel ();
  std::deque<sgp_octave::ski_stats_view> views (k);
  std::vector<sgp_ski_stats_data> in (k);
  std::vector<std::string> names (k);
  std::vector<const char *> label (k);
  for (octave_idx_type i = 0; i < k; i++)
    {
      names[i] = sgp_octave::string_arg (labels(i), fn, "labels");
      label[i] = names[i].c_str ();
      sgp_octave::ski_stats_arg (ctx, stats(i), views[i], label[i]);
      in[i] = views[i].d;
    }
  if (nargout == 0)  // the check of ski_check_stats only
    return ovl ();
  const sgp_value first = sgp_octave::fit_value (stats(0), views[0].keep);
  int st = SGP_OK;
  return ovl (sgp_octave::ski_stats_class (sgp_octave::build_map ([&] (sgp_value_arena *a)
    {
      sgp_value v;
      st = sgp_ski_stats_merge_plain (ctx.get (), k, in.data (), label.data (), &first, a, &v);
      return v;
    }, [&] () { ctx.check (st); })));
}

/*
%!error <Invalid call> __sgp_call__ ("ski_stats_merge", 1)
*/
