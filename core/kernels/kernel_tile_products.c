/* kernel_tile_products.c -- the two products of a symmetric-product tile,
 * y_i += K v_j and y_j += K' v_i, read straight from the tile (column-major,
 * L2-resident) in register blocks. A BLAS call would first pack the tile (once
 * per product), and at the few right-hand sides of a solver (b ~ 10) those
 * copies cost as much as the multiplications themselves. Each
 * output entry is summed in a fixed order, so the result does not depend on
 * the thread count. Vectors of 4 doubles (GNU C vector extensions) map onto
 * AVX2/AVX-512 registers in the clones (target_clones.h) and onto SSE2 pairs
 * elsewhere. */
#include "kernels/kernels.h"
#include "kernels/target_clones.h"

#include <string.h>

#define INLINE static inline __attribute__((always_inline))

typedef double vd4 __attribute__((vector_size(32)));

/* unaligned loads and stores (macros: vector arguments would draw -Wpsabi) */
#define LOAD4(dst, p) memcpy(&(dst), (p), sizeof(vd4))
#define STORE4(p, src) memcpy((p), &(src), sizeof(vd4))
#define SUM4(v) (((v)[0] + (v)[1]) + ((v)[2] + (v)[3]))

/* y[i0..i0+4 RV, c..c+CB) += K[i0.., 0..nj) v[0..nj, c..c+CB): RV vectors of rows
 * against up to 10 columns of v, so the tile's row strip is read once for a
 * solver's b ~ 10 (RV CB accumulators, RV tile loads and one broadcast live) */
INLINE void n_block(int RV, int CB, int64_t i0, int64_t nj, const double *K, int64_t ldk,
                    const double *v, int64_t ldv, double *y, int64_t ldy)
{
  vd4 acc[2][10];
  _Pragma("GCC unroll 2")
  for (int r = 0; r < RV; r++)
    _Pragma("GCC unroll 10")
    for (int q = 0; q < CB; q++) acc[r][q] = (vd4){0.0, 0.0, 0.0, 0.0};
  for (int64_t j = 0; j < nj; j++) {
    vd4 k[2];
    _Pragma("GCC unroll 2")
    for (int r = 0; r < RV; r++) LOAD4(k[r], K + i0 + 4 * r + j * ldk);
    _Pragma("GCC unroll 10")
    for (int q = 0; q < CB; q++) {
      const double s = v[j + q * ldv];
      _Pragma("GCC unroll 2")
      for (int r = 0; r < RV; r++) acc[r][q] += k[r] * s;
    }
  }
  _Pragma("GCC unroll 2")
  for (int r = 0; r < RV; r++)
    _Pragma("GCC unroll 10")
    for (int q = 0; q < CB; q++) {
      vd4 yq;
      LOAD4(yq, y + i0 + 4 * r + q * ldy);
      yq += acc[r][q];
      STORE4(y + i0 + 4 * r + q * ldy, yq);
    }
}

/* y[j..j+JB, c..c+CB) += K[0..ni, j..j+JB)' v[0..ni, c..c+CB) */
INLINE void t_block(int JB, int CB, int64_t ni, const double *K, int64_t ldk, const double *v,
                    int64_t ldv, double *y, int64_t ldy)
{
  vd4 acc[4][5];
  double tail[4][5];
  _Pragma("GCC unroll 5")
  for (int p = 0; p < JB; p++)
    _Pragma("GCC unroll 5")
    for (int q = 0; q < CB; q++) acc[p][q] = (vd4){0.0, 0.0, 0.0, 0.0}, tail[p][q] = 0.0;
  int64_t i = 0;
  for (; i + 4 <= ni; i += 4) {
    vd4 kk[4], vv[5];
    _Pragma("GCC unroll 5")
    for (int p = 0; p < JB; p++) LOAD4(kk[p], K + i + p * ldk);
    _Pragma("GCC unroll 5")
    for (int q = 0; q < CB; q++) LOAD4(vv[q], v + i + q * ldv);
    _Pragma("GCC unroll 5")
    for (int p = 0; p < JB; p++)
      _Pragma("GCC unroll 5")
      for (int q = 0; q < CB; q++) acc[p][q] += kk[p] * vv[q];
  }
  for (; i < ni; i++)
    _Pragma("GCC unroll 5")
    for (int p = 0; p < JB; p++)
      _Pragma("GCC unroll 5")
      for (int q = 0; q < CB; q++) tail[p][q] += K[i + p * ldk] * v[i + q * ldv];
  _Pragma("GCC unroll 5")
  for (int p = 0; p < JB; p++)
    _Pragma("GCC unroll 5")
    for (int q = 0; q < CB; q++) y[p + q * ldy] += SUM4(acc[p][q]) + tail[p][q];
}

/* AVX-512 (32 vector registers): the wide blocks' 20 accumulators fit. Tests
 * force either choice (sgp_tile_products_force_wide) to cover both paths. */
static int wide_forced = -1;

void sgp_tile_products_force_wide(int wide) { wide_forced = wide; }

static int wide_registers(void)
{
  if (wide_forced >= 0) return wide_forced;
#if defined(__GNUC__) && defined(__x86_64__)
  return __builtin_cpu_supports("avx512vl") ? 1 : 0; /* a bit of a global the loader set */
#else
  return 0;
#endif
}

#define N_CASE(rv, cb) \
  case cb: n_block(rv, cb, i, nj, K, ldk, v + c * ldv, ldv, y + c * ldy, ldy); break;
#define N_CASES(rv) \
  N_CASE(rv, 1) N_CASE(rv, 2) N_CASE(rv, 3) N_CASE(rv, 4) N_CASE(rv, 5) \
  N_CASE(rv, 6) N_CASE(rv, 7) N_CASE(rv, 8) N_CASE(rv, 9) N_CASE(rv, 10)
#define T_CASE(jb, cb) \
  case cb: t_block(jb, cb, ni, kj, ldk, v + c * ldv, ldv, y + j + c * ldy, ldy); break;

/* y[0..ni, 0..nb) += K v, K ni x nj (ld ldk), v nj x nb (ld ldv) */
SGP_TARGET_CLONES static void blocked_n(int64_t ni, int64_t nj, int64_t nb, const double *K,
                                          int64_t ldk, const double *v, int64_t ldv, double *y,
                                          int64_t ldy)
{
  int64_t i = 0;
  if (wide_registers()) /* 32 vector registers: 8 rows (a whole cache line) at once */
    for (; i + 8 <= ni; i += 8)
      for (int64_t c = 0; c < nb; c += 10)
        switch (nb - c < 10 ? nb - c : 10) { N_CASES(2) }
  for (; i + 4 <= ni; i += 4)
    for (int64_t c = 0; c < nb; c += 10)
      switch (nb - c < 10 ? nb - c : 10) { N_CASES(1) }
  for (; i < ni; i++) /* the rows past the last block of 4 */
    for (int64_t c = 0; c < nb; c++) {
      double s = 0.0;
      for (int64_t j = 0; j < nj; j++) s += K[i + j * ldk] * v[j + c * ldv];
      y[i + c * ldy] += s;
    }
}

/* y[0..nj, 0..nb) += K' v, K ni x nj (ld ldk), v ni x nb (ld ldv): 4 (AVX-512)
 * or 2 tile columns against up to 5 columns of v */
SGP_TARGET_CLONES static void blocked_t(int64_t ni, int64_t nj, int64_t nb, const double *K,
                                          int64_t ldk, const double *v, int64_t ldv, double *y,
                                          int64_t ldy)
{
  int64_t j = 0;
  if (wide_registers()) /* 32 vector registers: 4 tile columns (20 accumulators) */
    for (; j + 4 <= nj; j += 4) {
      const double *kj = K + j * ldk;
      for (int64_t c = 0; c < nb; c += 5)
        switch (nb - c < 5 ? nb - c : 5) { T_CASE(4, 1) T_CASE(4, 2) T_CASE(4, 3) T_CASE(4, 4) T_CASE(4, 5) }
    }
  for (; j + 2 <= nj; j += 2) {
    const double *kj = K + j * ldk;
    for (int64_t c = 0; c < nb; c += 5)
      switch (nb - c < 5 ? nb - c : 5) { T_CASE(2, 1) T_CASE(2, 2) T_CASE(2, 3) T_CASE(2, 4) T_CASE(2, 5) }
  }
  for (; j < nj; j++) {
    const double *kj = K + j * ldk;
    for (int64_t c = 0; c < nb; c += 5)
      switch (nb - c < 5 ? nb - c : 5) { T_CASE(1, 1) T_CASE(1, 2) T_CASE(1, 3) T_CASE(1, 4) T_CASE(1, 5) }
  }
}

void sgp_tile_product_n(sgp_ctx *ctx, int64_t ni, int64_t nj, int64_t nb, const double *K,
                        int64_t ldk, const double *v, int64_t ldv, double *y, int64_t ldy)
{
  if (nb <= SGP_TILE_PRODUCT_MAX_NB) blocked_n(ni, nj, nb, K, ldk, v, ldv, y, ldy);
  else (void)sgp_gemm(ctx, 'N', 'N', ni, nb, nj, 1.0, K, ldk, v, ldv, 1.0, y, ldy);
}

void sgp_tile_product_t(sgp_ctx *ctx, int64_t ni, int64_t nj, int64_t nb, const double *K,
                        int64_t ldk, const double *v, int64_t ldv, double *y, int64_t ldy)
{
  if (nb <= SGP_TILE_PRODUCT_MAX_NB) blocked_t(ni, nj, nb, K, ldk, v, ldv, y, ldy);
  else (void)sgp_gemm(ctx, 'T', 'N', nj, nb, ni, 1.0, K, ldk, v, ldv, 1.0, y, ldy);
}
