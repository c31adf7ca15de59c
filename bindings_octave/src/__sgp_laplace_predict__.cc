// __sgp_laplace_predict__.cc -- private oct-file behind scalegp_predict for
// gp_laplace fits: predictions from the plain data of a (reloaded) fit struct.
#include "sgp_octave.h"

#include <climits>

DEFUN_DLD (__sgp_laplace_predict__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {@var{p} =} __sgp_laplace_predict__ (@var{x}, @var{weights}, @var{root}, @var{likelihood}, @var{kernel}, @var{lengthscale}, @var{outputscale}, @var{noise}, @var{xnew}, @var{offset}, @var{nthreads}, @var{fname}, @var{xname}, @var{mean})\n\
Private: gp_laplace predictions at @var{xnew} from the training inputs\n\
@var{x} (n-by-d), representer weights (n-by-C) and root (nC-by-r) of a fit.\n\
@var{offset} is the Poisson log exposure at @var{xnew} or empty.  Returns a\n\
struct with m-by-C fields mean, var (latent) and resp_mean, resp_var (the\n\
response: class probabilities, Poisson rate, Gaussian observation).\n\
Errors name the function @var{fname} and the test inputs @var{xname}\n\
(defaults \"scalegp_predict\", \"xnew\").\n\
@seealso{scalegp_predict, gp_laplace}\n\
@end deftypefn")
{
  if (args.length () != 11 && args.length () != 13 && args.length () != 14)
    print_usage ();

  // ---- get inputs
  const bool named = args.length () >= 13;
  const std::string fn = named ? args(11).string_value () : "scalegp_predict";
  const std::string xname = named ? args(12).string_value () : "xnew";
  const Matrix prior_mean = args.length () == 14
                              ? sgp_octave::matrix_arg (args(13), fn, "mean") : Matrix ();
  const long nthreads = sgp_octave::integer_arg (args(10), fn, "threads", 0, INT_MAX);
  sgp_octave::context ctx (fn, static_cast<int> (nthreads));
  const Matrix x = sgp_octave::matrix_arg (args(0), fn, "x");
  const Matrix w = sgp_octave::matrix_arg (args(1), fn, "weights");
  const Matrix root = sgp_octave::matrix_arg (args(2), fn, "root");
  const std::string lname = sgp_octave::string_arg (args(3), fn, "likelihood");
  sgp_octave::kernel_spec ks;
  sgp_octave::kernel_arg (ctx, args(4), args(5), args(6), ks);
  const double noise = sgp_octave::scalar_arg (args(7), fn, "noise");
  const Matrix xnew = sgp_octave::matrix_arg (args(8), fn, "xnew");
  const Matrix offset = sgp_octave::matrix_arg (args(9), fn, "offset");
  const int lik = sgp_opt_choice_index ("gp_laplace", "likelihood", lname.c_str ());
  if (lik < 0)
    error ("%s: likelihood: unknown value \"%s\"", fn.c_str (), lname.c_str ());

  // ---- compute (no Octave error inside)
  sgp_laplace_fit_t view;
  int st = sgp_laplace_fit_view (ctx.get (), &view, sgp_octave::cview (x),
                                 sgp_octave::cview (w),
                                 root.isempty () ? sgp_cmat_of (nullptr, 0, 0)
                                                 : sgp_octave::cview (root),
                                 &ks.k, static_cast<sgp_likelihood> (lik), noise,
                                 prior_mean.isempty () ? sgp_cmat_of (nullptr, 0, 0)
                                                       : sgp_octave::cview (prior_mean));
  ctx.check (st);
  const octave_idx_type m = xnew.rows (), C = w.cols ();
  Matrix mean (m, C), var (m, C), rm (m, C), rv (m, C);
  st = sgp_laplace_predict (ctx.get (), &view, sgp_octave::cview (xnew),
                            offset.isempty () ? sgp_cmat_of (nullptr, 0, 0)
                                              : sgp_octave::cview (offset),
                            sgp_octave::mview (mean), sgp_octave::mview (var),
                            sgp_octave::mview (rm), sgp_octave::mview (rv));

  // ---- return results
  sgp_ctx_rename_arg (ctx.get (), "xtest", xname.c_str ());
  ctx.check (st);
  octave_scalar_map p;
  p.assign ("mean", mean);
  p.assign ("var", var);
  p.assign ("resp_mean", rm);
  p.assign ("resp_var", rv);
  return ovl (p);
}

/*
%!test
%! ## no root: the prior variance; weights give the mean k(x*, x) w
%! p = __sgp_laplace_predict__ ([0; 1], [1; -1], [], "bernoulli", "rbf", 1, 2, 0, [0; 0.5], [], 0);
%! k = @(a, b) 2 * exp (-0.5 * (a - b') .^ 2);
%! assert (p.mean, k ([0; 0.5], [0; 1]) * [1; -1], 1e-14);
%! assert (p.var, [2; 2]);
%! assert (p.resp_mean, 1 ./ (1 + exp (-p.mean ./ sqrt (1 + pi * 2 / 8))), 1e-14);
%!error <weights> __sgp_laplace_predict__ ([0; 1], [1; -1; 0], [], "bernoulli", "rbf", 1, 1, 0, 0, [], 0)
%!error <root> __sgp_laplace_predict__ ([0; 1], [1; -1], ones (3, 1), "bernoulli", "rbf", 1, 1, 0, 0, [], 0)
%!error <'xnew' has 2 columns> __sgp_laplace_predict__ ([0; 1], [1; -1], [], "bernoulli", "rbf", 1, 1, 0, [0 0], [], 0)
%!error <likelihood> __sgp_laplace_predict__ ([0; 1], [1; -1], [], "probit", "rbf", 1, 1, 0, 0, [], 0)
*/
