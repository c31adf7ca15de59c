/* laplace.h -- gp_laplace (IterNCGP, spec shared/spec/gp_laplace.md): internals of
 * the likelihoods and the IterGP inner loop with recycling/compression. The public
 * part (options, fit, predict) is the gp_laplace section of core/include/sgp.h.
 *
 * Storage: every NC-vector is a column-major N-by-C matrix (entry (n, c) at
 * n + N*c); a block of b such vectors is one N-by-(C*b) matrix with ld = N. */
#ifndef SGP_LAPLACE_H
#define SGP_LAPLACE_H

#include "sgp_internal.h"
#include "kernels.h"

/* ------------------------------------------------------------ internal: likelihoods */

typedef struct {
  sgp_likelihood kind;
  int64_t n, C;
  const double *y;        /* N (labels 1..C for softmax) */
  const double *offset;   /* N or NULL */
  const double *noise;    /* gaussian: 1 or N values */
  int64_t n_noise;
  double noise_max;
} sgp_lik;

/* Checks y (and noise/offset) for the likelihood; messages name `y`, `noise`, `offset`. */
int sgp_lik_check(sgp_ctx *ctx, const sgp_lik *lik);
/* At f (N x C): log-likelihood sum, gradient grad (NC), pseudo-target increment
 * delta = W^{-1} grad (NC) and the noise data nd (NC; W^{-1} diagonal, capped at
 * noise_max; softmax: capped 1/pi). Any output pointer may be NULL except nd. */
void sgp_lik_eval(const sgp_lik *lik, const double *f, double *loglik, double *grad,
                  double *delta, double *nd);
/* Y = W^{-1} V for b NC-vectors (V, Y: NC x b with ld NC); Y may not alias V. */
void sgp_lik_winv(const sgp_lik *lik, const double *nd, int64_t b, const double *V,
                  double *Y);
/* Y += W^{-1} V. */
void sgp_lik_winv_add(const sgp_lik *lik, const double *nd, int64_t b, const double *V,
                      double *Y);
/* Softmax per point: out = W_n^dagger u for a C-vector u given inv_pi = 1/pi. */
void sgp_softmax_pinv_apply(int64_t C, const double *inv_pi, int64_t stride,
                            const double *u, int64_t su, double *out, int64_t so);

/* ------------------------------------------------------------ internal: IterGP */

typedef struct {
  int64_t n, C, NC, cap;   /* cap = allocated buffer capacity (columns) */
  int64_t B, r;            /* buffer width, rank of Q */
  double *S, *T, *Q, *G;   /* NC x cap (ld NC); G cap x cap (ld cap): Q = S G */
  double *M, *w, *work;    /* cap x cap, cap, NC x cap */
  double trace_KQ;         /* ||K Q||_F^2 */
  int64_t dropped;         /* eigenpairs dropped by the last virtual run */
} sgp_itergp;

int  sgp_itergp_init(sgp_ctx *ctx, sgp_itergp *s, int64_t n, int64_t C, int64_t cap);
void sgp_itergp_free(sgp_itergp *s);
/* Grows the buffers (geometrically, at most to cap_max columns) so that `need`
 * columns fit; keeps S, T, Q and G. Called between Newton steps, never inside
 * the solver iterations. */
int  sgp_itergp_reserve(sgp_ctx *ctx, sgp_itergp *s, int64_t need, int64_t cap_max);
/* Virtual solver run (spec 3.3) for the noise data nd: replaces S, T by the kept
 * (rotated when compressing) actions and builds Q = S G with Q'K^Q = I.
 * rank < 0: no truncation. Sets *finite to 0 when M is not finite. */
int  sgp_itergp_virtual(sgp_ctx *ctx, sgp_itergp *s, const sgp_lik *lik, const double *nd,
                        int64_t rank, double kappa, double eig_rtol, int *finite);

#endif
