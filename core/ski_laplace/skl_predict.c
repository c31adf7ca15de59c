/* skl_predict.c -- ski_laplace's predictions at new locations: the latent mean
 * w(x)'u^ and its variance w'K w - (K w)' sw B^-1 sw (K w) at the observed
 * cells (scattered: W K w at the observations), one B solve per point (in
 * blocks), never below 0 but by rounding; the
 * response's moments from the likelihood's. The fit (xtest) and predict on a
 * fit read back call the same code on the same numbers. */
#include "ski_laplace/skl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SKL_PREDICT_BLOCK 16

int skl_predict_var_taps(sgp_ctx *ctx, const skl_problem *p, const sgp_op *K, const double *sw,
                         const sgp_ski_laplace_opts *o, int64_t c, int64_t T,
                         const int64_t *idx, const double *w, double *var)
{
  const int64_t m = p->m, n = p->n;
  double *Wm = sgp_alloc(m * c), *KW = sgp_alloc(m * c);
  double *Z = sgp_alloc((n > 0 ? n : 1) * c), *Xsol = sgp_alloc((n > 0 ? n : 1) * c);
  int st = !Wm || !KW || !Z || !Xsol ? sgp_fail(ctx, SGP_ENOMEM, "xtest: out of memory") : SGP_OK;
  const skl_bop B = {p, K, sw};
  if (!st) {
    memset(Wm, 0, (size_t)(m * c) * sizeof(double));
    for (int64_t j = 0; j < c; j++)
      for (int64_t t = 0; t < T; t++)
        if (idx[j * T + t] >= 0) Wm[idx[j * T + t] + j * m] += w[j * T + t];
    st = skl_apply_k(ctx, K, m, c, Wm, KW);
  }
  for (int64_t j = 0; !st && j < c; j++)
    for (int64_t i = 0; i < n; i++) Z[i + j * n] = sw[i] * skl_at(p, KW + j * m, i);
  int conv = 0;
  if (!st && n > 0)
    st = skl_cg(ctx, &B, c, Z, Xsol, o->inner_rtol, o->max_iter, NULL, NULL, NULL, &conv, NULL);
  for (int64_t j = 0; !st && j < c; j++)
    var[j] = sgp_dot(m, Wm + j * m, KW + j * m) - (n > 0 ? sgp_dot(n, Z + j * n, Xsol + j * n) : 0.0);
  free(Wm); free(KW); free(Z); free(Xsol);
  return st;
}

int skl_predict(sgp_ctx *ctx, const skl_problem *p, const sgp_op *K, const double *u,
                const double *sw, const sgp_ski_laplace_opts *o, sgp_cmat Xs, double *mean,
                double *var)
{
  const int64_t ns = Xs.rows;
  const sgp_ski_interpolation ip = p->interp;  /* resolved (o's may say "auto") */
  int st = sgp_ski_predict_mean(ctx, &p->grid, ip, SGP_SKI_BOUNDS_ERROR, Xs, u, mean);
  if (st || !var) return st;
  const int64_t T = sgp_ski_interp_taps(ip, p->grid.d), b = SKL_PREDICT_BLOCK;
  int64_t *idx = malloc((size_t)(b * T) * sizeof(int64_t));
  double *w = sgp_alloc(b * T);
  if (!idx || !w) st = sgp_fail(ctx, SGP_ENOMEM, "xtest: out of memory");
  for (int64_t i0 = 0; !st && i0 < ns; i0 += b) {
    const int64_t c = ns - i0 < b ? ns - i0 : b;
    const sgp_cmat Xc = {Xs.data + i0, c, Xs.cols, Xs.ld};
    if ((st = sgp_ski_interp(ctx, &p->grid, ip, SGP_SKI_BOUNDS_ERROR, Xc, i0, idx, w))) break;
    st = skl_predict_var_taps(ctx, p, K, sw, o, c, T, idx, w, var + i0);
  }
  free(idx); free(w);
  return st;
}

void skl_response(sgp_likelihood kind, double noise, int64_t ns, const double *mean,
                  const double *var, const double *off, double *rm, double *rv)
{
  const sgp_lik_ops *ops = sgp_lik_ops_of(kind);
  sgp_laplace_result fit;
  memset(&fit, 0, sizeof fit);
  fit.likelihood = kind;
  fit.noise = noise;
  for (int64_t i = 0; i < ns; i++) {
    const double v = var ? var[i] : 0.0;
    ops->response(&fit, 1, mean + i, 1, &v, 1, off ? off[i] : 0.0, rm + i, rv + i);
  }
}
