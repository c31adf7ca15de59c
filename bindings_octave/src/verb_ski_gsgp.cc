// verb_ski_gsgp.cc -- __sgp_call__ ("ski_gsgp") behind ski_gsgp.m: the options by
// name to the core's table, the statistics of x, y (or the given ones) and the
// fit of the posterior mean (LOVE cache, log-likelihood).
#include "sgp_octave_verbs.h"
#include "sgp_octave_ski.h"

#include <chrono>

namespace
{
  double seconds (void)
  {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double> (clock::now ().time_since_epoch ()).count ();
  }

  struct input_guard
  {
    sgp_ski_gsgp_input in;
    sgp_ski_selection sel;
    input_guard (void) { std::memset (&in, 0, sizeof in); std::memset (&sel, 0, sizeof sel); }
    ~input_guard (void) { sgp_ski_gsgp_input_free (&in); sgp_ski_selection_free (&sel); }
  };
}

// Usage: r = __sgp_call__ ("ski_gsgp", x, y, stats, name, value, ...)
// Private: the ski_gsgp fit of scalegp's C core.  x, y: the data
// (or []); stats: a ski_stats struct (or []).  The options come as
// name/value pairs and go to the core's option table, which checks them (its
// defaults apply to the others).  Returns the struct the core writes
// (sgp_ski_fit_plain, its stats with class "ski_stats"): weights, iterations,
// converged, rel_residual, history, love_Ft, love_c0, loglik, logdet,
// logdet_se, datafit, probes_used, loglik_converged, stop, stats (the computed
// statistics, [] when given), used (the options used and the warnings),
// seconds, selection (the model selection) and loglik_se.
// See ski_gsgp.
octave_value_list
sgp_verbs::ski_gsgp (const octave_value_list& args, int)
{
  if (args.length () < 3)
    print_usage ();
  const std::string fn = "ski_gsgp";
  sgp_octave::context ctx (fn, 0, false);
  sgp_ski_opts o;
  sgp_octave::option_store keep;
  sgp_octave::verb_options (ctx, "ski_gsgp", sgp_ski_opts_default, args, 3, o, keep);
  o.seed = ctx.get ()->seed;  // the probes' seed is the context's
  bool interp_given = false;
  for (int i = 3; i + 1 < args.length (); i += 2)
    interp_given = interp_given || args(i).string_value () == "interpolation";
  sgp_octave::ski_stats_view sv;
  const bool has_stats = ! args(2).isempty ();
  if (has_stats)
    sgp_octave::ski_stats_arg (ctx, args(2), sv);
  const Matrix x = sgp_octave::matrix_arg (args(0), fn, "x");
  const Matrix y = sgp_octave::matrix_arg (args(1), fn, "y");
  const sgp_cmat none = {nullptr, 0, 0, 1};
  const sgp_cmat X = x.isempty () ? none : sgp_octave::cview (x);
  const sgp_cmat Y = x.isempty () ? none : sgp_octave::cview (y);

  // ---- compute (no Octave error inside)
  input_guard g;
  const double t0 = seconds ();
  ctx.check (sgp_ski_gsgp_prepare (ctx.get (), &o, interp_given, X, Y,
                                   has_stats ? &sv.d : nullptr, &g.in));
  const double t1 = seconds ();
  const int64_t m = g.in.stats.m;
  const int64_t kmax = o.variance == SGP_SKI_VARIANCE_LANCZOS ? sgp_ski_love_rank_max (&o, m) : 0;
  Matrix weights (m, 1), hist (o.max_iter + 1, 1), Ft (kmax, m), c0 (kmax > 0 ? m : 0, 1);
  sgp_ski_result res;
  std::memset (&res, 0, sizeof res);
  res.weights = weights.fortran_vec ();
  res.history = hist.fortran_vec ();
  res.love_Ft = kmax > 0 ? Ft.fortran_vec () : nullptr;
  res.love_c0 = kmax > 0 ? c0.fortran_vec () : nullptr;
  const bool ski = o.method == SGP_SKI_METHOD_SKI;
  sgp_ski_opts ro;
  ctx.check (sgp_ski_fit_learn (ctx.get (), &g.in.stats, &o, X, ski ? Y : none, &ro, &g.sel,
                                &res));
  const double t2 = seconds ();

  // ---- return results: the fields the core writes (sgp_ski_fit_plain)
  const sgp_ski_fit_parts parts = {&res, &ro, &g.sel, g.in.computed ? &g.in.stats : nullptr,
                                   o.grid_bounds, m, kmax > 0 ? m : 0, {t1 - t0, t2 - t1}};
  octave_scalar_map out = sgp_octave::build_map ([&] (sgp_value_arena *a) {
    return sgp_ski_fit_plain (ctx.get (), &parts, a);
  });
  if (g.in.computed)
    out.assign ("stats", sgp_octave::ski_stats_class (out.getfield ("stats").scalar_map_value ()));
  return ovl (out);
}

/*
%!test
%! x = (0:0.05:1)';
%! r = __sgp_call__ ("ski_gsgp", x, sin (3 * x), [], "grid_size", 30, "lengthscale", 0.3, "noise", 0.01,
%!                       "learn", {});
%! assert (r.converged);
%! assert (numel (r.weights), 30);
%! assert (r.stats.n, 21);
%! assert (r.used.kernel, "rbf");
%!error <Invalid call> __sgp_call__ ("ski_gsgp", 1)
%!error <ski_gsgp: 'method' must be one of> __sgp_call__ ("ski_gsgp", (1:5)', (1:5)', [], "method", "x")
%!error <ski_gsgp: 'x' and 'y' are needed> __sgp_call__ ("ski_gsgp", [], [], [])
*/
