/* ski_solve.c -- posterior mean solvers of ski_gsgp (spec §4.2, §5.1, §5.3):
 * the SKI baseline CG on A = W K_G W' + noise I (A1) and efficiently
 * factorized CG (A3, corrected per §5.7, x0 = 0, r0 = y), which works with
 * grid-size quantities only. Both stop on ||r_k|| <= tol ||y|| and return the
 * mean cache a = K_G W' A^{-1} y (spec §4.2): mu(x*) = w(x*)' a. */
#include "ski.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sgp_ski_check_model(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise)
{
  if (!st) return sgp_fail(ctx, SGP_EINVAL, "stats: missing");
  if (!kg || kg->n != st->m || !kg->apply)
    return sgp_fail(ctx, SGP_EINVAL, "kg: missing or not of the grid's order %lld",
                    (long long)st->m);
  if (!(noise > 0) || !isfinite(noise))
    return sgp_fail(ctx, SGP_EINVAL, "noise: must be a positive finite variance (got %g)",
                    noise);
  return SGP_OK;
}

void sgp_ski_solve_opts_default(sgp_ski_solve_opts *o)
{
  o->tol = 0.01;
  o->max_iter = 1000;
  o->precond_rank = 0;
}

static int check_opts(sgp_ctx *ctx, const sgp_ski_solve_opts *o)
{
  if (!o) return sgp_fail(ctx, SGP_EINVAL, "tol: options missing");
  if (!(o->tol >= 0) || !isfinite(o->tol))
    return sgp_fail(ctx, SGP_EINVAL, "tol: must be a non-negative number (got %g)", o->tol);
  if (o->max_iter < 0)
    return sgp_fail(ctx, SGP_EINVAL, "max_iter: must be non-negative (got %lld)",
                    (long long)o->max_iter);
  if (o->precond_rank < 0)
    return sgp_fail(ctx, SGP_EINVAL, "precond_rank: must be a whole number >= 0 (got %lld)",
                    (long long)o->precond_rank);
  return SGP_OK;
}

static double dot(int64_t n, const double *a, const double *b)
{
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

int sgp_ski_bop_pair(sgp_ctx *ctx, const sgp_op *B, const sgp_op *kg, double noise, int64_t m,
                     const double *r, double *u, double *v)
{
  int code = B->apply(B, sgp_cmat_of(r, m, 1), sgp_mat_of(u, m, 1), ctx);
  if (!code) code = kg->apply(kg, sgp_cmat_of(u, m, 1), sgp_mat_of(v, m, 1), ctx);
  if (!code)
    for (int64_t i = 0; i < m; i++) v[i] += noise * r[i];
  return code;
}

/* ------------------------------------------------------------ A1 */

int sgp_ski_mean_cg(sgp_ctx *ctx, const sgp_op *ski, sgp_cmat y, const sgp_ski_solve_opts *o,
                    double *weights, double *x_out, sgp_ski_solve_info *info, double *history,
                    double *alpha, double *beta)
{
  int code = SGP_OK;
  double *x = NULL, *r = NULL, *p = NULL, *q = NULL, *u = NULL;
  sgp_ski_solve_info inf = {0, 0, 0.0};
  const sgp_op *kg = sgp_ski_op_ski_kg(ski);
  if (!kg) return sgp_fail(ctx, SGP_EINVAL, "op: not a SKI operator (sgp_ski_op_ski)");
  if ((code = check_opts(ctx, o))) return code;
  const int64_t n = ski->n, m = kg->n;
  if (y.rows != n || (y.cols != 1))
    return sgp_fail(ctx, SGP_EDIM, "y: is %lld x %lld; expected %lld x 1 (the rows of x)",
                    (long long)y.rows, (long long)y.cols, (long long)n);
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(y.data[i]))
      return sgp_fail(ctx, SGP_EINVAL, "y: contains NaN or Inf (row %lld)", (long long)(i + 1));
  if (!weights) return sgp_fail(ctx, SGP_EINVAL, "weights: output missing");
  x = sgp_calloc(n); r = sgp_alloc(n); p = sgp_alloc(n); q = sgp_alloc(n); u = sgp_alloc(m);
  if (!x || !r || !p || !q || !u) {
    code = sgp_fail(ctx, SGP_ENOMEM, "ski: out of memory for CG vectors (n = %lld)",
                    (long long)n);
    goto cleanup;
  }
  memcpy(r, y.data, (size_t)n * sizeof(double));
  memcpy(p, y.data, (size_t)n * sizeof(double));
  double gamma = dot(n, r, r);
  const double nb = sqrt(gamma);
  inf.rel_residual = nb > 0 ? 1.0 : 0.0;
  if (history) history[0] = inf.rel_residual;
  if (nb == 0.0 || 1.0 <= o->tol) inf.converged = 1;
  for (int64_t k = 0; !inf.converged && k < o->max_iter; k++) {
    if ((code = sgp_poll_interrupt(ctx))) goto cleanup;
    if ((code = ski->apply(ski, sgp_cmat_of(p, n, 1), sgp_mat_of(q, n, 1), ctx))) goto cleanup;
    const double pq = dot(n, p, q);
    if (!(pq > 0)) break; /* breakdown (not SPD or exact solution); report as is */
    const double a = gamma / pq;
    for (int64_t i = 0; i < n; i++) { x[i] += a * p[i]; r[i] -= a * q[i]; }
    const double g2 = dot(n, r, r);
    inf.iterations = k + 1;
    inf.rel_residual = sqrt(g2) / nb;
    if (alpha) alpha[k] = a;
    if (history) history[k + 1] = inf.rel_residual;
    if (inf.rel_residual <= o->tol) { inf.converged = 1; break; }
    const double b = g2 / gamma;
    if (beta) beta[k] = b;
    for (int64_t i = 0; i < n; i++) p[i] = r[i] + b * p[i];
    gamma = g2;
  }
  /* a = K_G W' x */
  if ((code = sgp_ski_op_ski_wt(ctx, ski, x, u))) goto cleanup;
  if ((code = kg->apply(kg, sgp_cmat_of(u, m, 1), sgp_mat_of(weights, m, 1), ctx)))
    goto cleanup;
  if (x_out) memcpy(x_out, x, (size_t)n * sizeof(double));
cleanup:
  if (info) *info = inf;
  free(x); free(r); free(p); free(q); free(u);
  return code;
}

/* ------------------------------------------------------------ A3 (EFCG) */

int sgp_ski_mean_efcg(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                      const sgp_ski_solve_opts *o, double *weights, double *xhat_out,
                      double *cx_out, sgp_ski_solve_info *info, double *history, double *alpha,
                      double *beta)
{
  int code = SGP_OK;
  double *buf = NULL;
  sgp_op B;
  sgp_ski_solve_info inf = {0, 0, 0.0};
  memset(&B, 0, sizeof B);
  if ((code = sgp_ski_check_model(ctx, st, kg, noise))) return code;
  const int64_t m = st->m;
  if ((code = check_opts(ctx, o))) return code;
  if (o->precond_rank > 0)
    return sgp_ski_mean_pefcg(ctx, st, kg, noise, o, weights, xhat_out, cx_out, info, history,
                              alpha, beta);
  if (!weights) return sgp_fail(ctx, SGP_EINVAL, "weights: output missing");
  if ((code = sgp_ski_stats_op(ctx, st, &B))) return code;
  /* all work vectors once: k0 r p x xd u v s z tmp */
  buf = sgp_calloc(10 * m);
  if (!buf) {
    code = sgp_fail(ctx, SGP_ENOMEM, "stats: out of memory for EFCG vectors (m = %lld)",
                    (long long)m);
    goto cleanup;
  }
  double *k0 = buf, *rh = buf + m, *ph = buf + 2 * m, *xh = buf + 3 * m, *xd = buf + 4 * m,
         *uh = buf + 5 * m, *vh = buf + 6 * m, *sh = buf + 7 * m, *zh = buf + 8 * m,
         *tmp = buf + 9 * m;
  const double *u0 = st->uy, rho0 = st->yy, s2 = noise;
  double cr = 1.0, cp = 1.0, cx = 0.0, gamma = rho0;
  const double nb = sqrt(rho0);
  if ((code = kg->apply(kg, sgp_cmat_of(u0, m, 1), sgp_mat_of(k0, m, 1), ctx))) goto cleanup;
  const double kappa0 = dot(m, u0, k0);
  inf.rel_residual = nb > 0 ? 1.0 : 0.0;
  if (history) history[0] = inf.rel_residual;
  if (nb == 0.0 || 1.0 <= o->tol) inf.converged = 1;
  for (int64_t k = 0; !inf.converged && k < o->max_iter; k++) {
    if ((code = sgp_poll_interrupt(ctx))) goto cleanup;
    /* delta = p_k' A p_k */
    const double pu = dot(m, ph, u0);
    const double delta = dot(m, sh, zh) + cp * (dot(m, sh, k0) + dot(m, zh, u0)) +
                         cp * cp * kappa0 + s2 * cp * pu + s2 * cp * cp * rho0;
    if (!(delta > 0)) break; /* breakdown; report as is */
    const double a = gamma / delta;
    for (int64_t i = 0; i < m; i++) {
      xh[i] += a * ph[i];
      xd[i] += a * sh[i];
      rh[i] -= a * (zh[i] + cp * k0[i]);
    }
    cx += a * cp;
    cr -= a * s2 * cp;
    if ((code = sgp_ski_bop_pair(ctx, &B, kg, s2, m, rh, uh, vh))) goto cleanup;
    double g2 = dot(m, rh, uh) + 2.0 * cr * dot(m, rh, u0) + cr * cr * rho0;
    if (g2 < 0) g2 = 0; /* rounding below the attainable accuracy */
    inf.iterations = k + 1;
    inf.rel_residual = sqrt(g2) / nb;
    if (alpha) alpha[k] = a;
    if (history) history[k + 1] = inf.rel_residual;
    if (inf.rel_residual <= o->tol) { inf.converged = 1; break; }
    const double b = g2 / gamma;
    if (beta) beta[k] = b;
    for (int64_t i = 0; i < m; i++) {
      ph[i] = rh[i] + b * ph[i];
      sh[i] = uh[i] + b * sh[i];
      zh[i] = vh[i] + b * zh[i];
    }
    cp = cr + b * cp;
    gamma = g2;
  }
  /* W'x = xd + c_x u_y; a = K_G W'x */
  for (int64_t i = 0; i < m; i++) tmp[i] = xd[i] + cx * u0[i];
  if ((code = kg->apply(kg, sgp_cmat_of(tmp, m, 1), sgp_mat_of(weights, m, 1), ctx)))
    goto cleanup;
  if (xhat_out) memcpy(xhat_out, xh, (size_t)m * sizeof(double));
  if (cx_out) *cx_out = cx;
cleanup:
  if (info) *info = inf;
  sgp_op_destroy(&B);
  free(buf);
  return code;
}

/* ------------------------------------------------------------ A4 (sEFCG) */

static int check_common(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                        const sgp_ski_solve_opts *o)
{
  const int code = sgp_ski_check_model(ctx, st, kg, noise);
  return code ? code : check_opts(ctx, o);
}

int sgp_ski_sefcg(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                  const double *rhat0, double nb, const sgp_ski_solve_opts *o, double *xd,
                  double *xhat, sgp_ski_solve_info *info, double *history, double *alpha,
                  double *beta)
{
  int code;
  double *buf = NULL;
  sgp_op B;
  sgp_ski_solve_info inf = {0, 0, 0.0};
  memset(&B, 0, sizeof B);
  if ((code = check_common(ctx, st, kg, noise, o))) return code;
  const int64_t m = st->m;
  if (!rhat0) return sgp_fail(ctx, SGP_EINVAL, "rhat0: missing");
  for (int64_t i = 0; i < m; i++)
    if (!isfinite(rhat0[i]))
      return sgp_fail(ctx, SGP_EINVAL, "rhat0: contains NaN or Inf (entry %lld)",
                      (long long)(i + 1));
  if (!xd) return sgp_fail(ctx, SGP_EINVAL, "xd: output missing");
  if ((code = sgp_ski_stats_op(ctx, st, &B))) return code;
  buf = sgp_calloc(6 * m); /* r s z u v p, once */
  if (!buf) {
    code = sgp_fail(ctx, SGP_ENOMEM, "stats: out of memory for sEFCG vectors (m = %lld)",
                    (long long)m);
    goto cleanup;
  }
  double *rh = buf, *sh = buf + m, *zh = buf + 2 * m, *uh = buf + 3 * m, *vh = buf + 4 * m,
         *ph = buf + 5 * m;
  const double s2 = noise;
  memset(xd, 0, (size_t)m * sizeof(double));
  if (xhat) memset(xhat, 0, (size_t)m * sizeof(double));
  memcpy(rh, rhat0, (size_t)m * sizeof(double));
  memcpy(ph, rhat0, (size_t)m * sizeof(double));
  if ((code = sgp_ski_bop_pair(ctx, &B, kg, s2, m, rh, uh, vh))) goto cleanup;
  for (int64_t i = 0; i < m; i++) {
    sh[i] = uh[i];
    zh[i] = vh[i];
  }
  double gamma = dot(m, rh, uh);
  if (gamma < 0) gamma = 0;
  if (!(nb > 0)) nb = sqrt(gamma);
  inf.rel_residual = nb > 0 ? sqrt(gamma) / nb : 0.0;
  if (history) history[0] = inf.rel_residual;
  if (gamma == 0.0 || inf.rel_residual <= o->tol) inf.converged = 1;
  for (int64_t k = 0; !inf.converged && k < o->max_iter; k++) {
    if ((code = sgp_poll_interrupt(ctx))) goto cleanup;
    const double delta = dot(m, sh, zh); /* p_k' A p_k */
    if (!(delta > 0)) break;
    const double a = gamma / delta;
    for (int64_t i = 0; i < m; i++) {
      xd[i] += a * sh[i];
      rh[i] -= a * zh[i];
    }
    if (xhat)
      for (int64_t i = 0; i < m; i++) xhat[i] += a * ph[i];
    if ((code = sgp_ski_bop_pair(ctx, &B, kg, s2, m, rh, uh, vh))) goto cleanup;
    double g2 = dot(m, rh, uh);
    if (g2 < 0) g2 = 0;
    inf.iterations = k + 1;
    inf.rel_residual = sqrt(g2) / nb;
    if (alpha) alpha[k] = a;
    if (history) history[k + 1] = inf.rel_residual;
    if (inf.rel_residual <= o->tol) { inf.converged = 1; break; }
    const double b = g2 / gamma;
    if (beta) beta[k] = b;
    for (int64_t i = 0; i < m; i++) {
      sh[i] = uh[i] + b * sh[i];
      zh[i] = vh[i] + b * zh[i];
      ph[i] = rh[i] + b * ph[i];
    }
    gamma = g2;
  }
cleanup:
  if (info) *info = inf;
  sgp_op_destroy(&B);
  free(buf);
  return code;
}

int sgp_ski_mean_sefcg(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                       const sgp_ski_solve_opts *o, double *weights, sgp_ski_solve_info *info,
                       double *history, double *alpha, double *beta)
{
  int code;
  double *buf = NULL;
  sgp_ski_solve_info inf = {0, 0, 0.0};
  if ((code = check_common(ctx, st, kg, noise, o))) return code;
  if (!weights) return sgp_fail(ctx, SGP_EINVAL, "weights: output missing");
  const int64_t m = st->m;
  buf = sgp_alloc(2 * m);
  if (!buf) {
    code = sgp_fail(ctx, SGP_ENOMEM, "stats: out of memory for sEFCG vectors (m = %lld)",
                    (long long)m);
    goto cleanup;
  }
  double *r0 = buf, *xd = buf + m;
  const double nb = sqrt(st->yy);
  if (nb == 0.0) { /* y = 0: mean 0 */
    memset(weights, 0, (size_t)m * sizeof(double));
    inf.converged = 1;
    if (history) history[0] = 0.0;
    goto cleanup;
  }
  /* rhat0 = -K_G u_y / noise */
  if ((code = kg->apply(kg, sgp_cmat_of(st->uy, m, 1), sgp_mat_of(r0, m, 1), ctx)))
    goto cleanup;
  for (int64_t i = 0; i < m; i++) r0[i] = -r0[i] / noise;
  if ((code = sgp_ski_sefcg(ctx, st, kg, noise, r0, nb, o, xd, NULL, &inf, history, alpha,
                            beta)))
    goto cleanup;
  /* W'x = xd + u_y / noise; a = K_G W'x */
  for (int64_t i = 0; i < m; i++) xd[i] += st->uy[i] / noise;
  code = kg->apply(kg, sgp_cmat_of(xd, m, 1), sgp_mat_of(weights, m, 1), ctx);
cleanup:
  if (info) *info = inf;
  free(buf);
  return code;
}

/* ------------------------------------------------------------ prediction */

int sgp_ski_predict_mean(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                         sgp_ski_bounds_policy policy, sgp_cmat Xs, const double *weights,
                         double *mean)
{
  int code = SGP_OK;
  int64_t *idx = NULL;
  double *w = NULL;
  const int64_t n = Xs.rows, T = sgp_ski_interp_taps(interp, g->d);
  const int64_t blk = n < 4096 ? n : 4096;
  if (n == 0) return SGP_OK;
  if (!weights || !mean) return sgp_fail(ctx, SGP_EINVAL, "weights: missing");
  idx = (int64_t *)malloc((size_t)(blk * T) * sizeof(int64_t));
  w = sgp_alloc(blk * T);
  if (!idx || !w) {
    code = sgp_fail(ctx, SGP_ENOMEM, "x: out of memory for interpolation weights");
    goto cleanup;
  }
  for (int64_t i0 = 0; i0 < n; i0 += blk) {
    const int64_t nb = n - i0 < blk ? n - i0 : blk;
    const sgp_cmat Xb = {Xs.data + i0, nb, Xs.cols, Xs.ld};
    if ((code = sgp_ski_interp(ctx, g, interp, policy, Xb, i0, idx, w))) goto cleanup;
    for (int64_t i = 0; i < nb; i++) {
      double acc = 0.0;
      for (int64_t t = 0; t < T; t++)
        if (idx[i * T + t] >= 0) acc += w[i * T + t] * weights[idx[i * T + t]];
      mean[i0 + i] = acc;
    }
  }
cleanup:
  free(idx);
  free(w);
  return code;
}
