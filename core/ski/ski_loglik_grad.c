/* ski_loglik_grad.c -- gradient of ski_gsgp's log marginal likelihood with
 * respect to theta = (log ell_1..L, log outputscale, log noise) from the
 * sufficient statistics and probe sketches only:
 *   dL/dtheta = 1/2 z'(dA)z - 1/2 tr(A^{-1} dA),  z = A^{-1} y,
 *   dA = W (dK_G) W' (kernel parameters), noise I (log noise).
 * The quadratic term comes from the EFCG mean solve (W'z = B xh + c_x u_y);
 * the trace term by Hutchinson from the same batched EFCG that yields the SLQ
 * tridiagonals (x_j = A^{-1} z_j = W xh_j + c_j z_j, the mBCG idea). dK_G is
 * a grid operator like K_G (sgp_ski_grid_op_deriv): K_G itself for log s, a
 * differentiated generating array or Toeplitz factor for log ell. Nothing
 * here touches the data: the cost per call is that of the solves. */
#include "ski/ski.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double dot(int64_t n, const double *a, const double *b)
{
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* Buffers of one call: the probe solves, the block [t, u_z] that the
 * derivative operators multiply and their products, per-probe trace terms. */
typedef struct {
  int64_t m, t;
  double *wx, *kz, *xz, *in, *out, *acc, *tr, *xh, *wt, *a;
  char *kept;
} grad_work;

static void work_free(grad_work *w)
{
  free(w->wx); free(w->kz); free(w->xz); free(w->in); free(w->out); free(w->acc);
  free(w->tr); free(w->xh); free(w->a); free(w->kept);
}

static int work_alloc(sgp_ctx *ctx, grad_work *w)
{
  const int64_t m = w->m, t = w->t;
  w->wx = sgp_alloc(m * t);
  w->kz = sgp_alloc(m * t);
  w->xz = sgp_alloc(t);
  w->in = sgp_alloc(m * (t + 1));   /* [W'z, u_z1..u_zt] */
  w->out = sgp_alloc(m * (t + 1));
  w->acc = sgp_alloc(m * (t + 1));
  w->tr = sgp_alloc(t);
  w->xh = sgp_alloc(2 * m);         /* xh, then W'z = B xh + c_x u_y */
  w->a = sgp_alloc(m);
  w->kept = (char *)malloc((size_t)t);
  if (!w->wx || !w->kz || !w->xz || !w->in || !w->out || !w->acc || !w->tr || !w->xh ||
      !w->a || !w->kept)
    return sgp_fail(ctx, SGP_ENOMEM, "probes: out of memory for the gradient (%lld probes, "
                    "m = %lld)", (long long)t, (long long)m);
  w->wt = w->xh + m;
  return SGP_OK;
}

/* Entry p: grad = quad - 1/2 mean_j tr_j over the kept probes, and the
 * standard error 1/2 sd_j(tr_j) / sqrt(kept) of that mean. */
static void finish_entry(const grad_work *w, double quad, int p,
                         sgp_ski_loglik_grad_result *res)
{
  double mean = 0.0, ss = 0.0;
  int64_t used = 0;
  for (int64_t j = 0; j < w->t; j++)
    if (w->kept[j]) { mean += w->tr[j]; used++; }
  mean = used > 0 ? mean / (double)used : 0.0;
  for (int64_t j = 0; j < w->t; j++)
    if (w->kept[j]) ss += (w->tr[j] - mean) * (w->tr[j] - mean);
  res->quad[p] = quad;
  res->trace[p] = 0.5 * mean;
  res->grad[p] = quad - 0.5 * mean;
  res->grad_se[p] = used > 1 ? 0.5 * sqrt(ss / (double)(used - 1) / (double)used) : 0.0;
}

int sgp_ski_apply_dkg(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g,
                      const sgp_ski_kg_opts *ko, int sum_dims, unsigned mask, sgp_cmat in,
                      double *out, double *acc)
{
  const int64_t m = in.rows, cols = in.cols;
  int code = SGP_OK, first = 1;
  memset(acc, 0, (size_t)(m * cols) * sizeof(double));
  for (int j = 0; j < g->d && !code; j++) {
    /* one operator for the whole mask, or one per dimension of it; none for
     * m_j = 1 (only lag 0: no slope) */
    const unsigned mj = sum_dims ? (mask & (1u << j)) : (j == 0 ? mask : 0u);
    if (!mj || (sum_dims && g->m[j] == 1)) continue;
    sgp_op dk;
    if ((code = sgp_ski_grid_op_deriv(ctx, k, g, ko, mj, &dk))) return code;
    code = dk.apply(&dk, in, sgp_mat_of(first ? acc : out, m, cols), ctx);
    if (!code && !first)
      for (int64_t i = 0; i < m * cols; i++) acc[i] += out[i];
    first = 0;
    sgp_op_destroy(&dk);
  }
  return code;
}

/* Lengthscale entries 0..L-1: 1/2 (W'z)' dK (W'z) and tr_j = (W'x_j)' dK u_zj. */
static int grad_lengthscales(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_kernel *k,
                             const sgp_ski_kg_opts *ko, int kron, grad_work *w,
                             sgp_ski_loglik_grad_result *res)
{
  const sgp_ski_grid *g = &st->grid;
  const int64_t m = w->m, L = k->n_lengthscale;
  const unsigned all = (1u << g->d) - 1u;
  int code;
  for (int64_t p = 0; p < L; p++) {
    const unsigned mask = L == 1 ? all : 1u << p;
    if ((code = sgp_ski_apply_dkg(ctx, k, g, ko, L == 1 && kron, mask,
                                  sgp_cmat_of(w->in, m, w->t + 1), w->out, w->acc)))
      return code;
    for (int64_t j = 0; j < w->t; j++) w->tr[j] = dot(m, w->wx + j * m, w->acc + (j + 1) * m);
    finish_entry(w, 0.5 * dot(m, w->wt, w->acc), (int)p, res);
  }
  return SGP_OK;
}

/* Outputscale and noise entries. dA/dlog s = W K_G W': quadratic 1/2 (W'z)'a
 * with a = K_G W'z the mean cache, tr_j = (W'x_j)' K_G u_zj (k0 of the SLQ).
 * dA/dlog noise = noise I: z'z = xh'(B xh) + 2 c xh'u_y + c^2 y'y, B xh =
 * W'z - c u_y; tr_j = noise x_j'z_j. */
static void grad_scale_noise(const sgp_ski_stats *st, double noise, double cx, int64_t L,
                             grad_work *w, sgp_ski_loglik_grad_result *res)
{
  const int64_t m = w->m;
  for (int64_t j = 0; j < w->t; j++) w->tr[j] = dot(m, w->wx + j * m, w->kz + j * m);
  finish_entry(w, 0.5 * dot(m, w->wt, w->a), (int)L, res);
  double xbx = 0.0, xu = 0.0;
  for (int64_t i = 0; i < m; i++) {
    xbx += w->xh[i] * (w->wt[i] - cx * st->uy[i]);
    xu += w->xh[i] * st->uy[i];
  }
  const double zz = xbx + 2.0 * cx * xu + cx * cx * st->yy;
  for (int64_t j = 0; j < w->t; j++) w->tr[j] = noise * w->xz[j];
  finish_entry(w, 0.5 * noise * zz, (int)L + 1, res);
}

/* The mean solve: a (mean cache), xh, c_x and W'z = B xh + c_x u_y; the data
 * fit y'z + z'r and its bound (as sgp_ski_loglik's: the same solve, the same
 * value) and the log-likelihood value. */
static int mean_part(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                     const sgp_ski_loglik_opts *o, grad_work *w, double *cx,
                     sgp_ski_loglik_result *v)
{
  sgp_ski_solve_opts so;
  sgp_op B = {0};
  int code;
  sgp_ski_solve_opts_default(&so);
  so.tol = o->mean_tol;
  so.max_iter = o->max_iter;
  so.quad_rtol = o->datafit_rtol;
  if ((code = sgp_ski_mean_efcg(ctx, st, kg, noise, &so, w->a, w->xh, cx, &v->mean_info, NULL,
                                NULL, NULL)))
    return code;
  const sgp_ski_solve_info *mi = &v->mean_info;
  if ((code = sgp_ski_stats_op(ctx, st, &B))) return code;
  code = B.apply(&B, sgp_cmat_of(w->xh, w->m, 1), sgp_mat_of(w->wt, w->m, 1), ctx);
  sgp_op_destroy(&B);
  if (code) return code;
  for (int64_t i = 0; i < w->m; i++) w->wt[i] += *cx * st->uy[i];
  v->datafit = sgp_ski_datafit(o, mi, dot(w->m, st->uy, w->xh) + *cx * st->yy);
  if (!mi->converged || !(sgp_ski_datafit_err(o, mi, v->datafit) <= SGP_SKI_RTOL * v->datafit))
    v->converged = 0;
  v->loglik = -0.5 * (v->logdet + v->datafit + (double)st->n * 1.8378770664093454836);
  return SGP_OK;
}

int sgp_ski_loglik_args(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_kernel *k,
                        sgp_ski_loglik_grad_result *res)
{
  if (!res) return sgp_fail(ctx, SGP_EINVAL, "loglik: result missing");
  memset(res, 0, sizeof *res);
  if (!st) return sgp_fail(ctx, SGP_EINVAL, "stats: missing");
  if (!k) return sgp_fail(ctx, SGP_EINVAL, "kernel: missing");
  return sgp_kernel_check(ctx, k, st->grid.d);
}

int sgp_ski_loglik_grad(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_kernel *k,
                        double noise, const sgp_ski_kg_opts *kgo, const double *uz, double rhoz,
                        int64_t probes, const sgp_ski_loglik_opts *o, double *weights,
                        sgp_ski_loglik_grad_result *res)
{
  sgp_op kg = {0};
  grad_work w;
  double cx = 0.0;
  int code;
  memset(&w, 0, sizeof w);
  if ((code = sgp_ski_loglik_args(ctx, st, k, res))) return code;
  if (probes < 1)
    return sgp_fail(ctx, SGP_EINVAL, "probes: must be at least 1 (got %lld)",
                    (long long)probes);
  if ((code = sgp_ski_grid_op(ctx, k, &st->grid, kgo, &kg))) return code;
  res->ntheta = k->n_lengthscale + 2;
  w.m = st->m;
  w.t = probes;
  sgp_ski_slq_solves sol = {0};
  /* the SLQ checks the rest (noise, options, sketches) */
  if (probes > (INT64_MAX / 8) / (8 * (st->m + 1))) {
    code = sgp_fail(ctx, SGP_ENOMEM, "probes: %lld probes do not fit in memory",
                    (long long)probes);
    goto cleanup;
  }
  if ((code = work_alloc(ctx, &w))) goto cleanup;
  sol.wx = w.wx; sol.kz = w.kz; sol.xz = w.xz; sol.kept = w.kept;
  if ((code = sgp_ski_logdet_slq_solves(ctx, st, &kg, noise, uz, rhoz, probes, o, &res->value,
                                        &sol)))
    goto cleanup;
  if ((code = mean_part(ctx, st, &kg, noise, o, &w, &cx, &res->value))) goto cleanup;
  if (weights) memcpy(weights, w.a, (size_t)w.m * sizeof(double));
  /* the targets y - mu 1 enter L only through -z'(y - mu 1)/2: dL/dmu = 1'z */
  res->dmean = dot(w.m, st->u1, w.xh) + cx * st->ysum;
  memcpy(w.in, w.wt, (size_t)w.m * sizeof(double));
  memcpy(w.in + w.m, uz, (size_t)(w.m * probes) * sizeof(double));
  /* one product each: measuring FFT plans for them would not pay */
  sgp_ski_kg_opts dko;
  if (kgo) dko = *kgo; else sgp_ski_kg_opts_default(&dko);
  dko.expected_products = 0.0;
  const int kron = sgp_ski_grid_op_path(&kg) == SGP_SKI_KG_KRONECKER;
  if ((code = grad_lengthscales(ctx, st, k, &dko, kron, &w, res))) goto cleanup;
  grad_scale_noise(st, noise, cx, k->n_lengthscale, &w, res);
cleanup:
  sgp_op_destroy(&kg);
  work_free(&w);
  return code;
}
