// __sgp_kernel__.cc -- private oct-file behind gp_kernel.m: the kernel matrix.
#include "sgp_octave.h"

#include <climits>

DEFUN_DLD (__sgp_kernel__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {@var{K} =} __sgp_kernel__ (@var{x}, @var{x2}, @var{name}, @var{value}, @dots{})\n\
Private: the kernel matrix @code{k (@var{x}, @var{x2})} of scalegp's C core.\n\
\n\
@var{x} (n1-by-d) and @var{x2} (n2-by-d) are real matrices whose rows are\n\
points; the options (kernel, lengthscale, outputscale, threads) come as\n\
name/value pairs and go to the core's gp_kernel table, which checks them.\n\
Returns the n1-by-n2 matrix @var{K}.\n\
@seealso{gp_kernel}\n\
@end deftypefn")
{
  if (args.length () < 2)
    print_usage ();

  // ---- get inputs (views on Octave's buffers, no copies)
  const std::string fn = "gp_kernel";
  sgp_octave::context ctx (fn, 0);
  const Matrix x = sgp_octave::matrix_arg (args(0), fn, "x");
  const Matrix x2 = sgp_octave::matrix_arg (args(1), fn, "x2");
  sgp_kernel_opts o;
  sgp_octave::option_store keep;
  sgp_octave::verb_options (ctx, "gp_kernel", sgp_kernel_opts_default, args, 2, o, keep);

  // ---- compute (no Octave error inside)
  Matrix K (x.rows (), x2.rows ());
  const int st = sgp_kernel_matrix (ctx.get (), &o.kernel, sgp_octave::cview (x),
                                    sgp_octave::cview (x2), sgp_octave::mview (K));

  // ---- return results
  ctx.check (st);
  return ovl (K);
}

/*
%!test
%! K = __sgp_kernel__ ([0; 1], [0; 2], "outputscale", 2);
%! assert (K, 2 * exp (-0.5 * [0 4; 1 1]), 1e-14);
%!test
%! x = [0 0; 1 2; -1 0.5];
%! K = __sgp_kernel__ (x, x, "kernel", "matern12", "lengthscale", [0.5 2], "threads", 1);
%! assert (diag (K), ones (3, 1));
%! assert (K, K.', 1e-15);
%!error <'kernel' must be one of> __sgp_kernel__ (1, 1, "kernel", "foo")
%!error <'lengthscale'> __sgp_kernel__ (1, 1, "lengthscale", -1)
%!error <'outputscale'> __sgp_kernel__ (1, 1, "outputscale", 0)
%!error <'x2'> __sgp_kernel__ ([1 2], [1 2 3])
%!error <NaN> __sgp_kernel__ (NaN, 1)
%!error <empty> __sgp_kernel__ (zeros (0, 2), [1 2])
%!error <Invalid call> __sgp_kernel__ (1)
*/
