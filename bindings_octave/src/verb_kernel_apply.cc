// verb_kernel_apply.cc -- __sgp_call__ ("kernel_apply"), internal: Y = K(x, x) V through the dense
// matrix-free operator of the core (tests and benchmarks).
#include "sgp_octave_verbs.h"
#include "sgp_octave.h"

#include <climits>
#include <cmath>
#include <cstdint>

// Usage: [Y, cached] = __sgp_call__ ("kernel_apply", x, v, kernel, lengthscale, outputscale)
// Usage: [Y, cached] = __sgp_call__ ("kernel_apply", ..., tile, cache_bytes, nthreads, interrupt_after)
// Internal: Y = K(x, x) * v through the dense
// kernel operator of scalegp's C core, for tests and benchmarks.
//
// x is n-by-d, v n-by-b.  tile is the tile size of the
// matrix-free product (0 = default 512).  When 8 n^2 <= cache_bytes
// (default 0) the operator materializes K once and cached is true.
// nthreads is the OpenMP thread count (0 = default).
// interrupt_after (default -1 = off) simulates Ctrl-C: the first
// interrupt_after interrupt polls pass and the next one stops the core,
// which then raises the error "gp_kernel: interrupted".
// See gp_kernel.
octave_value_list
sgp_verbs::kernel_apply (const octave_value_list& args, int)
{
  const int nargin = args.length ();
  if (nargin < 5 || nargin > 9)
    print_usage ();

  // ---- get inputs
  const std::string fn = "gp_kernel";
  const long tile = nargin > 5 ? sgp_octave::integer_arg (args(5), fn, "tile", 0, INT_MAX) : 0;
  double cache_bytes = 0;
  if (nargin > 6)
    {
      cache_bytes = sgp_octave::scalar_arg (args(6), fn, "cache_bytes");
      if (std::isnan (cache_bytes) || cache_bytes < 0)
        error ("%s: cache_bytes must be >= 0", fn.c_str ());
    }
  const long nthreads
    = nargin > 7 ? sgp_octave::integer_arg (args(7), fn, "threads", 0, INT_MAX) : 0;
  const long interrupt_after
    = nargin > 8 ? sgp_octave::integer_arg (args(8), fn, "interrupt_after", -1, LONG_MAX) : -1;

  sgp_octave::context ctx (fn, static_cast<int> (nthreads), false, interrupt_after);
  const Matrix x = sgp_octave::matrix_arg (args(0), fn, "x");
  const Matrix v = sgp_octave::matrix_arg (args(1), fn, "v");
  sgp_octave::kernel_spec ks;
  sgp_octave::kernel_arg (ctx, args(2), args(3), args(4), ks);
  if (v.rows () != x.rows ())
    error ("%s: v must have rows (x) = %ld rows, not %ld", fn.c_str (),
           static_cast<long> (x.rows ()), static_cast<long> (v.rows ()));

  sgp_dense_op_opts o;
  sgp_dense_op_opts_default (&o);
  o.tile = static_cast<int> (tile);
  o.cache_bytes = cache_bytes >= 1.8e19 ? SIZE_MAX : static_cast<size_t> (cache_bytes);

  // ---- compute: the guard destroys the operator on every path
  Matrix Y (x.rows (), v.cols ());
  int cached = 0;
  int st;
  {
    sgp_octave::op_guard g;
    st = sgp_op_dense_kernel (ctx.get (), &ks.k, sgp_octave::cview (x), &o, &g.op, &cached);
    if (st == SGP_OK)
      st = g.op.apply (&g.op, sgp_octave::cview (v), sgp_octave::mview (Y), ctx.get ());
  }

  // ---- return results
  ctx.check (st);
  return ovl (Y, cached != 0);
}

/*
%!test
%! x = [0; 0.5; 2];  v = [1 0; 0 1; 1 1];
%! K = exp (-0.5 * (x - x.') .^ 2);
%! [Y, cached] = __sgp_call__ ("kernel_apply", x, v, "rbf", 1, 1);
%! assert (Y, K * v, 1e-13);
%! assert (cached, false);
%! [Y, cached] = __sgp_call__ ("kernel_apply", x, v, "rbf", 1, 1, 2, 1e6, 1);
%! assert (Y, K * v, 1e-13);
%! assert (cached, true);
%!error <interrupted>
%! setenv ("SCALEGP_TEST_HOOKS", "1");  # interrupt_after is a test hook
%! unwind_protect
%!   __sgp_call__ ("kernel_apply", rand (50, 1), ones (50, 1), "rbf", 1, 1, 1, 0, 1, 0);
%! unwind_protect_cleanup
%!   unsetenv ("SCALEGP_TEST_HOOKS");
%! end_unwind_protect
%!error <v must have> __sgp_call__ ("kernel_apply", [1; 2], [1; 2; 3], "rbf", 1, 1)
%!error <tile> __sgp_call__ ("kernel_apply", [1; 2], [1; 2], "rbf", 1, 1, -3)
%!error <Invalid call> __sgp_call__ ("kernel_apply", 1, 1)
*/
