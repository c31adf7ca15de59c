/* r_kernel.c -- .Call entry points for kernel matrices and matrix-free products. */
#include "r_shim.h"

/* gp_kernel(): the n1-by-n2 kernel matrix. */
/* gp_kernel(): opts, the user's options by name (the core's gp_kernel table and
 * the context's threads). */
SEXP sgp_kernel_matrix_r(SEXP x, SEXP x2, SEXP opts)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_kernel_opts o;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  sgp_kernel_opts_default(&o);
  int st = sgp_r_apply_options(&ctx, "gp_kernel", opts, &o);
  if (st) sgp_r_fail("gp_kernel", &ctx, st);
  const sgp_cmat X1 = sgp_r_cmat(x), X2 = sgp_r_cmat(x2);
  SEXP K = PROTECT(Rf_allocMatrix(REALSXP, (int)X1.rows, (int)X2.rows));
  st = sgp_kernel_matrix(&ctx, &o.kernel, X1, X2, sgp_r_mat(K));
  if (st) sgp_r_fail("gp_kernel", &ctx, st);
  UNPROTECT(1);
  return K;
}

/* Internal: Y = K V through the dense operator, applied `reps` times for
 * benchmarks; returns the seconds for building the operator and per product. */
SEXP sgp_kernel_apply_r(SEXP x, SEXP v, SEXP kernel, SEXP lengthscale, SEXP outputscale,
                        SEXP tile, SEXP cache_bytes, SEXP threads, SEXP interrupt_after,
                        SEXP reps)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_kernel k;
  sgp_op op = {0};
  sgp_dense_op_opts o;
  int cached = 0;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, threads, interrupt_after);
  const sgp_cmat X = sgp_r_cmat(x), V = sgp_r_cmat(v);
  const int nreps = Rf_asInteger(reps);
  SEXP Y = PROTECT(Rf_allocMatrix(REALSXP, (int)X.rows, (int)V.cols));
  SEXP secs = PROTECT(Rf_allocVector(REALSXP, nreps));
  double setup = 0.0, t0 = sgp_r_seconds();
  sgp_dense_op_opts_default(&o);
  o.tile = Rf_asInteger(tile);
  o.cache_bytes = (size_t)Rf_asReal(cache_bytes);
  int st = sgp_ctx_test_hook(&ctx, "interrupt_after", hooks.interrupt_after);
  if (!st) st = sgp_r_kernel(&ctx, kernel, lengthscale, outputscale, &k);
  if (!st) st = sgp_op_dense_kernel(&ctx, &k, X, &o, &op, &cached);
  setup = sgp_r_seconds() - t0;
  for (int r = 0; r < nreps && !st; r++) {
    t0 = sgp_r_seconds();
    st = op.apply(&op, V, sgp_r_mat(Y), &ctx);
    REAL(secs)[r] = sgp_r_seconds() - t0;
  }
  sgp_op_destroy(&op);
  if (st) sgp_r_fail("kernel_apply", &ctx, st);
  const char *names[] = {"y", "cached", "setup_seconds", "seconds"};
  SEXP values[] = {Y, PROTECT(Rf_ScalarLogical(cached)), PROTECT(Rf_ScalarReal(setup)), secs};
  SEXP out = sgp_r_named_list(4, names, values);
  UNPROTECT(4);
  return out;
}
