/* ski_loglik.c -- log marginal likelihood of ski_gsgp:
 *  - a counter-based Rademacher probe RNG keyed by (seed, probe, global row);
 *  - probe sketches W' z_j accumulated chunk by chunk;
 *  - stochastic Lanczos quadrature of logdet A: batched efficiently factorized
 *    CG (Alg. A3, general start r0 = z_j, x0 = 0) on all probes at once, with
 *    the Lanczos tridiagonal rebuilt from the CG coefficients, and on
 *    request the probe solves A^{-1} z_j of the same iterates (the gradient's
 *    Hutchinson traces, ski_loglik_grad.c);
 *  - the data fit y'A^{-1}y = u_y' xhat + c_x rho_y from the EFCG mean solve. */
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

static uint64_t mix64(uint64_t z)
{
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double sgp_ski_probe_value(uint64_t seed, int64_t probe, int64_t row)
{
  const uint64_t h = mix64(mix64(mix64(seed) ^ (uint64_t)probe) ^ (uint64_t)row);
  return (h >> 63) ? 1.0 : -1.0;
}

#define SKETCH_BLOCK 4096
#define LOG_2PI 1.8378770664093454836 /* log(2 pi) */

int sgp_ski_probe_sketch(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                         sgp_ski_bounds_policy policy, sgp_cmat X, int64_t first_row,
                         uint64_t seed, int64_t probes, double *uz, double *rhoz)
{
  int code;
  int64_t *idx = NULL, kept = 0;
  double *w = NULL;
  if (!g) return sgp_fail(ctx, SGP_EINVAL, "grid: missing");
  if ((code = sgp_ski_grid_check(ctx, g))) return code;
  if (probes < 1)
    return sgp_fail(ctx, SGP_EINVAL, "probes: must be at least 1 (got %lld)",
                    (long long)probes);
  if (!uz || !rhoz) return sgp_fail(ctx, SGP_EINVAL, "probes: sketch outputs missing");
  if (first_row < 0)
    return sgp_fail(ctx, SGP_EINVAL, "first_row: must be non-negative (got %lld)",
                    (long long)first_row);
  if (X.cols != g->d)
    return sgp_fail(ctx, SGP_EDIM, "x: has %lld columns; the grid has %d dimensions",
                    (long long)X.cols, g->d);
  const int64_t n = X.rows, m = sgp_ski_grid_npoints(g), T = sgp_ski_interp_taps(interp, g->d);
  if (n == 0) return SGP_OK;
  const int64_t blk = n < SKETCH_BLOCK ? n : SKETCH_BLOCK;
  idx = (int64_t *)malloc((size_t)(blk * T) * sizeof(int64_t));
  w = sgp_alloc(blk * T);
  if (!idx || !w) {
    code = sgp_fail(ctx, SGP_ENOMEM, "x: out of memory for interpolation weights");
    goto cleanup;
  }
  const int nthreads = probes > 1 ? sgp_par_threads(ctx, 2.0 * (double)(blk * T * probes)) : 1;
  (void)nthreads;
  for (int64_t i0 = 0; i0 < n; i0 += blk) {
    const int64_t nb = n - i0 < blk ? n - i0 : blk;
    const sgp_cmat Xb = {X.data + i0, nb, X.cols, X.ld};
    if ((code = sgp_poll_interrupt(ctx))) goto cleanup; /* between blocks */
    if ((code = sgp_ski_interp(ctx, g, interp, policy, Xb, first_row + i0, idx, w)))
      goto cleanup;
    for (int64_t i = 0; i < nb; i++) /* a dropped point is no row of the model */
      kept += policy != SGP_SKI_BOUNDS_DROP || idx[i * T] >= 0;
    /* each probe column is owned by one thread; rows in data order */
#pragma omp parallel for num_threads(nthreads) schedule(static)
    for (int64_t j = 0; j < probes; j++) {
      double *u = uz + j * m;
      for (int64_t i = 0; i < nb; i++) {
        const double z = sgp_ski_probe_value(seed, j, first_row + i0 + i);
        for (int64_t t = 0; t < T; t++)
          if (idx[i * T + t] >= 0) u[idx[i * T + t]] += w[i * T + t] * z;
      }
    }
  }
  *rhoz += (double)kept; /* Rademacher: z_i^2 = 1 */
cleanup:
  free(idx);
  free(w);
  return code;
}

void sgp_ski_loglik_opts_default(sgp_ski_loglik_opts *o)
{
  o->tol = 0.01;
  o->slq_max_iter = 100;
  o->mean_tol = 0.01;
  o->datafit_rtol = 0.0;
  o->max_iter = 1000;
  o->eig_precond = SGP_SKI_EIG_PRECOND_MARGINAL;
  o->marginals = NULL;
}

int sgp_ski_loglik_opts_check(sgp_ctx *ctx, const sgp_ski_loglik_opts *o)
{
  if (!o) return sgp_fail(ctx, SGP_EINVAL, "tol: options missing");
  if (!(o->tol >= 0) || !isfinite(o->tol))
    return sgp_fail(ctx, SGP_EINVAL, "tol: must be a non-negative number (got %g)", o->tol);
  if (!(o->mean_tol >= 0) || !isfinite(o->mean_tol))
    return sgp_fail(ctx, SGP_EINVAL, "tol: must be a non-negative number (got %g)",
                    o->mean_tol);
  if (o->slq_max_iter < 1 || o->slq_max_iter > 100000)
    return sgp_fail(ctx, SGP_EINVAL, "slq_max_iter: must be in 1..100000 (got %lld)",
                    (long long)o->slq_max_iter);
  if (o->max_iter < 0)
    return sgp_fail(ctx, SGP_EINVAL, "max_iter: must be non-negative (got %lld)",
                    (long long)o->max_iter);
  if (o->eig_precond != SGP_SKI_EIG_PRECOND_MARGINAL &&
      o->eig_precond != SGP_SKI_EIG_PRECOND_DENSITY)
    return sgp_fail(ctx, SGP_EINVAL, "eig_precond: unknown preconditioner %d", o->eig_precond);
  return SGP_OK;
}

static int slq_nonfinite(sgp_ctx *ctx, int64_t k)
{
  return sgp_fail(ctx, SGP_EINVAL,
                  "outputscale: the log-determinant's Lanczos met a non-finite value at step "
                  "%lld (an overflow: y, outputscale and noise must be of moderate magnitude)",
                  (long long)k);
}

static int check_slq_args(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg,
                          double noise, const double *uz, double rhoz, int64_t probes,
                          const sgp_ski_loglik_opts *o, const sgp_ski_loglik_result *res)
{
  int code;
  if ((code = sgp_ski_check_model(ctx, st, kg, noise))) return code;
  if ((code = sgp_ski_loglik_opts_check(ctx, o))) return code;
  if (!res) return sgp_fail(ctx, SGP_EINVAL, "loglik: result missing");
  if (probes < 1)
    return sgp_fail(ctx, SGP_EINVAL, "probes: must be at least 1 (got %lld)",
                    (long long)probes);
  if (!uz) return sgp_fail(ctx, SGP_EINVAL, "probes: sketches missing");
  if (!(rhoz >= 0) || !isfinite(rhoz))
    return sgp_fail(ctx, SGP_EINVAL, "probes: rho_z must be a non-negative number (got %g)",
                    rhoz);
  const int64_t m = st->m, t = probes;
  if (t > (INT64_MAX / 8) / (8 * m))
    return sgp_fail(ctx, SGP_ENOMEM, "probes: %lld probes do not fit in memory",
                    (long long)t);
  for (int64_t i = 0; i < m * t; i++)
    if (!isfinite(uz[i]))
      return sgp_fail(ctx, SGP_EINVAL, "probes: sketch contains NaN or Inf");
  return SGP_OK;
}

/* Batched CG of the t probes: k0 r p u v s z (m-by-t each); per probe the
 * scalars c_r, c_p, gamma, kappa0, the CG coefficients alpha, beta (K each),
 * the step count and whether it still runs; with solves, also the iterates
 * x_j = W xh_j + c_x z_j and xd = B xh (m-by-t each), and which probes the
 * quadrature kept. */
typedef struct {
  int64_t m, t, K;
  double s2, rho0, nb;
  double *buf, *sc, *coef, *tri, *gam, *xbuf;
  int64_t *its;
  char *live, *kept;
  double *k0, *rh, *ph, *uh, *vh, *sh, *zh, *xh, *xd, *cx;
  double *cr, *cp, *gamma, *kappa0, *alpha, *beta;
} slq_work;

static void slq_free(slq_work *w)
{
  free(w->buf); free(w->sc); free(w->coef); free(w->tri); free(w->gam); free(w->its);
  free(w->live); free(w->kept); free(w->xbuf);
}

/* The iterates' storage, when the caller wants the probe solves. */
static int slq_alloc_solves(sgp_ctx *ctx, slq_work *w)
{
  const int64_t m = w->m, t = w->t;
  w->xbuf = sgp_calloc(2 * m * t + t);
  w->kept = (char *)calloc((size_t)t, 1);
  if (!w->xbuf || !w->kept)
    return sgp_fail(ctx, SGP_ENOMEM, "probes: out of memory for %lld probe solves (m = %lld)",
                    (long long)t, (long long)m);
  w->xh = w->xbuf; w->xd = w->xbuf + m * t; w->cx = w->xbuf + 2 * m * t;
  return SGP_OK;
}

static int slq_alloc(sgp_ctx *ctx, slq_work *w)
{
  const int64_t m = w->m, t = w->t, K = w->K;
  w->buf = sgp_calloc(7 * m * t);
  w->sc = sgp_calloc(4 * t);
  w->coef = sgp_calloc(2 * K * t);
  w->tri = sgp_alloc(2 * K + K + K * K);
  w->gam = sgp_alloc(t);
  w->its = (int64_t *)calloc((size_t)t, sizeof(int64_t));
  w->live = (char *)calloc((size_t)t, 1);
  if (!w->buf || !w->sc || !w->coef || !w->tri || !w->gam || !w->its || !w->live)
    return sgp_fail(ctx, SGP_ENOMEM, "probes: out of memory for %lld SLQ solves (m = %lld)",
                    (long long)t, (long long)m);
  double *buf = w->buf;
  w->k0 = buf; w->rh = buf + m * t; w->ph = buf + 2 * m * t; w->uh = buf + 3 * m * t;
  w->vh = buf + 4 * m * t; w->sh = buf + 5 * m * t; w->zh = buf + 6 * m * t;
  w->cr = w->sc; w->cp = w->sc + t; w->gamma = w->sc + 2 * t; w->kappa0 = w->sc + 3 * t;
  w->alpha = w->coef; w->beta = w->coef + K * t;
  return SGP_OK;
}

/* Start of A3 with r0 = z_j, x0 = 0: k0 = K_G u_z, kappa0 = u_z' k0. */
static int slq_start(sgp_ctx *ctx, const sgp_op *kg, const double *uz, slq_work *w)
{
  const int64_t m = w->m, t = w->t;
  int code;
  if ((code = kg->apply(kg, sgp_cmat_of(uz, m, t), sgp_mat_of(w->k0, m, t), ctx))) return code;
  for (int64_t j = 0; j < t; j++) {
    w->kappa0[j] = dot(m, uz + j * m, w->k0 + j * m);
    w->cr[j] = w->cp[j] = 1.0;
    w->gamma[j] = w->rho0;
    w->live[j] = 1; /* at least one step: the quadrature needs T of order >= 1 */
  }
  return SGP_OK;
}

/* Step k, first half per live probe: the step length alpha and the residual
 * update; a breakdown (delta <= 0) stops that probe. */
static int slq_alpha_step(sgp_ctx *ctx, const double *uz, int64_t k, slq_work *w,
                          sgp_ski_loglik_result *res)
{
  const int64_t m = w->m, K = w->K;
  const double s2 = w->s2, rho0 = w->rho0;
  for (int64_t j = 0; j < w->t; j++) {
    if (!w->live[j]) continue;
    const double *u0 = uz + j * m, *kj = w->k0 + j * m, *s = w->sh + j * m, *z = w->zh + j * m,
                 *p = w->ph + j * m;
    double *r = w->rh + j * m;
    const double c = w->cp[j];
    const double *as[4] = {s, s, z, p}, *bs[4] = {z, kj, u0, u0};
    double d4[4];
    sgp_ski_dot4(m, as, bs, d4);
    const double delta = d4[0] + c * (d4[1] + d4[2]) + c * c * w->kappa0[j] + s2 * c * d4[3] +
                         s2 * c * c * rho0;
    if (!isfinite(delta)) return slq_nonfinite(ctx, k + 1);
    if (!(delta > 0)) { w->live[j] = 0; res->converged = 0; continue; } /* breakdown */
    const double a = w->gamma[j] / delta;
    for (int64_t i = 0; i < m; i++) r[i] -= a * (z[i] + c * kj[i]);
    w->cr[j] -= a * s2 * c;
    if (w->xh) { /* x += a p, kept as xh, B xh (s = B p) and c_x */
      double *xh = w->xh + j * m, *xd = w->xd + j * m;
      for (int64_t i = 0; i < m; i++) {
        xh[i] += a * p[i];
        xd[i] += a * s[i];
      }
      w->cx[j] += a * c;
    }
    w->alpha[w->its[j] + j * K] = a;
  }
  return SGP_OK;
}

/* Step k, second half per live probe (u = B r and v = K_G u given): the new
 * residual norm gamma, the convergence test, beta and the direction update. */
static int slq_beta_step(sgp_ctx *ctx, const double *uz, int64_t k, double tol, slq_work *w,
                         sgp_ski_loglik_result *res)
{
  const int64_t m = w->m, K = w->K;
  const double s2 = w->s2, rho0 = w->rho0;
  for (int64_t j = 0; j < w->t; j++) {
    if (!w->live[j]) continue;
    const double *u0 = uz + j * m, *r = w->rh + j * m, *u = w->uh + j * m;
    double *v = w->vh + j * m, *p = w->ph + j * m, *s = w->sh + j * m, *z = w->zh + j * m;
    for (int64_t i = 0; i < m; i++) v[i] += s2 * r[i];
    double ru, ru0;
    sgp_ski_dot2(m, r, u, r, u0, &ru, &ru0);
    double g2 = ru + 2.0 * w->cr[j] * ru0 + w->cr[j] * w->cr[j] * rho0;
    if (!isfinite(g2)) return slq_nonfinite(ctx, k + 1);
    /* below zero by rounding: the Krylov space is exhausted (an invariant
     * subspace), which is what the quadrature converges to */
    if (g2 < 0) g2 = 0;
    w->its[j]++;
    if (w->its[j] > res->slq_iterations) res->slq_iterations = w->its[j];
    if (sqrt(g2) <= tol * w->nb || g2 == 0.0) { w->live[j] = 0; continue; }
    const double b = g2 / w->gamma[j];
    w->beta[w->its[j] - 1 + j * K] = b;
    for (int64_t i = 0; i < m; i++) {
      p[i] = r[i] + b * p[i];
      s[i] = u[i] + b * s[i];
      z[i] = v[i] + b * z[i];
    }
    w->cp[j] = w->cr[j] + b * w->cp[j];
    w->gamma[j] = g2;
  }
  return SGP_OK;
}

/* Batched A3: the columns share one B and one K_G block product per iteration;
 * finished columns are frozen (their r, u, v stay unused). */
static int slq_run(sgp_ctx *ctx, const sgp_op *kg, const sgp_op *B, const double *uz,
                   double tol, slq_work *w, sgp_ski_loglik_result *res)
{
  const int64_t m = w->m, t = w->t;
  int code;
  for (int64_t k = 0; k < w->K; k++) {
    int active = 0;
    for (int64_t j = 0; j < t; j++) active |= w->live[j];
    if (!active) break;
    if ((code = sgp_poll_interrupt(ctx))) return code;
    if ((code = slq_alpha_step(ctx, uz, k, w, res))) return code;
    if ((code = B->apply(B, sgp_cmat_of(w->rh, m, t), sgp_mat_of(w->uh, m, t), ctx))) return code;
    if ((code = kg->apply(kg, sgp_cmat_of(w->uh, m, t), sgp_mat_of(w->vh, m, t), ctx)))
      return code;
    if ((code = slq_beta_step(ctx, uz, k, tol, w, res))) return code;
  }
  for (int64_t j = 0; j < t; j++)
    if (w->live[j]) res->converged = 0; /* ran out of Krylov steps */
  return SGP_OK;
}

int sgp_ski_cg_quadrature(sgp_ctx *ctx, int64_t k, const double *alpha, const double *beta,
                          double *work, double *value, int *ok)
{
  double *dg = work, *off = work + k, *ev = work + 2 * k, *V = work + 3 * k;
  int code;
  for (int64_t i = 0; i < k; i++) {
    dg[i] = 1.0 / alpha[i] + (i > 0 ? beta[i - 1] / alpha[i - 1] : 0.0);
    if (i + 1 < k) off[i] = sqrt(beta[i]) / alpha[i];
  }
  if ((code = sgp_tridiag_eig(ctx, (int)k, dg, off, ev, V))) return code;
  double gsum = 0.0;
  *ok = 1;
  for (int64_t i = 0; i < k && *ok; i++) {
    if (!(ev[i] > 0)) *ok = 0;
    else gsum += V[i * k] * V[i * k] * log(ev[i]);
  }
  *value = gsum;
  return SGP_OK;
}

/* Quadrature per probe: T from the CG coefficients; gam[0..*used) gets
 * rho0 e1' log(T) e1 of each probe with positive Ritz values. */
static int slq_quadrature(sgp_ctx *ctx, slq_work *w, sgp_ski_loglik_result *res, int64_t *used)
{
  const int64_t K = w->K;
  int code;
  *used = 0;
  for (int64_t j = 0; j < w->t; j++) {
    const int64_t kj = w->its[j];
    if (kj == 0) { res->probes_discarded++; continue; }
    double gsum;
    int ok;
    if ((code = sgp_ski_cg_quadrature(ctx, kj, w->alpha + j * K, w->beta + j * K, w->tri,
                                      &gsum, &ok)))
      return code;
    if (!ok) { res->probes_discarded++; continue; }
    if (w->kept) w->kept[j] = 1;
    w->gam[(*used)++] = w->rho0 * gsum;
  }
  return SGP_OK;
}

/* The probe solves for sgp_ski_slq_solves (x_j = W xh_j + c_j z_j). */
static void slq_export(const slq_work *w, const double *uz, sgp_ski_slq_solves *sol)
{
  const int64_t m = w->m;
  for (int64_t j = 0; j < w->t; j++) {
    const double *u0 = uz + j * m, *xh = w->xh + j * m, *xd = w->xd + j * m;
    const double c = w->cx[j];
    double *wx = sol->wx + j * m;
    for (int64_t i = 0; i < m; i++) wx[i] = xd[i] + c * u0[i];
    sol->xz[j] = dot(m, xh, u0) + c * w->rho0;
    sol->kept[j] = w->kept[j];
  }
  if (sol->kz) memcpy(sol->kz, w->k0, (size_t)(m * w->t) * sizeof(double));
}

int sgp_ski_logdet_slq(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                       const double *uz, double rhoz, int64_t probes,
                       const sgp_ski_loglik_opts *o, sgp_ski_loglik_result *res)
{
  return sgp_ski_logdet_slq_solves(ctx, st, kg, noise, uz, rhoz, probes, o, res, NULL);
}

int sgp_ski_logdet_slq_solves(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg,
                              double noise, const double *uz, double rhoz, int64_t probes,
                              const sgp_ski_loglik_opts *o, sgp_ski_loglik_result *res,
                              sgp_ski_slq_solves *sol)
{
  int code;
  sgp_op B;
  slq_work w;
  memset(&B, 0, sizeof B);
  memset(&w, 0, sizeof w);
  if ((code = check_slq_args(ctx, st, kg, noise, uz, rhoz, probes, o, res))) return code;
  res->logdet = 0.0;
  res->logdet_se = 0.0;
  res->probes_used = res->probes_discarded = 0;
  res->slq_iterations = 0;
  res->converged = 1;
  if (sol && (!sol->wx || !sol->xz || !sol->kept))
    return sgp_fail(ctx, SGP_EINVAL, "probes: room for the probe solves missing");
  if (rhoz == 0.0) { /* n = 0: logdet of 0x0 is 0; x_j = 0 */
    res->probes_used = probes;
    if (sol) {
      memset(sol->wx, 0, (size_t)(st->m * probes) * sizeof(double));
      memset(sol->xz, 0, (size_t)probes * sizeof(double));
      memset(sol->kept, 1, (size_t)probes);
      if (sol->kz) memset(sol->kz, 0, (size_t)(st->m * probes) * sizeof(double));
    }
    return SGP_OK;
  }
  if ((code = sgp_ski_stats_op(ctx, st, &B))) return code;
  w.m = st->m; w.t = probes; w.K = o->slq_max_iter;
  w.s2 = noise; w.rho0 = rhoz; w.nb = sqrt(rhoz);
  int64_t used = 0;
  if ((code = slq_alloc(ctx, &w))) goto cleanup;
  if (sol && (code = slq_alloc_solves(ctx, &w))) goto cleanup;
  if ((code = slq_start(ctx, kg, uz, &w))) goto cleanup;
  if ((code = slq_run(ctx, kg, &B, uz, o->tol, &w, res))) goto cleanup;
  if ((code = slq_quadrature(ctx, &w, res, &used))) goto cleanup;
  if (sol) slq_export(&w, uz, sol);
  res->probes_used = used;
  if (res->probes_discarded > 0) res->converged = 0; /* fewer probes than asked for */
  if (used > 0) {
    double mean = 0.0, ss = 0.0;
    for (int64_t j = 0; j < used; j++) mean += w.gam[j];
    mean /= (double)used;
    for (int64_t j = 0; j < used; j++) ss += (w.gam[j] - mean) * (w.gam[j] - mean);
    res->logdet = mean;
    res->logdet_se = used > 1 ? sqrt(ss / (double)(used - 1) / (double)used) : 0.0;
  } else {
    code = sgp_fail(ctx, SGP_ENOTPD, "probes: every probe gave a non-positive Ritz value");
  }
cleanup:
  sgp_op_destroy(&B);
  slq_free(&w);
  return code;
}

double sgp_ski_datafit(const sgp_ski_loglik_opts *o, const sgp_ski_solve_info *mi, double yx)
{
  return o->datafit_rtol > 0 ? mi->quad : yx;
}

double sgp_ski_datafit_err(const sgp_ski_loglik_opts *o, const sgp_ski_solve_info *mi,
                           double datafit)
{
  return mi->quad_err + (o->datafit_rtol > 0 ? 0.0 : fabs(datafit - mi->quad));
}

int sgp_ski_loglik(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                   const double *uz, double rhoz, int64_t probes, const sgp_ski_loglik_opts *o,
                   double *weights, sgp_ski_loglik_result *res)
{
  int code;
  double *buf = NULL;
  if ((code = sgp_ski_check_model(ctx, st, kg, noise))) return code;
  if ((code = sgp_ski_loglik_opts_check(ctx, o))) return code;
  if (!res) return sgp_fail(ctx, SGP_EINVAL, "loglik: result missing");
  memset(res, 0, sizeof *res);
  const int64_t m = st->m;
  if ((code = sgp_ski_logdet_slq(ctx, st, kg, noise, uz, rhoz, probes, o, res))) return code;
  buf = sgp_alloc(2 * m);
  if (!buf) return sgp_fail(ctx, SGP_ENOMEM, "stats: out of memory (m = %lld)", (long long)m);
  double *a = weights ? weights : buf, *xh = buf + m, cx = 0.0;
  sgp_ski_solve_opts so;
  sgp_ski_solve_opts_default(&so);
  so.tol = o->mean_tol;
  so.max_iter = o->max_iter;
  /* the data fit y'A^{-1}y from an iterate x with residual r is y'x + x'r,
   * short of it by r'A^{-1}r <= ||r||^2 / noise: at tol 0.01 that bound is up
   * to 1e-4 cond(A) of it; with datafit_rtol the solve runs until it is that
   * fraction of the data fit (the fit's loglik = TRUE) */
  so.quad_rtol = o->datafit_rtol;
  if ((code = sgp_ski_mean_efcg(ctx, st, kg, noise, &so, a, xh, &cx, &res->mean_info, NULL,
                                NULL, NULL)))
    goto cleanup;
  const sgp_ski_solve_info *mi = &res->mean_info;
  res->datafit = sgp_ski_datafit(o, mi, dot(m, st->uy, xh) + cx * st->yy);
  if (!mi->converged || !(sgp_ski_datafit_err(o, mi, res->datafit) <= SGP_SKI_RTOL * res->datafit))
    res->converged = 0;
  res->loglik = -0.5 * (res->logdet + res->datafit + (double)st->n * LOG_2PI);
cleanup:
  free(buf);
  return code;
}
