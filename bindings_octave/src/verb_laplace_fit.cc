// verb_laplace_fit.cc -- __sgp_call__ ("laplace_fit") behind gp_laplace.m: the IterNCGP fit.
#include "sgp_octave_verbs.h"
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

  // The options a fit used, under their argument names, and its warning ("" when
  // converged).
  octave_scalar_map
  used_map (const sgp_ctx *ctx, const sgp_laplace_opts& o, const sgp_laplace_fit_t& fit)
  {
    char warn[SGP_LAPLACE_WARNING_SIZE], ids[128];
    sgp_laplace_warning (&fit, &o, warn, sizeof warn, ids, sizeof ids);
    octave_scalar_map kernel;
    kernel.assign ("kernel", std::string (sgp_kernel_names[fit.kernel.kind]));
    kernel.assign ("lengthscale", sgp_octave::matrix_copy (1, fit.kernel.n_lengthscale,
                                                           fit.kernel.lengthscale));
    kernel.assign ("outputscale", fit.kernel.outputscale);
    octave_scalar_map u;
    u.assign ("kernel", kernel);
    u.assign ("likelihood", std::string (sgp_opt_choice_name ("gp_laplace", "likelihood", o.likelihood)));
    u.assign ("policy", std::string (sgp_opt_choice_name ("gp_laplace", "policy", o.policy)));
    u.assign ("n_class", static_cast<double> (fit.C));
    // the one noise value used (given or learned), or the user's per-point values
    const bool per_point = o.noise.data && o.noise.rows * o.noise.cols > 1;
    u.assign ("noise", o.likelihood != SGP_LIK_GAUSSIAN ? Matrix ()
                       : per_point ? sgp_octave::matrix_copy (o.noise.rows, 1, o.noise.data)
                                   : Matrix (1, 1, fit.noise));
    u.assign ("offset", o.offset.data ? sgp_octave::matrix_copy (o.offset.rows, 1, o.offset.data)
                                      : Matrix ());
    u.assign ("seed", static_cast<double> (ctx->seed));
    u.assign ("warning", std::string (warn));
    u.assign ("warning_id", std::string (ids));
    return u;
  }
}

// Usage: res = __sgp_call__ ("laplace_fit", x, y, interrupt_after, name, value, ...)
// Private: the gp_laplace (IterNCGP) fit of scalegp's C core.
//
// y holds the labels as doubles; interrupt_after < 0: none.  The
// options come as name/value pairs and go to the core's option table, which
// checks them (its defaults apply to the others).  Returns a struct with
// fields f, var, weights, root, newton_steps, iterations, converged,
// stop_reason, inner_stop_reason, kernel_products, history, steps and used
// (the options used and the warning of a fit that did not converge).
// See gp_laplace.
octave_value_list
sgp_verbs::laplace_fit (const octave_value_list& args, int)
{
  if (args.length () < 3)
    print_usage ();

  // ---- get inputs
  const std::string fn = "gp_laplace";
  const long interrupt_after = sgp_octave::integer_arg (args(2), fn, "interrupt_after", -1,
                                                        LONG_MAX);
  sgp_octave::context ctx (fn, 0, false, interrupt_after);
  const Matrix x = sgp_octave::matrix_arg (args(0), fn, "x");
  const Matrix y = sgp_octave::matrix_arg (args(1), fn, "y");
  sgp_laplace_opts o;
  sgp_octave::option_store keep;
  sgp_octave::verb_options (ctx, "gp_laplace", sgp_laplace_opts_default, args, 3, o, keep);

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
  res.assign ("used", used_map (ctx.get (), o, *fit));
  res.assign ("selection", sgp_octave::selection_map (fit->hyper));
  return ovl (res);
}

/*
%!test
%! x = linspace (-2, 2, 12)';
%! y = double (x > 0);
%! r = __sgp_call__ ("laplace_fit", x, y, -1, "policy", "cholesky", "max_iter", 12, "tol", 1e-8, "seed", 1);
%! assert (r.converged);
%! assert (size (r.f), [12, 1]);
%! assert (size (r.root), [12, 12]);
%! assert (sign (r.f), 2 * y - 1);
%! assert (numel (r.history.residual), r.iterations);
%! assert (r.used.kernel.kernel, "rbf");
%!error <'likelihood' must be one of> __sgp_call__ ("laplace_fit", 1, 1, -1, "likelihood", "foo")
%!error <gp_laplace: 'y' bernoulli labels must be 0 or 1> __sgp_call__ ("laplace_fit", [1; 2], [0; 2], -1)
%!error <'max_iter' must be a whole number> __sgp_call__ ("laplace_fit", [1; 2], [0; 1], -1, "max_iter", 0)
%!error <unknown option 'foo'> __sgp_call__ ("laplace_fit", [1; 2], [0; 1], -1, "foo", 1)
%!error <interrupted> __sgp_call__ ("laplace_fit", (1:50)', mod ((1:50)', 2), 0)
%!error <Invalid call> __sgp_call__ ("laplace_fit", 1)
*/
