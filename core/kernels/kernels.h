/* kernels.h -- tile-level kernel evaluation shared by the operators (core-internal). */
#ifndef SGP_KERNELS_H
#define SGP_KERNELS_H

#include "runtime/sgp_internal.h"

#define SGP_DEFAULT_TILE 512

/* Inputs centred and scaled by the lengthscales, with squared row norms. */
typedef struct sgp_kprep {
  int64_t n, d;
  double *z;      /* n-by-d, column-major, ld = n */
  double *norm2;  /* n */
} sgp_kprep;

/* Largest |x - center| / lengthscale: squared distances of any d such values stay
 * finite (sgp_kprep_init refuses larger ones, naming argname, e.g. "x"). */
#define SGP_MAX_SCALED_INPUT 1e100

/* center may be NULL (no centring); use the same center for both sides of a product. */
int  sgp_kprep_init(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X, const double *center,
                    sgp_kprep *p, const char *argname);
void sgp_kprep_free(sgp_kprep *p);
/* Column means of X into a new array (free with free()). */
int  sgp_column_means(sgp_ctx *ctx, sgp_cmat X, double **center);

/* t[0..ni-1, 0..nj-1] (ld ldt) = k(a rows i0.., b rows j0..). Thread-safe. */
void sgp_kernel_tile(sgp_ctx *ctx, const sgp_kernel *k, const sgp_kprep *a, int64_t i0,
                     int64_t ni, const sgp_kprep *b, int64_t j0, int64_t nj, double *t,
                     int64_t ldt);
/* sgp_kernel_apply with the names of X1 and X2 in its messages (e.g. "xtest", "x"). */
int sgp_kernel_apply_named(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X1, const char *name1,
                           sgp_cmat X2, const char *name2, sgp_cmat V, sgp_mat Y, int tile);
/* One value of k's kernel (kind, alpha; s2 in place of its outputscale) from a
 * squared scaled distance (same arithmetic as the tiles). */
double sgp_kernel_value_r2(const sgp_kernel *k, double s2, double r2);
/* psi = -2 dk/d(r2) from the kernel's value kval = k(r2), so that
 * dk/dlog ell_j = psi (delta_j / ell_j)^2 (0 at r2 = 0 for matern12, whose
 * factor (delta_j / ell_j)^2 <= r2 vanishes there). */
double sgp_kernel_psi(const sgp_kernel *k, double kval, double r2);
/* Derivative of that value with respect to the log of the lengthscale(s) of
 * some dimensions, q2 = their part of r2 (r2 = sum_j (delta_j/ell_j)^2):
 * d k / d log ell = -2 (dk/dr2) q2 (0 when q2 = 0). */
double sgp_kernel_dlogell_r2(const sgp_kernel *k, double s2, double r2, double q2);

/* Y = k(a, b) V, tiled and threaded over row tiles; polls interrupts between row blocks. */
int sgp_kernel_apply_prepared(sgp_ctx *ctx, const sgp_kernel *k, const sgp_kprep *a,
                              const sgp_kprep *b, sgp_cmat V, sgp_mat Y, int tile);
/* Y = k(a, a) V from the tiles on and below the diagonal, each used for both of
 * its places (half the kernel evaluations; kernel_sym_apply.c); the same bitwise
 * for every thread count. Uses up to SGP_KSYM_LANES threads and lanes - 1 extra
 * copies of Y; when those exceed SGP_KSYM_ACC_DOUBLES (or cannot be allocated)
 * it runs sgp_kernel_apply_prepared instead. */
/* The two products of such a tile (kernel_tile_products.c): y += K v and
 * y += K' v for an ni x nj tile K (ld ldk) and nb columns of v and y, in
 * register blocks read straight from the tile up to SGP_TILE_PRODUCT_MAX_NB
 * columns, by BLAS beyond. */
void sgp_tile_product_n(sgp_ctx *ctx, int64_t ni, int64_t nj, int64_t nb, const double *K,
                        int64_t ldk, const double *v, int64_t ldv, double *y, int64_t ldy);
void sgp_tile_product_t(sgp_ctx *ctx, int64_t ni, int64_t nj, int64_t nb, const double *K,
                        int64_t ldk, const double *v, int64_t ldv, double *y, int64_t ldy);
/* Widths up to this take the register-blocked tile products (as fast as or
 * faster than two BLAS calls up to b = 80 in make bench-kernel BENCH_B=...);
 * wider blocks amortize BLAS's packing of the tile. */
#ifndef SGP_TILE_PRODUCT_MAX_NB
#define SGP_TILE_PRODUCT_MAX_NB 64
#endif
/* Tests only: 1 or 0 forces the AVX-512 register blocks on or off, -1 = by CPU. */
void sgp_tile_products_force_wide(int wide);
#define SGP_KSYM_LANES 8
#define SGP_KSYM_ACC_DOUBLES ((int64_t)32 << 20) /* 256 MiB */
int sgp_kernel_apply_symmetric(sgp_ctx *ctx, const sgp_kernel *k, const sgp_kprep *a,
                               sgp_cmat V, sgp_mat Y, int tile);

/* grad[0..n_lengthscale] = sum_ik G_ik dK_ik/dtheta over theta = (log lengthscale(s),
 * log outputscale), and *galpha the same for log alpha (galpha NULL: not
 * computed; 0 for a kernel without alpha), given K = k(X, X) (n x n, ld n: its
 * values are reused, no kernel is evaluated again) and G symmetric n x n (ld ldg;
 * both lower triangles read). One pass over the pairs; the same bitwise for every
 * thread count. */
int sgp_kernel_grad_dense(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X, const double *K,
                          const double *G, int64_t ldg, double *grad, double *galpha);
/* The same for G = U V' (U, V n x r, not symmetric: only G + G' counts), with the
 * kernel evaluated on the fly: one pass over tile x tile blocks on and below the
 * diagonal, each block of G formed by BLAS-3 (tile <= 0: SGP_DEFAULT_TILE). No
 * n x n storage; the same bitwise for every thread count. */
int sgp_kernel_grad_lowrank(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X, sgp_cmat U,
                            sgp_cmat V, int tile, double *grad, double *galpha);

#endif
