// verb_laplace_fit.cc -- __sgp_call__ ("laplace_fit") behind gp_laplace.m: the IterNCGP fit.
#include "sgp_octave_verbs.h"
#include "sgp_octave.h"

#include <climits>
#include <memory>

namespace
{
  struct fit_deleter
  {
    void operator () (sgp_laplace_result *f) const { sgp_laplace_fit_free (f); }
  };
}

// Usage: res = __sgp_call__ ("laplace_fit", x, y, interrupt_after, name, value, ...)
// Private: the gp_laplace (IterNCGP) fit of scalegp's C core.
//
// y holds the labels as doubles; interrupt_after < 0: none.  The
// options come as name/value pairs and go to the core's option table, which
// checks them (its defaults apply to the others).  Returns the struct the core
// writes (sgp_laplace_fit_plain): f, var, weights, root, newton_steps,
// iterations, converged, stop_reason, inner_stop_reason, kernel_products,
// history, steps, used (the options used and the warnings of a fit
// that did not converge) and selection.
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
  sgp_laplace_result *raw = nullptr;
  const int st = sgp_laplace_fit (ctx.get (), sgp_octave::cview (x), sgp_octave::cview (y),
                                  sgp_cmat_of (nullptr, 0, 0), &o, &raw);
  std::unique_ptr<sgp_laplace_result, fit_deleter> fit (raw);

  // ---- return results
  ctx.check (st);
  const uint64_t seed = ctx.get ()->seed;
  return ovl (sgp_octave::build_map ([&] (sgp_value_arena *a) {
    return sgp_laplace_fit_plain (fit.get (), &o, seed, a);
  }));
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
%!error <interrupted>
%! setenv ("SCALEGP_TEST_HOOKS", "1");  # interrupt_after is a test hook
%! unwind_protect
%!   __sgp_call__ ("laplace_fit", (1:50)', mod ((1:50)', 2), 0);
%! unwind_protect_cleanup
%!   unsetenv ("SCALEGP_TEST_HOOKS");
%! end_unwind_protect
%!error <Invalid call> __sgp_call__ ("laplace_fit", 1)
*/
