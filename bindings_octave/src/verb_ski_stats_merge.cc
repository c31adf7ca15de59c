// verb_ski_stats_merge.cc -- __sgp_call__ ("ski_stats_merge") behind ski_stats_merge.m: the sum
// of SKI statistics by the core, which checks that grids and probe sketches
// agree and names the argument (its label) in errors.
#include "sgp_octave_verbs.h"
#include "sgp_octave_ski.h"

#include <vector>

// Usage: s = __sgp_call__ ("ski_stats_merge", stats, labels, fname)
// Private: the sum of the ski_stats structs in the cell stats, each read and
// checked by the core; labels (a cell of strings) are the user's names of
// the arguments.  Returns a struct with the summed fields n, yty, ysum, Wty, Wt1,
// WtW, rhoz, Wtz; without an output, only the checks.  Use ski_stats_merge.
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
  const int64_t m = in[0].m, S = in[0].S, np = in[0].probes;
  Matrix Wty (m, 1), Wt1 (m, 1), WtW (m, S), Wtz (m, np);
  sgp_ski_stats_sum sum;
  std::memset (&sum, 0, sizeof sum);
  sum.uy = Wty.fortran_vec ();
  sum.u1 = Wt1.fortran_vec ();
  sum.D = WtW.fortran_vec ();
  sum.uz = np > 0 ? Wtz.fortran_vec () : nullptr;
  ctx.check (sgp_ski_stats_merge_data (ctx.get (), k, in.data (), label.data (), &sum));
  octave_scalar_map out;
  out.assign ("n", static_cast<double> (sum.n));
  out.assign ("yty", sum.yy);
  out.assign ("ysum", sum.ysum);
  out.assign ("Wty", Wty);
  out.assign ("Wt1", Wt1);
  out.assign ("WtW", WtW);
  out.assign ("rhoz", sum.rhoz);
  out.assign ("Wtz", Wtz);
  return ovl (out);
}

/*
%!error <Invalid call> __sgp_call__ ("ski_stats_merge", 1)
*/
