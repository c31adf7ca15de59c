/* kernels.c -- stationary covariance functions evaluated in cache-sized tiles.
 *
 * Inputs are centred and divided by the lengthscales once ("prepared"), so a
 * tile's squared distances are |z|^2 + |z'|^2 - 2 z.z', one dgemm per tile for
 * d > 4 and direct differences otherwise. Entries whose distance suffers from
 * cancellation (r^2 tiny next to the norms, e.g. the diagonal) are recomputed
 * directly, so near-coincident points keep full accuracy. */
/* The tile transform must vectorize, so every build compiles this file with
 * -fno-math-errno -fno-trapping-math (KERNEL_CFLAGS in the makefiles): sqrt's
 * errno guard and FP-trap semantics would otherwise block it, and nothing here
 * reads errno or traps. On x86-64 Linux the tile loops are also cloned for
 * AVX-512 and AVX2/FMA (target_clones.h, which also fixes their contraction). */
#include "kernels/kernels.h"
#include "kernels/kernel_table.h"
#include "kernels/target_clones.h"
#include "api/sgp_options.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sgp_kernel_from_name(sgp_ctx *ctx, const char *name, sgp_kernel_kind *kind)
{
  for (int i = 0; i < SGP_KERNEL_COUNT; i++)
    if (name && strcmp(name, sgp_kernel_names[i]) == 0) {
      *kind = (sgp_kernel_kind)i;
      return SGP_OK;
    }
  char list[256] = "";
  for (int i = 0; i < SGP_KERNEL_COUNT; i++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"",
             i == 0 ? "" : i + 1 < SGP_KERNEL_COUNT ? ", " : " or ", sgp_kernel_names[i]);
  return sgp_fail(ctx, SGP_EINVAL, "kernel: is unknown: \"%s\"; use %s", name ? name : "", list);
}

const char *sgp_kernel_name(sgp_kernel_kind kind)
{
  const sgp_kernel_info *info = sgp_kernel_info_of(kind);
  return info ? info->name : "unknown";
}

int sgp_kernel_check(sgp_ctx *ctx, const sgp_kernel *k, int64_t d)
{
  const sgp_kernel_info *info = sgp_kernel_info_of(k->kind);
  if (!info) return sgp_fail(ctx, SGP_EINVAL, "kernel: unknown kernel code %d", (int)k->kind);
  if (k->n_lengthscale != 1 && k->n_lengthscale != d)
    return sgp_fail(ctx, SGP_EDIM, "lengthscale: has %lld values; need 1 or ncol(x) = %lld",
                    (long long)k->n_lengthscale, (long long)d);
  for (int64_t j = 0; j < k->n_lengthscale; j++)
    if (!isfinite(k->lengthscale[j]) || k->lengthscale[j] <= 0)
      return sgp_fail(ctx, SGP_EINVAL, "lengthscale: must be positive and finite (value %lld is %g)",
                      (long long)(j + 1), k->lengthscale[j]);
  if (!isfinite(k->outputscale) || k->outputscale <= 0)
    return sgp_fail(ctx, SGP_EINVAL, "outputscale: must be positive and finite (got %g)",
                    k->outputscale);
  if (info->uses_alpha && !(isfinite(k->alpha) && k->alpha > 0))
    return sgp_fail(ctx, SGP_EINVAL, "alpha: must be positive and finite (got %g)", k->alpha);
  return SGP_OK;
}

int sgp_check_finite(sgp_ctx *ctx, const char *argname, sgp_cmat a)
{
  if (a.rows <= 0 || a.cols <= 0)
    return sgp_fail(ctx, SGP_EDIM, "%s: is empty (%lld x %lld)", argname, (long long)a.rows,
                    (long long)a.cols);
  for (int64_t j = 0; j < a.cols; j++)
    for (int64_t i = 0; i < a.rows; i++)
      if (!isfinite(a.data[i + j * a.ld]))
        return sgp_fail(ctx, SGP_EINVAL, "%s: contains NaN or Inf (row %lld, column %lld)",
                        argname, (long long)(i + 1), (long long)(j + 1));
  return SGP_OK;
}

int sgp_check_bounded(sgp_ctx *ctx, const char *argname, sgp_cmat a, double bound)
{
  int st = sgp_check_finite(ctx, argname, a);
  if (st) return st;
  for (int64_t j = 0; j < a.cols; j++)
    for (int64_t i = 0; i < a.rows; i++)
      if (fabs(a.data[i + j * a.ld]) > bound)
        return sgp_fail(ctx, SGP_EINVAL, "%s: %g at row %lld, column %lld is too large (at most "
                        "%g in magnitude: larger values overflow; rescale them)", argname,
                        a.data[i + j * a.ld], (long long)(i + 1), (long long)(j + 1), bound);
  return SGP_OK;
}

/* ------------------------------------------------------------ prepared inputs */

int sgp_kprep_init(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X, const double *center,
                   sgp_kprep *p, const char *argname)
{
  const int64_t n = X.rows, d = X.cols;
  memset(p, 0, sizeof *p);
  p->n = n;
  p->d = d;
  p->z = sgp_alloc(n * d);
  p->norm2 = sgp_alloc(n);
  if (!p->z || !p->norm2) {
    sgp_kprep_free(p);
    return sgp_fail(ctx, SGP_ENOMEM, "out of memory preparing %lld x %lld inputs",
                    (long long)n, (long long)d);
  }
  for (int64_t j = 0; j < d; j++) {
    const double ell = k->lengthscale[k->n_lengthscale == 1 ? 0 : j];
    const double c = center ? center[j] : 0.0;
    for (int64_t i = 0; i < n; i++) {
      const double x = X.data[i + j * X.ld];
      /* a subnormal input has lost its precision and every distance of it underflows:
       * the kernel would see one point */
      if (x != 0.0 && fabs(x) < DBL_MIN) {
        sgp_kprep_free(p);
        return sgp_fail(ctx, SGP_EINVAL, "%s: has %g at row %lld, column %lld, a subnormal "
                        "number (below %g in magnitude, where doubles lose their precision); "
                        "rescale the inputs", argname, x, (long long)(i + 1), (long long)(j + 1), DBL_MIN);
      }
      p->z[i + j * n] = (x - c) / ell;
    }
  }
  /* squared distances of d such values must stay finite */
  for (int64_t q = 0; q < n * d; q++)
    if (!(fabs(p->z[q]) <= SGP_MAX_SCALED_INPUT)) {
      const double z = p->z[q];
      sgp_kprep_free(p);
      return sgp_fail(ctx, SGP_EINVAL,
                      "%s: divided by the lengthscale, its distance to the data mean reaches "
                      "%g (row %lld, column %lld); it must stay below %g: rescale the inputs "
                      "or the lengthscale", argname, fabs(z), (long long)(q % n + 1),
                      (long long)(q / n + 1), SGP_MAX_SCALED_INPUT);
    }
  for (int64_t i = 0; i < n; i++) {
    double s = 0.0;
    for (int64_t j = 0; j < d; j++) s += p->z[i + j * n] * p->z[i + j * n];
    p->norm2[i] = s;
  }
  return SGP_OK;
}

void sgp_kprep_free(sgp_kprep *p)
{
  free(p->z);
  free(p->norm2);
  p->z = p->norm2 = NULL;
}

int sgp_column_means(sgp_ctx *ctx, sgp_cmat X, double **center)
{
  double *c = sgp_calloc(X.cols);
  if (!c) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  for (int64_t j = 0; j < X.cols; j++) {
    double s = 0.0;
    for (int64_t i = 0; i < X.rows; i++) s += X.data[i + j * X.ld];
    c[j] = X.rows > 0 ? s / (double)X.rows : 0.0;
  }
  *center = c;
  return SGP_OK;
}

/* ------------------------------------------------------------ tile evaluation */

/* Few dimensions (d <= 4): each squared distance from direct differences and
 * turned into its kernel value in the same pass over the tile; the loops are
 * written per d so that they vectorize. */
SGP_TARGET_CLONES static void tile_direct(sgp_kernel_kind kind, double s2, double al,
                                          const sgp_kprep *a, int64_t i0, int64_t ni,
                                          const sgp_kprep *b, int64_t j0, int64_t nj, double *t,
                                          int64_t ldt)
{
  const int64_t d = a->d;
  const double *za[4];
  for (int64_t l = 0; l < d; l++) za[l] = a->z + i0 + l * a->n;
  for (int64_t j = 0; j < nj; j++) {
    double *col = t + j * ldt, zb[4];
    for (int64_t l = 0; l < d; l++) zb[l] = b->z[j0 + j + l * b->n];
#define SQ(l) ((za[l][i] - zb[l]) * (za[l][i] - zb[l]))
#define DIRECT_LOOP_D(K, R2) \
  _Pragma("omp simd") for (int64_t i = 0; i < ni; i++) col[i] = sgp_kernel_of_r2(K, s2, al, R2);
#define DIRECT_LOOP(K)                                                             \
  switch (d) {                                                                     \
  case 1: DIRECT_LOOP_D(K, SQ(0)) break;                                           \
  case 2: DIRECT_LOOP_D(K, SQ(0) + SQ(1)) break;                                   \
  case 3: DIRECT_LOOP_D(K, SQ(0) + SQ(1) + SQ(2)) break;                           \
  default: DIRECT_LOOP_D(K, SQ(0) + SQ(1) + SQ(2) + SQ(3)) break;                  \
  }
    SGP_KERNEL_DISPATCH(kind, DIRECT_LOOP)
#undef DIRECT_LOOP
#undef DIRECT_LOOP_D
#undef SQ
  }
}

/* Many dimensions (d > 4): t holds -2 za.zb' (one dgemm); r2 = |za|^2 + |zb|^2 +
 * t and its kernel value in one pass. Entries whose r2 cancelled (below 1e-4
 * of the norms, e.g. the diagonal) are marked -1 there (kernel values are >= 0)
 * and recomputed from direct differences after it, so near-coincident points
 * keep full accuracy. */
SGP_TARGET_CLONES static void tile_from_dots(sgp_kernel_kind kind, double s2, double al,
                                             const sgp_kprep *a, int64_t i0, int64_t ni,
                                             const sgp_kprep *b, int64_t j0, int64_t nj,
                                             double *t, int64_t ldt)
{
  const int64_t d = a->d;
  const double *na = a->norm2 + i0;
  for (int64_t j = 0; j < nj; j++) {
    double *col = t + j * ldt;
    const double nb = b->norm2[j0 + j];
    double marked = 0.0;
#define DOTS_LOOP(K)                                                             \
  _Pragma("omp simd reduction(+ : marked)") for (int64_t i = 0; i < ni; i++) {   \
    const double scale = na[i] + nb, v = col[i] + scale;                         \
    const int c = v < 1e-4 * scale;                                              \
    marked += c ? 1.0 : 0.0;                                                     \
    col[i] = c ? -1.0 : sgp_kernel_of_r2(K, s2, al, v);                                  \
  }
    SGP_KERNEL_DISPATCH(kind, DOTS_LOOP)
#undef DOTS_LOOP
    for (int64_t i = 0; marked > 0.0 && i < ni; i++)
      if (col[i] < 0.0) {
        double v = 0.0;
        for (int64_t l = 0; l < d; l++) {
          const double diff = a->z[i0 + i + l * a->n] - b->z[j0 + j + l * b->n];
          v += diff * diff;
        }
        col[i] = sgp_kernel_of_r2(kind, s2, al, v);
      }
  }
}

/* Turns squared distances into kernel values in place. */
SGP_TARGET_CLONES static void tile_transform(sgp_kernel_kind kind, double s2, double al,
                                             int64_t ni, int64_t nj, double *t, int64_t ldt)
{
  for (int64_t j = 0; j < nj; j++) {
    double *c = t + j * ldt;
#define TRANSFORM_LOOP(K)                                                        \
  _Pragma("omp simd") for (int64_t i = 0; i < ni; i++) c[i] = sgp_kernel_of_r2(K, s2, al, c[i]);
    SGP_KERNEL_DISPATCH(kind, TRANSFORM_LOOP)
#undef TRANSFORM_LOOP
  }
}

void sgp_kernel_tile(sgp_ctx *ctx, const sgp_kernel *k, const sgp_kprep *a, int64_t i0,
                     int64_t ni, const sgp_kprep *b, int64_t j0, int64_t nj, double *t,
                     int64_t ldt)
{
  if (a->d <= 4) {
    tile_direct(k->kind, k->outputscale, k->alpha, a, i0, ni, b, j0, nj, t, ldt);
    return;
  }
  /* dgemm cannot fail on these sizes */
  (void)sgp_gemm(ctx, 'N', 'T', ni, nj, a->d, -2.0, a->z + i0, a->n, b->z + j0, b->n, 0.0, t,
                 ldt);
  tile_from_dots(k->kind, k->outputscale, k->alpha, a, i0, ni, b, j0, nj, t, ldt);
}

double sgp_kernel_value_r2(const sgp_kernel *k, double s2, double r2)
{
  double v = r2;
  tile_transform(k->kind, s2, k->alpha, 1, 1, &v, 1);
  return v;
}

double sgp_kernel_psi(const sgp_kernel *k, double kval, double r2)
{
  return sgp_kernel_psi_of(k->kind, k->alpha, kval, r2);
}

double sgp_kernel_dlogell_r2(const sgp_kernel *k, double s2, double r2, double q2)
{
  if (!(q2 > 0)) return 0.0; /* no distance along the differentiated lengthscales */
  /* matern12's psi has 1/r, but q2 / r <= r: the product vanishes at the origin */
  return sgp_kernel_psi(k, sgp_kernel_value_r2(k, s2, r2), r2) * q2;
}
