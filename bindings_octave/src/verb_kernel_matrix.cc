// verb_kernel_matrix.cc -- __sgp_call__ ("kernel_matrix") behind gp_kernel.m: the kernel matrix.
#include "sgp_octave_verbs.h"
#include "sgp_octave.h"

#include <climits>

// Usage: K = __sgp_call__ ("kernel_matrix", x, x2, name, value, ...)
// Private: the kernel matrix k (x, x2) of scalegp's C core.
//
// x (n1-by-d) and x2 (n2-by-d) are real matrices whose rows are
// points; the options (kernel, lengthscale, outputscale, threads) come as
// name/value pairs and go to the core's gp_kernel table, which checks them.
// Returns the n1-by-n2 matrix K.
// See gp_kernel.
octave_value_list
sgp_verbs::kernel_matrix (const octave_value_list& args, int)
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
%! K = __sgp_call__ ("kernel_matrix", [0; 1], [0; 2], "outputscale", 2);
%! assert (K, 2 * exp (-0.5 * [0 4; 1 1]), 1e-14);
%!test
%! x = [0 0; 1 2; -1 0.5];
%! K = __sgp_call__ ("kernel_matrix", x, x, "kernel", "matern12", "lengthscale", [0.5 2], "threads", 1);
%! assert (diag (K), ones (3, 1));
%! assert (K, K.', 1e-15);
%!error <'kernel' must be one of> __sgp_call__ ("kernel_matrix", 1, 1, "kernel", "foo")
%!error <'lengthscale'> __sgp_call__ ("kernel_matrix", 1, 1, "lengthscale", -1)
%!error <'outputscale'> __sgp_call__ ("kernel_matrix", 1, 1, "outputscale", 0)
%!error <'x2'> __sgp_call__ ("kernel_matrix", [1 2], [1 2 3])
%!error <NaN> __sgp_call__ ("kernel_matrix", NaN, 1)
%!error <empty> __sgp_call__ ("kernel_matrix", zeros (0, 2), [1 2])
%!error <Invalid call> __sgp_call__ ("kernel_matrix", 1)
*/
