// __sgp_kernel__.cc -- private oct-file behind gp_kernel.m: the kernel matrix.
#include "sgp_octave.h"

#include <climits>

DEFUN_DLD (__sgp_kernel__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {@var{K} =} __sgp_kernel__ (@var{x}, @var{x2}, @var{kernel}, @var{lengthscale}, @var{outputscale}, @var{nthreads})\n\
Private: the kernel matrix @code{k (@var{x}, @var{x2})} of scalegp's C core.\n\
\n\
@var{x} (n1-by-d) and @var{x2} (n2-by-d) are real matrices whose rows are\n\
points; @var{kernel} is @qcode{\"rbf\"}, @qcode{\"matern12\"},\n\
@qcode{\"matern32\"} or @qcode{\"matern52\"}; @var{lengthscale} has 1 or d\n\
positive values; @var{outputscale} is a positive scalar; @var{nthreads} the\n\
OpenMP thread count (0 = default).  Returns the n1-by-n2 matrix @var{K}.\n\
\n\
Use @code{gp_kernel}, which validates its arguments and documents the\n\
kernels; this function only checks types (the core checks values).\n\
@seealso{gp_kernel}\n\
@end deftypefn")
{
  if (args.length () != 6)
    print_usage ();

  // ---- get inputs (views on Octave's buffers, no copies)
  const std::string fn = "gp_kernel";
  const long nthreads = sgp_octave::integer_arg (args(5), fn, "threads", 0, INT_MAX);
  sgp_octave::context ctx (fn, static_cast<int> (nthreads));
  const Matrix x = sgp_octave::matrix_arg (args(0), fn, "x");
  const Matrix x2 = sgp_octave::matrix_arg (args(1), fn, "x2");
  sgp_octave::kernel_spec ks;
  sgp_octave::kernel_arg (ctx, args(2), args(3), args(4), ks);

  // ---- compute (no Octave error inside)
  Matrix K (x.rows (), x2.rows ());
  const int st = sgp_kernel_matrix (ctx.get (), &ks.k, sgp_octave::cview (x),
                                    sgp_octave::cview (x2), sgp_octave::mview (K));

  // ---- return results
  ctx.check (st);
  return ovl (K);
}

/*
%!test
%! K = __sgp_kernel__ ([0; 1], [0; 2], "rbf", 1, 2, 0);
%! assert (K, 2 * exp (-0.5 * [0 4; 1 1]), 1e-14);
%!test
%! x = [0 0; 1 2; -1 0.5];
%! K = __sgp_kernel__ (x, x, "matern12", [0.5 2], 1, 1);
%! assert (diag (K), ones (3, 1));
%! assert (K, K.', 1e-15);
%!error <unknown kernel> __sgp_kernel__ (1, 1, "foo", 1, 1, 0)
%!error <lengthscale> __sgp_kernel__ (1, 1, "rbf", -1, 1, 0)
%!error <outputscale> __sgp_kernel__ (1, 1, "rbf", 1, 0, 0)
%!error <x2> __sgp_kernel__ ([1 2], [1 2 3], "rbf", 1, 1, 0)
%!error <NaN> __sgp_kernel__ (NaN, 1, "rbf", 1, 1, 0)
%!error <empty> __sgp_kernel__ (zeros (0, 2), [1 2], "rbf", 1, 1, 0)
%!error <Invalid call> __sgp_kernel__ (1)
*/
