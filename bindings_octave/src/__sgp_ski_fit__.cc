// __sgp_ski_fit__.cc -- private oct-file behind ski_gsgp.m: the fit of the
// posterior mean (and LOVE cache, log-likelihood) from plain statistics.
#include "sgp_octave_ski.h"

#include <climits>

DEFUN_DLD (__sgp_ski_fit__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {@var{r} =} __sgp_ski_fit__ (@var{stats}, @var{opts}, @var{x}, @var{y}, @var{verbose}, @var{nthreads})\n\
Private: fits ski_gsgp from the statistics struct @var{stats} with the\n\
options struct @var{opts} built by @code{ski_gsgp}; @var{x}, @var{y} are the\n\
data for method \"ski\" (else empty).  Returns a struct with weights,\n\
iterations, converged, rel_residual, history, love_Ft, love_c0, loglik,\n\
logdet, logdet_se, datafit, probes_used, loglik_converged, stop (the\n\
sgp_ski_stop code of the mean solve).\n\
@seealso{ski_gsgp}\n\
@end deftypefn")
{
  if (args.length () != 6)
    print_usage ();
  const std::string fn = "ski_gsgp";
  const long nthreads = sgp_octave::integer_arg (args(5), fn, "threads", 0, INT_MAX);
  const bool verbose = sgp_octave::scalar_arg (args(4), fn, "verbose") != 0;
  sgp_octave::context ctx (fn, static_cast<int> (nthreads), verbose);
  sgp_octave::ski_stats_view sv;
  sgp_octave::ski_stats_arg (ctx, args(0), sv);
  sgp_octave::kernel_spec ks;
  sgp_ski_opts o;
  sgp_octave::ski_opts_arg (ctx, args(1), ks, &o);
  const Matrix x = sgp_octave::matrix_arg (args(2), fn, "x");
  const Matrix y = sgp_octave::matrix_arg (args(3), fn, "y");
  if (o.max_iter < 1 || o.max_iter > INT_MAX - 1)
    error ("%s: 'max_iter' must be a whole number >= 1", fn.c_str ());

  const int64_t m = sv.d.m;
  const int64_t kmax = o.variance == SGP_SKI_VARIANCE_LANCZOS ? sgp_ski_love_rank_max (&o, m) : 0;
  Matrix weights (m, 1), hist (o.max_iter + 1, 1), Ft (kmax, m), c0 (kmax > 0 ? m : 0, 1);
  sgp_ski_fit_result res;
  std::memset (&res, 0, sizeof res);
  res.weights = weights.fortran_vec ();
  res.history = hist.fortran_vec ();
  res.love_Ft = kmax > 0 ? Ft.fortran_vec () : nullptr;
  res.love_c0 = kmax > 0 ? c0.fortran_vec () : nullptr;
  sgp_cmat X = {nullptr, 0, 0, 1}, Y = {nullptr, 0, 0, 1};
  if (! x.isempty ())
    {
      X = sgp_octave::cview (x);
      Y = sgp_octave::cview (y);
    }

  // ---- compute (no Octave error inside)
  const int st = sgp_ski_fit (ctx.get (), &sv.d, &o, X, Y, &res);
  ctx.check (st);

  Matrix history (res.iterations + 1, 1);
  for (int64_t i = 0; i <= res.iterations; i++)
    history(i) = hist(i);
  Matrix love (res.love_rank, m);
  if (res.love_rank > 0)
    for (int64_t g = 0; g < m; g++)
      for (int64_t j = 0; j < res.love_rank; j++)
        love(j, g) = Ft(j + g * res.love_rank);  // Ft is packed rank-by-m
  octave_scalar_map out;
  out.assign ("weights", weights);
  out.assign ("iterations", static_cast<double> (res.iterations));
  out.assign ("converged", res.converged != 0);
  out.assign ("rel_residual", res.rel_residual);
  out.assign ("history", history);
  out.assign ("love_Ft", love);
  out.assign ("love_c0", c0);
  out.assign ("loglik", res.loglik);
  out.assign ("logdet", res.logdet);
  out.assign ("logdet_se", res.logdet_se);
  out.assign ("datafit", res.datafit);
  out.assign ("probes_used", static_cast<double> (res.probes_used));
  out.assign ("loglik_converged", res.loglik_converged != 0);
  out.assign ("stop", static_cast<double> (res.stop));
  return ovl (out);
}

/*
%!error <Invalid call> __sgp_ski_fit__ (1)
%!error <stats> __sgp_ski_fit__ (1, struct (), [], [], 0, 0)
*/
