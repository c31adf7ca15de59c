// __sgp_laplace__.cc -- private oct-file behind gp_laplace.m: the IterNCGP fit.
#include "sgp_octave.h"

#include <climits>
#include <cmath>
#include <memory>

namespace
{
  struct fit_deleter
  {
    void operator () (sgp_laplace_fit_t *f) const { sgp_laplace_fit_free (f); }
  };

  sgp_likelihood
  likelihood_of (const std::string& name, const std::string& fn)
  {
    static const char *names[] = {"gaussian", "bernoulli", "poisson", "softmax"};
    for (int i = 0; i < 4; i++)
      if (name == names[i])
        return static_cast<sgp_likelihood> (i);
    error ("%s: likelihood: unknown value \"%s\"", fn.c_str (), name.c_str ());
  }
}

DEFUN_DLD (__sgp_laplace__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {@var{res} =} __sgp_laplace__ (@var{x}, @var{y}, @var{likelihood}, @var{n_class}, @var{kernel}, @var{lengthscale}, @var{outputscale}, @var{noise}, @var{offset}, @var{policy}, @var{max_newton}, @var{max_iter}, @var{rank}, @var{tol}, @var{ctrl}, @var{backend}, @var{seed}, @var{verbose}, @var{threads})\n\
@deftypefnx {} {@var{res} =} __sgp_laplace__ (@dots{}, @var{interrupt_after})\n\
Private: the gp_laplace (IterNCGP) fit of scalegp's C core.\n\
\n\
@var{y} holds the labels as doubles (softmax 1..@var{n_class}); @var{noise}\n\
and @var{offset} may be empty; @var{rank} < 0 means no compression;\n\
@var{ctrl} = [recycle, damping, max_total_iter, random_order, time_limit,\n\
inner_atol, inner_rtol] (negative limits: none).  Returns a struct with\n\
fields f, var, weights, root, newton_steps, iterations, converged,\n\
stop_reason, inner_stop_reason, kernel_products, history and steps.\n\
\n\
Use @code{gp_laplace}, which validates its arguments; this function only\n\
checks types (the core checks values).\n\
@seealso{gp_laplace}\n\
@end deftypefn")
{
  if (args.length () != 19 && args.length () != 20)
    print_usage ();

  // ---- get inputs
  const std::string fn = "gp_laplace";
  sgp_octave::context ctx (fn, sgp_octave::run_args_of (args, 17, fn));
  const Matrix x = sgp_octave::matrix_arg (args(0), fn, "x");
  const Matrix y = sgp_octave::matrix_arg (args(1), fn, "y");
  sgp_laplace_opts o;
  sgp_laplace_opts_default (&o);
  o.likelihood = likelihood_of (sgp_octave::string_arg (args(2), fn, "likelihood"), fn);
  o.n_class = sgp_octave::integer_arg (args(3), fn, "n_class", 1, INT_MAX);
  sgp_octave::kernel_spec ks;
  sgp_octave::kernel_arg (ctx, args(4), args(5), args(6), ks);
  o.kernel = ks.k;
  const Matrix noise = sgp_octave::matrix_arg (args(7), fn, "noise");
  const Matrix offset = sgp_octave::matrix_arg (args(8), fn, "offset");
  if (! noise.isempty ())
    o.noise = sgp_octave::cview (noise);
  if (! offset.isempty ())
    o.offset = sgp_octave::cview (offset);
  const std::string policy = sgp_octave::string_arg (args(9), fn, "policy");
  if (policy != "cg" && policy != "cholesky")
    error ("%s: policy: unknown value \"%s\"", fn.c_str (), policy.c_str ());
  o.policy = policy == "cholesky" ? SGP_POLICY_CHOLESKY : SGP_POLICY_CG;
  o.max_newton = sgp_octave::integer_arg (args(10), fn, "max_newton", 0, INT_MAX);
  o.max_iter = sgp_octave::integer_arg (args(11), fn, "max_iter", 0, INT_MAX);
  const double rank = sgp_octave::scalar_arg (args(12), fn, "rank");
  o.rank = (rank < 0 || ! std::isfinite (rank)) ? -1 : static_cast<int64_t> (rank);
  o.tol = sgp_octave::scalar_arg (args(13), fn, "tol");
  const Matrix ctrl = sgp_octave::matrix_arg (args(14), fn, "ctrl");
  if (ctrl.numel () != 7)
    error ("%s: ctrl must have 7 values", fn.c_str ());
  o.recycle = ctrl(0) != 0;
  o.damping = ctrl(1) != 0;
  o.max_total_iter = ctrl(2) < 0 || ! std::isfinite (ctrl(2)) ? -1 : static_cast<int64_t> (ctrl(2));
  o.random_order = ctrl(3) != 0;
  o.time_limit = ctrl(4) < 0 || ! std::isfinite (ctrl(4)) ? -1.0 : ctrl(4);
  o.inner_atol = ctrl(5);
  o.inner_rtol = ctrl(6);
  const std::string backend = sgp_octave::string_arg (args(15), fn, "backend");
  ctx.set_seed (args(16));
  ctx.set_backend (backend);

  // ---- compute (no Octave error inside)
  sgp_laplace_fit_t *raw = nullptr;
  const int st = sgp_laplace_fit (ctx.get (), sgp_octave::cview (x), sgp_octave::cview (y),
                                  sgp_cmat_of (nullptr, 0, 0), &o, &raw);
  std::unique_ptr<sgp_laplace_fit_t, fit_deleter> fit (raw);

  // ---- return results
  ctx.check (st);
  const int64_t n = fit->n, C = fit->C, r = fit->r;
  const sgp_laplace_history& h = fit->history;
  const int64_t ni = h.n_iter, ns = h.n_step;
  octave_scalar_map hist;
  hist.assign ("newton", sgp_octave::column_copy (ni, h.it_newton, 1.0));
  hist.assign ("iteration", sgp_octave::column_copy (ni, h.it_iter, 0.0));
  hist.assign ("total", sgp_octave::column_copy (ni, h.it_total));
  hist.assign ("residual", sgp_octave::column_copy (ni, h.it_resid));
  hist.assign ("rel_residual", sgp_octave::column_copy (ni, h.it_rel_resid));
  hist.assign ("trace", sgp_octave::column_copy (ni, h.it_trace));
  hist.assign ("rank", sgp_octave::column_copy (ni, h.it_rank));
  hist.assign ("buffer", sgp_octave::column_copy (ni, h.it_buffer));
  hist.assign ("seconds", sgp_octave::column_copy (ni, h.it_time));
  Cell inner (ns, 1);
  for (int64_t i = 0; i < ns; i++)
    inner(i) = std::string (sgp_laplace_stop_name (h.st_inner_stop[i]));
  octave_scalar_map steps;
  steps.assign ("psi", sgp_octave::column_copy (ns, h.st_psi));
  steps.assign ("delta", sgp_octave::column_copy (ns, h.st_delta));
  steps.assign ("mode_error", sgp_octave::column_copy (ns, h.st_mode_err));
  steps.assign ("inner_stop", inner);
  steps.assign ("kernel_products", sgp_octave::column_copy (ns, h.st_kprod));
  steps.assign ("dropped", sgp_octave::column_copy (ns, h.st_dropped));
  steps.assign ("seconds", sgp_octave::column_copy (ns, h.st_time));
  octave_scalar_map res;
  res.assign ("f", sgp_octave::matrix_copy (n, C, fit->f));
  res.assign ("var", sgp_octave::matrix_copy (n, C, fit->var));
  res.assign ("weights", sgp_octave::matrix_copy (n, C, fit->weights));
  res.assign ("root", sgp_octave::matrix_copy (n * C, r, fit->root));
  res.assign ("newton_steps", static_cast<double> (fit->newton_steps));
  res.assign ("iterations", static_cast<double> (fit->iterations));
  res.assign ("converged", fit->converged != 0);
  res.assign ("stop_reason", std::string (sgp_laplace_stop_name (fit->stop_reason)));
  res.assign ("inner_stop_reason",
              std::string (sgp_laplace_stop_name (fit->inner_stop_reason)));
  res.assign ("kernel_products", static_cast<double> (fit->kernel_products));
  res.assign ("history", hist);
  res.assign ("steps", steps);
  return ovl (res);
}

/*
%!test
%! x = linspace (-2, 2, 12)';
%! y = double (x > 0);
%! r = __sgp_laplace__ (x, y, "bernoulli", 1, "rbf", 1, 1, [], [], "cholesky", 20, 12, -1, 1e-8, [1 0 -1 0 -1 1e-5 1e-5], "auto", 1, false, 0);
%! assert (r.converged);
%! assert (size (r.f), [12, 1]);
%! assert (size (r.root), [12, 12]);
%! assert (sign (r.f), 2 * y - 1);
%! assert (numel (r.history.residual), r.iterations);
%!error <likelihood: unknown> __sgp_laplace__ (1, 1, "foo", 1, "rbf", 1, 1, [], [], "cg", 20, 5, -1, 0.01, [1 0 -1 0 -1 1e-5 1e-5], "auto", 1, false, 0)
%!error <y: bernoulli labels must be 0 or 1> __sgp_laplace__ ([1; 2], [0; 2], "bernoulli", 1, "rbf", 1, 1, [], [], "cg", 20, 5, -1, 0.01, [1 0 -1 0 -1 1e-5 1e-5], "auto", 1, false, 0)
%!error <max_iter> __sgp_laplace__ ([1; 2], [0; 1], "bernoulli", 1, "rbf", 1, 1, [], [], "cg", 20, 0, -1, 0.01, [1 0 -1 0 -1 1e-5 1e-5], "auto", 1, false, 0)
%!error <interrupted> __sgp_laplace__ ((1:50)', mod ((1:50)', 2), "bernoulli", 1, "rbf", 1, 1, [], [], "cg", 20, 5, -1, 0.01, [1 0 -1 0 -1 1e-5 1e-5], "auto", 1, false, 0, 0)
%!error <Invalid call> __sgp_laplace__ (1)
*/
