/* ski_solve.c -- posterior mean solvers of ski_gsgp:
 * the SKI baseline CG on A = W K_G W' + noise I (A1), efficiently factorized
 * CG (x0 = 0, r0 = y) and simplified EFCG (A4), the
 * last two with grid-size quantities only. Each is a set of callbacks for the
 * CG control of ski_cg.c (true residuals checked before `converged` is
 * claimed); they stop on ||b - A x|| <= tol ||b|| and return the mean cache
 * a = K_G W' A^{-1} y: mu(x*) = w(x*)' a. */
#include "ski/ski.h"

#include <float.h>
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
  o->quad_rtol = 0.0;
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

typedef struct {
  const sgp_op *A;
  const double *y;
  int64_t n;
  double *x, *r, *p, *q, gamma;
} cg_state;

static int cg_step(void *sv, sgp_ctx *ctx, double *delta, double *a)
{
  cg_state *s = (cg_state *)sv;
  const int code = s->A->apply(s->A, sgp_cmat_of(s->p, s->n, 1), sgp_mat_of(s->q, s->n, 1), ctx);
  if (code) return code;
  *delta = dot(s->n, s->p, s->q);
  *a = s->gamma / *delta;
  return SGP_OK;
}

static int cg_advance(void *sv, sgp_ctx *ctx, double a, double *g2)
{
  cg_state *s = (cg_state *)sv;
  (void)ctx;
  for (int64_t i = 0; i < s->n; i++) {
    s->x[i] += a * s->p[i];
    s->r[i] -= a * s->q[i];
  }
  *g2 = dot(s->n, s->r, s->r);
  return SGP_OK;
}

/* r = y - A x (q as work) */
static int cg_verify(void *sv, sgp_ctx *ctx, int replace, double *g2)
{
  cg_state *s = (cg_state *)sv;
  const int code = s->A->apply(s->A, sgp_cmat_of(s->x, s->n, 1), sgp_mat_of(s->q, s->n, 1), ctx);
  if (code) return code;
  double g = 0.0;
  for (int64_t i = 0; i < s->n; i++) {
    const double ri = s->y[i] - s->q[i];
    g += ri * ri;
    if (replace) s->r[i] = ri;
  }
  *g2 = g;
  return SGP_OK;
}

static double cg_direct(void *sv, double g2, int restart)
{
  cg_state *s = (cg_state *)sv;
  const double b = restart ? 0.0 : g2 / s->gamma;
  for (int64_t i = 0; i < s->n; i++) s->p[i] = s->r[i] + b * s->p[i];
  s->gamma = g2;
  return b;
}

int sgp_ski_mean_cg(sgp_ctx *ctx, const sgp_op *ski, sgp_cmat y, const sgp_ski_solve_opts *o,
                    double *weights, double *x_out, sgp_ski_solve_info *info, double *history,
                    double *alpha, double *beta)
{
  int code = SGP_OK;
  double *buf = NULL, *u = NULL;
  sgp_ski_solve_info inf = {0, 0, 0.0, SGP_SKI_STOP_MAX_ITER, NAN, NAN};
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
  buf = sgp_calloc(4 * n);
  u = sgp_alloc(m);
  if (!buf || !u) {
    code = sgp_fail(ctx, SGP_ENOMEM, "ski: out of memory for CG vectors (n = %lld)",
                    (long long)n);
    goto cleanup;
  }
  cg_state s = {ski, y.data, n, buf, buf + n, buf + 2 * n, buf + 3 * n, 0.0};
  memcpy(s.r, y.data, (size_t)n * sizeof(double));
  memcpy(s.p, y.data, (size_t)n * sizeof(double));
  s.gamma = dot(n, s.r, s.r);
  const sgp_ski_cg cg = {&s, "mean", cg_step, cg_advance, cg_verify, cg_direct, NULL};
  if ((code = sgp_ski_cg_run(ctx, &cg, s.gamma, sqrt(s.gamma), o, &inf, history, alpha, beta)))
    goto cleanup;
  /* a = K_G W' x */
  if ((code = sgp_ski_op_ski_wt(ctx, ski, s.x, u))) goto cleanup;
  if ((code = kg->apply(kg, sgp_cmat_of(u, m, 1), sgp_mat_of(weights, m, 1), ctx)))
    goto cleanup;
  if (x_out) memcpy(x_out, s.x, (size_t)n * sizeof(double));
cleanup:
  if (info) *info = inf;
  free(buf);
  free(u);
  return code;
}

/* ------------------------------------------------------------ A3 (EFCG) */

/* Factorized CG for A x = y from x0 = 0: x = W xh + cx y,
 * r = W rh + cr y, p = W ph + cp y, with sh = B ph, zh = K_G sh + noise ph,
 * uh = B rh, vh = K_G uh + noise rh; k0 = K_G u_y, kappa0 = u_y'k0. */
typedef struct {
  int64_t m;
  const sgp_op *B, *kg;
  const sgp_ski_stats *st;
  const double *u0, *k0;
  double rho0, kappa0, s2;
  double *xh, *rh, *ph, *uh, *vh, *sh, *zh, *t, *rt, *ut, *weights; /* rt, ut: verify's */
  double cx, cr, cp, gamma;
  double qrtol, quad, qerr, qround; /* quad_rtol: the data fit of the last verify */
} efcg_state;

static int efcg_step(void *sv, sgp_ctx *ctx, double *delta, double *a)
{
  efcg_state *e = (efcg_state *)sv;
  const double *as[4] = {e->sh, e->sh, e->zh, e->ph}, *bs[4] = {e->zh, e->k0, e->u0, e->u0};
  double d[4];
  (void)ctx;
  sgp_ski_dot4(e->m, as, bs, d);
  const double c = e->cp;
  *delta = d[0] + c * (d[1] + d[2]) + c * c * e->kappa0 + e->s2 * c * d[3] +
           e->s2 * c * c * e->rho0;
  *a = e->gamma / *delta;
  return SGP_OK;
}

static int efcg_advance(void *sv, sgp_ctx *ctx, double a, double *g2)
{
  efcg_state *e = (efcg_state *)sv;
  const double c = e->cp;
  for (int64_t i = 0; i < e->m; i++) {
    e->xh[i] += a * e->ph[i];
    e->rh[i] -= a * (e->zh[i] + c * e->k0[i]);
  }
  e->cx += a * c;
  e->cr -= a * e->s2 * c;
  const int code = sgp_ski_bop_pair(ctx, e->B, e->kg, e->s2, e->m, e->rh, e->uh, e->vh);
  if (code) return code;
  double ru, ru0;
  sgp_ski_dot2(e->m, e->rh, e->uh, e->rh, e->u0, &ru, &ru0);
  *g2 = ru + 2.0 * e->cr * ru0 + e->cr * e->cr * e->rho0;
  return SGP_OK;
}

int sgp_ski_efcg_residual(sgp_ctx *ctx, const sgp_op *B, const sgp_op *kg, double noise,
                          const sgp_ski_stats *st, const double *xh, double cx, double *t,
                          double *weights, double *rh, double *cr, double *uh, double *g2)
{
  const int64_t m = st->m;
  int code = B->apply(B, sgp_cmat_of(xh, m, 1), sgp_mat_of(t, m, 1), ctx);
  if (code) return code;
  for (int64_t i = 0; i < m; i++) t[i] += cx * st->uy[i];
  if ((code = kg->apply(kg, sgp_cmat_of(t, m, 1), sgp_mat_of(weights, m, 1), ctx))) return code;
  for (int64_t i = 0; i < m; i++) rh[i] = -(weights[i] + noise * xh[i]);
  *cr = 1.0 - noise * cx;
  if ((code = B->apply(B, sgp_cmat_of(rh, m, 1), sgp_mat_of(uh, m, 1), ctx))) return code;
  *g2 = sgp_ski_fnorm2(m, rh, uh, st->uy, *cr, st->yy);
  return SGP_OK;
}

/* The data fit y'A^{-1}y of x = W xh + cx y with r = W rh + cr y (uh = B rh):
 * y'x + x'r, within ||r||^2 / noise below the true one (the identity of
 * ski_var.c with k = y), and the bound with the sums' rounding. */
static void efcg_quad(efcg_state *e, const double *rh, const double *uh, double cr, double g2)
{
  const double *u0 = e->u0, cx = e->cx, yy = e->rho0;
  double yx = 0.0, xu = 0.0, xu0 = 0.0, ru0 = 0.0, mag = 0.0;
  for (int64_t i = 0; i < e->m; i++) {
    yx += u0[i] * e->xh[i];
    xu += e->xh[i] * uh[i];
    xu0 += e->xh[i] * u0[i];
    ru0 += rh[i] * u0[i];
    mag += fabs(u0[i] * e->xh[i]) * (1.0 + fabs(cr)) + fabs(e->xh[i] * uh[i]) +
           fabs(cx * rh[i] * u0[i]);
  }
  e->quad = yx + cx * yy + xu + cr * xu0 + cx * ru0 + cx * cr * yy;
  e->qround = (2.0 + sqrt((double)e->m)) * DBL_EPSILON *
              (mag + fabs(cx) * yy * (1.0 + fabs(cr)));
  e->qerr = g2 / e->s2 + e->qround;
}

/* The relative residual at which the data fit's bound would meet qrtol:
 * g2 / noise + round <= qrtol quad (quad is below the true value). */
static double efcg_target(void *sv)
{
  const efcg_state *e = (const efcg_state *)sv;
  const double room = e->qrtol * e->quad - e->qround;
  return room > 0 && e->rho0 > 0 ? sqrt(room * e->s2 / e->rho0) : 0.0;
}

static int efcg_verify(void *sv, sgp_ctx *ctx, int replace, double *g2)
{
  efcg_state *e = (efcg_state *)sv;
  double cr;
  int code;
  /* the true residual into work vectors unless it replaces the recursion's,
   * then with vh = K_G uh + noise rh */
  double *rh = replace ? e->rh : e->rt, *uh = replace ? e->uh : e->ut;
  code = sgp_ski_efcg_residual(ctx, e->B, e->kg, e->s2, e->st, e->xh, e->cx, e->t, e->weights,
                               rh, &cr, uh, g2);
  if (!code) efcg_quad(e, rh, uh, cr, *g2);
  if (code || !replace) return code;
  e->cr = cr;
  if ((code = e->kg->apply(e->kg, sgp_cmat_of(uh, e->m, 1), sgp_mat_of(e->vh, e->m, 1), ctx)))
    return code;
  for (int64_t i = 0; i < e->m; i++) e->vh[i] += e->s2 * rh[i];
  return SGP_OK;
}

/* The new search direction of both factorized CGs: p = r + b p, with its images
 * s = B p and z = K_G B p + noise p updated alike (b = 0 at a restart). */
static double next_direction(int64_t m, double g2, int restart, double *gamma, const double *rh,
                             const double *uh, const double *vh, double *ph, double *sh,
                             double *zh)
{
  const double b = restart ? 0.0 : g2 / *gamma;
  for (int64_t i = 0; i < m; i++) {
    ph[i] = rh[i] + b * ph[i];
    sh[i] = uh[i] + b * sh[i];
    zh[i] = vh[i] + b * zh[i];
  }
  *gamma = g2;
  return b;
}

static double efcg_direct(void *sv, double g2, int restart)
{
  efcg_state *e = (efcg_state *)sv;
  const double b = next_direction(e->m, g2, restart, &e->gamma, e->rh, e->uh, e->vh, e->ph,
                                  e->sh, e->zh);
  e->cp = e->cr + b * e->cp;
  return b;
}

int sgp_ski_mean_efcg(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                      const sgp_ski_solve_opts *o, double *weights, double *xhat_out,
                      double *cx_out, sgp_ski_solve_info *info, double *history, double *alpha,
                      double *beta)
{
  int code = SGP_OK;
  double *buf = NULL;
  sgp_op B;
  sgp_ski_solve_info inf = {0, 0, 0.0, SGP_SKI_STOP_MAX_ITER, NAN, NAN};
  memset(&B, 0, sizeof B);
  if ((code = sgp_ski_check_model(ctx, st, kg, noise))) return code;
  const int64_t m = st->m;
  if ((code = check_opts(ctx, o))) return code;
  if (o->precond_rank > 0)
    return sgp_ski_mean_pefcg(ctx, st, kg, noise, o, weights, xhat_out, cx_out, info, history,
                              alpha, beta);
  if (!weights) return sgp_fail(ctx, SGP_EINVAL, "weights: output missing");
  if ((code = sgp_ski_stats_op(ctx, st, &B))) return code;
  /* all work vectors once: xh rh ph uh vh sh zh t rt ut k0 (x0 = 0, r0 = p0 = y) */
  buf = sgp_calloc(11 * m);
  if (!buf) {
    code = sgp_fail(ctx, SGP_ENOMEM, "stats: out of memory for EFCG vectors (m = %lld)",
                    (long long)m);
    goto cleanup;
  }
  double *k0 = buf + 10 * m;
  efcg_state e = {m, &B, kg, st, st->uy, k0, st->yy, 0.0, noise, buf, buf + m, buf + 2 * m,
                  buf + 3 * m, buf + 4 * m, buf + 5 * m, buf + 6 * m, buf + 7 * m, buf + 8 * m,
                  buf + 9 * m, weights, 0.0, 1.0, 1.0, st->yy, o->quad_rtol, 0.0,
                  st->yy / noise, 0.0}; /* x0 = 0: r = y, quad 0, its bound yy / noise */
  if ((code = kg->apply(kg, sgp_cmat_of(st->uy, m, 1), sgp_mat_of(k0, m, 1), ctx)))
    goto cleanup;
  e.kappa0 = dot(m, st->uy, k0);
  const sgp_ski_cg cg = {&e, "mean", efcg_step, efcg_advance, efcg_verify, efcg_direct,
                         o->quad_rtol > 0 ? efcg_target : NULL};
  if ((code = sgp_ski_cg_run(ctx, &cg, st->yy, sqrt(st->yy), o, &inf, history, alpha, beta)))
    goto cleanup;
  if (xhat_out) memcpy(xhat_out, e.xh, (size_t)m * sizeof(double));
  if (cx_out) *cx_out = e.cx;
  inf.quad = e.quad;
  inf.quad_err = e.qerr;
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

/* sEFCG for A x = W rh0 from x0 = 0: x = W xh, r = W rh,
 * p = W ph, sh = B ph, zh = K_G sh + noise ph, uh = B rh, vh = K_G uh +
 * noise rh; xd = W'x = B xh (set by verify). */
typedef struct {
  int64_t m;
  const sgp_op *B, *kg;
  double s2;
  const double *rh0;
  double *xh, *rh, *ph, *uh, *vh, *sh, *zh, *t, *rt, *ut, *xd; /* rt, ut: verify's */
  double gamma;
  sgp_ski_var_bound *vb; /* a variance solve (sgp_ski_sefcg_var), else NULL */
  double nb, round;      /* ||b||; vb: the rounding allowance of vb->var */
} sefcg_state;

static int sefcg_step(void *sv, sgp_ctx *ctx, double *delta, double *a)
{
  sefcg_state *e = (sefcg_state *)sv;
  (void)ctx;
  *delta = dot(e->m, e->sh, e->zh);
  *a = e->gamma / *delta;
  return SGP_OK;
}

static int sefcg_advance(void *sv, sgp_ctx *ctx, double a, double *g2)
{
  sefcg_state *e = (sefcg_state *)sv;
  for (int64_t i = 0; i < e->m; i++) {
    e->xh[i] += a * e->ph[i];
    e->rh[i] -= a * e->zh[i];
  }
  const int code = sgp_ski_bop_pair(ctx, e->B, e->kg, e->s2, e->m, e->rh, e->uh, e->vh);
  if (!code) *g2 = dot(e->m, e->rh, e->uh);
  return code;
}

/* r = W rh0 - A W xh = W (rh0 - K_G B xh - noise xh); xd = B xh */
static int sefcg_verify(void *sv, sgp_ctx *ctx, int replace, double *g2)
{
  sefcg_state *e = (sefcg_state *)sv;
  const int64_t m = e->m;
  double *rh = replace ? e->rh : e->rt, *uh = replace ? e->uh : e->ut;
  int code = e->B->apply(e->B, sgp_cmat_of(e->xh, m, 1), sgp_mat_of(e->xd, m, 1), ctx);
  if (!code) code = e->kg->apply(e->kg, sgp_cmat_of(e->xd, m, 1), sgp_mat_of(e->t, m, 1), ctx);
  if (code) return code;
  for (int64_t i = 0; i < m; i++) rh[i] = e->rh0[i] - e->t[i] - e->s2 * e->xh[i];
  if (replace) code = sgp_ski_bop_pair(ctx, e->B, e->kg, e->s2, m, rh, uh, e->vh);
  else code = e->B->apply(e->B, sgp_cmat_of(rh, m, 1), sgp_mat_of(uh, m, 1), ctx);
  if (!code) *g2 = sgp_ski_fnorm2(m, rh, uh, NULL, 0.0, 0.0);
  if (!code && e->vb) {
    /* the variance of the iterate and its bound (ski_var.c derives them):
     * k'x = rh0' B xh = rh0'xd, x'r = xh' B rh = xh'uh */
    double q = 0.0, qa = 0.0, xr = 0.0, xra = 0.0;
    for (int64_t i = 0; i < m; i++) {
      q += e->rh0[i] * e->xd[i];
      qa += fabs(e->rh0[i] * e->xd[i]);
      xr += e->xh[i] * uh[i];
      xra += fabs(e->xh[i] * uh[i]);
    }
    e->vb->var = e->vb->prior - q - xr;
    /* the sums' rounding, as sgp_ski_fnorm2 allows for it */
    e->round = (2.0 + sqrt((double)m)) * DBL_EPSILON * (fabs(e->vb->prior) + qa + xra);
    e->vb->err = *g2 / e->s2 + e->round;
  }
  return code;
}

/* The relative residual at which the verified iterate's variance would meet
 * vb->rtol: err = g2/noise + round <= rtol (var - err), i.e. g2 <= noise
 * (rtol var / (1 + rtol) - round); 0 where no residual reaches it. */
static double sefcg_target(void *sv)
{
  const sefcg_state *e = (const sefcg_state *)sv;
  const double r = e->vb->rtol, room = r * e->vb->var / (1.0 + r) - e->round;
  return room > 0 && e->nb > 0 ? sqrt(room * e->s2) / e->nb : 0.0;
}

static double sefcg_direct(void *sv, double g2, int restart)
{
  sefcg_state *e = (sefcg_state *)sv;
  return next_direction(e->m, g2, restart, &e->gamma, e->rh, e->uh, e->vh, e->ph, e->sh, e->zh);
}

static int sefcg_solve(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                       const double *rhat0, double nb, const sgp_ski_solve_opts *o, double *xd,
                       double *xhat, sgp_ski_solve_info *info, double *history, double *alpha,
                       double *beta, sgp_ski_var_bound *vb)
{
  int code;
  double *buf = NULL;
  sgp_op B;
  sgp_ski_solve_info inf = {0, 0, 0.0, SGP_SKI_STOP_MAX_ITER, NAN, NAN};
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
  buf = sgp_calloc(10 * m); /* xh r p u v s z t rt ut, once */
  if (!buf) {
    code = sgp_fail(ctx, SGP_ENOMEM, "stats: out of memory for sEFCG vectors (m = %lld)",
                    (long long)m);
    goto cleanup;
  }
  sefcg_state e = {m, &B, kg, noise, rhat0, buf, buf + m, buf + 2 * m, buf + 3 * m,
                   buf + 4 * m, buf + 5 * m, buf + 6 * m, buf + 7 * m, buf + 8 * m,
                   buf + 9 * m, xd, 0.0, vb, 0.0, 0.0};
  memcpy(e.rh, rhat0, (size_t)m * sizeof(double));
  memcpy(e.ph, rhat0, (size_t)m * sizeof(double));
  if ((code = sgp_ski_bop_pair(ctx, &B, kg, noise, m, e.rh, e.uh, e.vh))) goto cleanup;
  memcpy(e.sh, e.uh, (size_t)m * sizeof(double));
  memcpy(e.zh, e.vh, (size_t)m * sizeof(double));
  e.gamma = fmax(dot(m, e.rh, e.uh), 0.0);
  if (!(nb > 0)) nb = sqrt(e.gamma);
  e.nb = nb;
  if (vb) { /* x0 = 0: the prior, exact when b = 0 (no verification then) */
    vb->var = vb->prior;
    vb->err = 0.0;
  }
  const sgp_ski_cg cg = {&e, "variance", sefcg_step, sefcg_advance, sefcg_verify,
                         sefcg_direct, vb ? sefcg_target : NULL};
  if ((code = sgp_ski_cg_run(ctx, &cg, e.gamma, nb, o, &inf, history, alpha, beta)))
    goto cleanup;
  if (xhat) memcpy(xhat, e.xh, (size_t)m * sizeof(double));
cleanup:
  if (info) *info = inf;
  sgp_op_destroy(&B);
  free(buf);
  return code;
}

int sgp_ski_sefcg(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                  const double *rhat0, double nb, const sgp_ski_solve_opts *o, double *xd,
                  double *xhat, sgp_ski_solve_info *info, double *history, double *alpha,
                  double *beta)
{
  return sefcg_solve(ctx, st, kg, noise, rhat0, nb, o, xd, xhat, info, history, alpha, beta,
                     NULL);
}

int sgp_ski_sefcg_var(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                      const double *rhat0, const sgp_ski_solve_opts *o, double *xd,
                      sgp_ski_var_bound *vb, sgp_ski_solve_info *info)
{
  if (!vb || !(vb->rtol > 0)) return sgp_fail(ctx, SGP_EINVAL, "rtol: must be positive");
  return sefcg_solve(ctx, st, kg, noise, rhat0, 0.0, o, xd, NULL, info, NULL, NULL, NULL, vb);
}

int sgp_ski_mean_sefcg(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                       const sgp_ski_solve_opts *o, double *weights, sgp_ski_solve_info *info,
                       double *history, double *alpha, double *beta)
{
  int code;
  double *buf = NULL;
  sgp_ski_solve_info inf = {0, 0, 0.0, SGP_SKI_STOP_MAX_ITER, NAN, NAN};
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
    inf.stop = SGP_SKI_STOP_TOL;
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
