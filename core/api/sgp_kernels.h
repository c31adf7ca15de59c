/* sgp_kernels.h -- the public C API of the kernels: kinds, parameters and
 * checks, kernel matrices and products, and the operators (sgp_op) every solver takes. */
#ifndef SGP_KERNELS_PUBLIC_H
#define SGP_KERNELS_PUBLIC_H

#include "api/sgp_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- kernels */

typedef enum {
  SGP_KERNEL_RBF = 0,       /* s2 exp(-r^2/2) */
  SGP_KERNEL_MATERN12 = 1,  /* s2 exp(-r) */
  SGP_KERNEL_MATERN32 = 2,  /* s2 (1 + sqrt3 r) exp(-sqrt3 r) */
  SGP_KERNEL_MATERN52 = 3,  /* s2 (1 + sqrt5 r + 5 r^2/3) exp(-sqrt5 r) */
  SGP_KERNEL_RQ = 4,        /* s2 (1 + r^2/(2 alpha))^(-alpha), rational quadratic */
  SGP_KERNEL_COUNT          /* the number of kernels (core/kernels/kernel_table.c has their facts) */
} sgp_kernel_kind;
/* r = || (x - x') / lengthscale || with per-dimension (ARD) or one lengthscale. */

typedef struct {
  sgp_kernel_kind kind;
  const double *lengthscale;  /* n_lengthscale positive values */
  int64_t n_lengthscale;      /* 1 (isotropic) or d (ARD) */
  double outputscale;         /* signal variance s2 > 0 */
  double alpha;               /* shape parameter > 0 of the kernels that have one */
} sgp_kernel;

/* Kernel by name (sgp_kernel_names); SGP_EINVAL if unknown. */
int sgp_kernel_from_name(sgp_ctx *ctx, const char *name, sgp_kernel_kind *kind);
const char *sgp_kernel_name(sgp_kernel_kind kind);
/* Checks the kernel for inputs of dimension d (lengthscale count and positivity,
 * outputscale > 0, alpha > 0 where the kernel has it, all finite); messages name
 * `lengthscale` / `outputscale` / `alpha`. */
int sgp_kernel_check(sgp_ctx *ctx, const sgp_kernel *k, int64_t d);
/* Checks that a matrix argument is non-empty and finite; names it in errors. */
int sgp_check_finite(sgp_ctx *ctx, const char *argname, sgp_cmat a);
/* sgp_check_finite, and every |value| <= bound (SGP_MAX_DATA_VALUE for data
 * whose squares and products must not overflow); the error names argname. */
int sgp_check_bounded(sgp_ctx *ctx, const char *argname, sgp_cmat a, double bound);
#define SGP_MAX_DATA_VALUE 1e100

/* K = k(X1, X2), an n1-by-n2 block (tiled, OpenMP). X1, X2: n-by-d rows. */
int sgp_kernel_matrix(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X1, sgp_cmat X2,
                      sgp_mat K);
/* Y = k(X1, X2) V without forming the kernel matrix: V is n2-by-b, Y n1-by-b.
 * Each kernel entry is evaluated once per call (tiles of `tile` rows/columns,
 * 0 = default 512); rows are split between threads, so results do not depend on
 * the thread count. Polls the interrupt hook between row blocks. */
int sgp_kernel_apply(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X1, sgp_cmat X2,
                     sgp_cmat V, sgp_mat Y, int tile);

/* ---------------------------------------------------------------- operators */

/* A symmetric linear operator on R^n applied to blocks of b vectors. */
typedef struct sgp_op {
  int64_t n;
  void *state;
  /* Y = A V for an n-by-b block V (b >= 1). */
  int  (*apply)(const struct sgp_op *op, sgp_cmat V, sgp_mat Y, sgp_ctx *ctx);
  /* d = diag(A), an n-by-1 view. */
  int  (*diag)(const struct sgp_op *op, sgp_mat d, sgp_ctx *ctx);
  void (*destroy)(struct sgp_op *op);
} sgp_op;

/* Releases the operator's state (safe on a zeroed or already destroyed op). */
void sgp_op_destroy(sgp_op *op);

typedef struct {
  double shift;             /* adds shift * I (e.g. noise variance); default 0 */
  int tile;                 /* tile size of the products (matrix-free, or blocks of
                               the cached K); default 512 */
  size_t cache_bytes;       /* materialize K once when 8 n^2 bytes fit; default 0
                               (always matrix-free). Only its lower triangle is
                               touched: about 4 n^2 bytes become resident */
} sgp_dense_op_opts;

void sgp_dense_op_opts_default(sgp_dense_op_opts *o);
/* Operator K(X, X) + shift I. X and the kernel's lengthscale array must outlive
 * the operator (they are not copied). Sets *cached to 1 when K was materialized
 * (cached may be NULL). */
int sgp_op_dense_kernel(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X,
                        const sgp_dense_op_opts *o, sgp_op *op, int *cached);
/* Operator for an explicit symmetric n-by-n matrix (not copied). */
int sgp_op_matrix(sgp_ctx *ctx, sgp_cmat A, sgp_op *op);


/* gp_kernel's options: its kernel. */
typedef struct { sgp_kernel kernel; } sgp_kernel_opts;
void sgp_kernel_opts_default(sgp_kernel_opts *o);
#ifdef __cplusplus
}
#endif
#endif /* SGP_KERNELS_PUBLIC_H */
