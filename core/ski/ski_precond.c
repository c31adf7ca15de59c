/* ski_precond.c -- opt-in preconditioned EFCG for the ski_gsgp posterior mean
 * (spec §8.4). P = noise I + W V L V' W' with V L V' the top-q eigenpairs of
 * K_G keeps the compressed form: by Woodbury, for r = W rh + c_r y,
 *   P^{-1} r = [ (rh - V g) / noise, c_r / noise ],
 *   g = C^{-1} (V'B rh + c_r V'u_y),  C = noise L^{-1} + V'BV (q-by-q),
 * so a preconditioner application costs O(m q) with BV stored once.
 *
 * PCG in the factorized representation (x0 = 0, r0 = y; names as in
 * ski_solve.c's EFCG, plus the preconditioned residual zh, c_z):
 * p = z + beta p needs B p and M p (M = K_G B + noise I), so the iteration's
 * one Bop is applied to zh instead of rh; B rh, needed for the
 * unpreconditioned residual norm ||r||^2 = rh'B rh + 2 c_r rh'u_y + c_r^2 y'y,
 * follows from rh = noise zh + V g:  rh'B rh = noise rh'B zh + (V'B rh)'g,
 * where V'B rh is already part of g (no BV product). So the stopping rule
 * and rel_residual mean exactly what they mean without P. */
#include "ski.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Eigenpairs need not be accurate for a valid preconditioner (any SPD P
 * gives the same fixed point); this is enough for the leading ones. */
#define EIG_TOL 1e-3
#define EIG_MAX_ITER 30

typedef struct {
  int64_t m, q;
  double *V, *BV; /* m-by-q each */
  double *C;      /* q-by-q Cholesky factor of noise L^{-1} + V'BV */
  double *vu0;    /* V' u_y */
  double *t;      /* q work */
} precond;

static void precond_free(precond *pc)
{
  free(pc->V); free(pc->BV); free(pc->C); free(pc->vu0); free(pc->t);
  memset(pc, 0, sizeof *pc);
}

static int precond_build(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *B,
                         const sgp_op *kg, double s2, int64_t q, precond *pc)
{
  int code;
  const int64_t m = st->m;
  double *lam = sgp_alloc(q);
  memset(pc, 0, sizeof *pc);
  pc->m = m;
  pc->V = sgp_alloc(m * q);
  if (!lam || !pc->V) {
    free(lam);
    return sgp_fail(ctx, SGP_ENOMEM, "precond_rank: out of memory for %lld eigenvectors",
                    (long long)q);
  }
  int64_t sweeps = 0;
  double resid = 0.0;
  if ((code = sgp_ski_kg_eig(ctx, kg, q, EIG_TOL, EIG_MAX_ITER, pc->V, lam, &sweeps, &resid)))
    goto fail;
  sgp_say(ctx, "ski_gsgp: preconditioner rank %lld: %lld subspace sweeps, eigen residual "
          "%.2g lam_1, lam_q / lam_1 = %.2g", (long long)q, (long long)sweeps, resid,
          lam[0] > 0 ? lam[q - 1] / lam[0] : 0.0);
  /* drop non-positive Ritz values (K_G is PSD; roundoff in the tail) */
  int64_t qe = 0;
  while (qe < q && lam[qe] > 0) qe++;
  pc->q = qe;
  pc->BV = sgp_alloc(m * (qe > 0 ? qe : 1));
  pc->C = sgp_alloc(qe * qe > 0 ? qe * qe : 1);
  pc->vu0 = sgp_alloc(qe > 0 ? qe : 1);
  pc->t = sgp_alloc(qe > 0 ? qe : 1);
  if (!pc->BV || !pc->C || !pc->vu0 || !pc->t) {
    code = sgp_fail(ctx, SGP_ENOMEM, "precond_rank: out of memory (q = %lld)", (long long)qe);
    goto fail;
  }
  if (qe == 0) { free(lam); return SGP_OK; } /* P = noise I */
  if ((code = B->apply(B, sgp_cmat_of(pc->V, m, qe), sgp_mat_of(pc->BV, m, qe), ctx)))
    goto fail;
  if ((code = sgp_gemm(ctx, 'T', 'N', qe, qe, m, 1.0, pc->V, m, pc->BV, m, 0.0, pc->C, qe)))
    goto fail;
  for (int64_t i = 0; i < qe; i++) {
    for (int64_t j = 0; j < i; j++)
      pc->C[i + j * qe] = pc->C[j + i * qe] = 0.5 * (pc->C[i + j * qe] + pc->C[j + i * qe]);
    pc->C[i + i * qe] += s2 / lam[i];
  }
  if ((code = sgp_potrf(ctx, qe, pc->C, qe))) goto fail;
  if ((code = sgp_gemm(ctx, 'T', 'N', qe, 1, m, 1.0, pc->V, m, st->uy, m, 0.0, pc->vu0, qe)))
    goto fail;
  free(lam);
  return SGP_OK;
fail:
  free(lam);
  precond_free(pc);
  return code;
}

/* [zh, c_z] = P^{-1} [rh, c_r] with g = C^{-1}(V'B rh + c_r V'u_y).
 * *rbvg = (V'B rh)' g, so that rh'B rh = noise rh'B zh + *rbvg
 * (rh = noise zh + V g) without a product with BV. */
static int precond_apply(sgp_ctx *ctx, const precond *pc, double s2, const double *rh,
                         double cr, double *zh, double *g, double *rbvg)
{
  int code;
  const int64_t m = pc->m, q = pc->q;
  *rbvg = 0.0;
  if (q == 0) {
    for (int64_t i = 0; i < m; i++) zh[i] = rh[i] / s2;
    return SGP_OK;
  }
  if ((code = sgp_gemm(ctx, 'T', 'N', q, 1, m, 1.0, pc->BV, m, rh, m, 0.0, pc->t, q)))
    return code;
  for (int64_t j = 0; j < q; j++) g[j] = pc->t[j] + cr * pc->vu0[j];
  if ((code = sgp_potrs(ctx, q, 1, pc->C, q, g, q))) return code;
  for (int64_t j = 0; j < q; j++) *rbvg += pc->t[j] * g[j];
  memcpy(zh, rh, (size_t)m * sizeof(double));
  if ((code = sgp_gemm(ctx, 'N', 'N', m, 1, q, -1.0, pc->V, m, g, q, 1.0, zh, m))) return code;
  for (int64_t i = 0; i < m; i++) zh[i] /= s2;
  return SGP_OK;
}

static double dot(int64_t n, const double *a, const double *b)
{
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

int sgp_ski_mean_pefcg(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                       const sgp_ski_solve_opts *o, double *weights, double *xhat_out,
                       double *cx_out, sgp_ski_solve_info *info, double *history, double *alpha,
                       double *beta)
{
  int code = SGP_OK;
  double *buf = NULL;
  sgp_op B;
  precond pc;
  sgp_ski_solve_info inf = {0, 0, 0.0};
  memset(&B, 0, sizeof B);
  memset(&pc, 0, sizeof pc);
  if ((code = sgp_ski_check_model(ctx, st, kg, noise))) return code;
  const int64_t m = st->m, q = o ? o->precond_rank : 0;
  if (!o || q < 1 || q >= m)
    return sgp_fail(ctx, SGP_EINVAL,
                    "precond_rank: must be a whole number >= 0 and < the %lld grid points "
                    "(got %lld)", (long long)m, (long long)q);
  if (!(o->tol >= 0) || !isfinite(o->tol))
    return sgp_fail(ctx, SGP_EINVAL, "tol: must be a non-negative number (got %g)", o->tol);
  if (o->max_iter < 0)
    return sgp_fail(ctx, SGP_EINVAL, "max_iter: must be non-negative (got %lld)",
                    (long long)o->max_iter);
  if (!weights) return sgp_fail(ctx, SGP_EINVAL, "weights: output missing");
  if ((code = sgp_ski_stats_op(ctx, st, &B))) return code;
  sgp_progress(ctx, "ski_gsgp: preconditioner", 0.0);
  if ((code = precond_build(ctx, st, &B, kg, noise, q, &pc))) goto cleanup;
  /* work vectors: k0 r p x xd bp mp z bz mz tmp, and g (q) */
  buf = sgp_calloc(11 * m + q);
  if (!buf) {
    code = sgp_fail(ctx, SGP_ENOMEM, "stats: out of memory for PCG vectors (m = %lld)",
                    (long long)m);
    goto cleanup;
  }
  double *k0 = buf, *rh = buf + m, *ph = buf + 2 * m, *xh = buf + 3 * m, *xd = buf + 4 * m,
         *bp = buf + 5 * m, *mp = buf + 6 * m, *zh = buf + 7 * m, *bz = buf + 8 * m,
         *mz = buf + 9 * m, *tmp = buf + 10 * m, *g = buf + 11 * m;
  const double *u0 = st->uy, rho0 = st->yy, s2 = noise;
  double cr = 1.0, cx = 0.0, cz, cp, gamma = 0.0, rbvg;
  const double nb = sqrt(rho0);
  sgp_progress(ctx, "ski_gsgp: mean", 0.0);
  if ((code = kg->apply(kg, sgp_cmat_of(u0, m, 1), sgp_mat_of(k0, m, 1), ctx))) goto cleanup;
  const double kappa0 = dot(m, u0, k0);
  inf.rel_residual = nb > 0 ? 1.0 : 0.0;
  if (history) history[0] = inf.rel_residual;
  if (nb == 0.0 || 1.0 <= o->tol) inf.converged = 1;
  if (!inf.converged) {
    /* z0 = P^{-1} y (rh = 0, c_r = 1); p0 = z0 */
    if ((code = precond_apply(ctx, &pc, s2, rh, cr, zh, g, &rbvg))) goto cleanup;
    cz = cr / s2;
    if ((code = sgp_ski_bop_pair(ctx, &B, kg, s2, m, zh, bz, mz))) goto cleanup;
    gamma = dot(m, zh, u0) + cz * rho0; /* <r0, z0> with rh = 0, c_r = 1 */
    memcpy(ph, zh, (size_t)m * sizeof(double));
    memcpy(bp, bz, (size_t)m * sizeof(double));
    memcpy(mp, mz, (size_t)m * sizeof(double));
    cp = cz;
  }
  for (int64_t k = 0; !inf.converged && k < o->max_iter; k++) {
    if ((code = sgp_poll_interrupt(ctx))) goto cleanup;
    /* delta = p_k' A p_k, as in EFCG */
    const double delta = dot(m, bp, mp) + cp * (dot(m, bp, k0) + dot(m, mp, u0)) +
                         cp * cp * kappa0 + s2 * cp * dot(m, ph, u0) + s2 * cp * cp * rho0;
    if (!(delta > 0) || !(gamma > 0)) break; /* breakdown; report as is */
    const double a = gamma / delta;
    for (int64_t i = 0; i < m; i++) {
      xh[i] += a * ph[i];
      xd[i] += a * bp[i];
      rh[i] -= a * (mp[i] + cp * k0[i]);
    }
    cx += a * cp;
    cr -= a * s2 * cp;
    /* z = P^{-1} r; the iteration's one B and K_G product on z */
    if ((code = precond_apply(ctx, &pc, s2, rh, cr, zh, g, &rbvg))) goto cleanup;
    cz = cr / s2;
    if ((code = sgp_ski_bop_pair(ctx, &B, kg, s2, m, zh, bz, mz))) goto cleanup;
    /* ||r||^2 with rh'B rh = noise rh'B zh + (V'B rh)' g */
    const double ru = dot(m, rh, u0), rbz = dot(m, rh, bz);
    double g2 = s2 * rbz + rbvg + 2.0 * cr * ru + cr * cr * rho0;
    if (g2 < 0) g2 = 0; /* rounding below the attainable accuracy */
    inf.iterations = k + 1;
    inf.rel_residual = sqrt(g2) / nb;
    if (alpha) alpha[k] = a;
    if (history) history[k + 1] = inf.rel_residual;
    if (inf.rel_residual <= o->tol) { inf.converged = 1; break; }
    /* <r, z> = rh'B zh + c_z rh'u_y + c_r zh'u_y + c_r c_z y'y */
    const double g2z = rbz + cz * ru + cr * dot(m, zh, u0) + cr * cz * rho0;
    const double b = g2z / gamma;
    if (beta) beta[k] = b;
    for (int64_t i = 0; i < m; i++) {
      ph[i] = zh[i] + b * ph[i];
      bp[i] = bz[i] + b * bp[i];
      mp[i] = mz[i] + b * mp[i];
    }
    cp = cz + b * cp;
    gamma = g2z;
  }
  /* W'x = xd + c_x u_y; a = K_G W'x */
  for (int64_t i = 0; i < m; i++) tmp[i] = xd[i] + cx * u0[i];
  if ((code = kg->apply(kg, sgp_cmat_of(tmp, m, 1), sgp_mat_of(weights, m, 1), ctx)))
    goto cleanup;
  if (xhat_out) memcpy(xhat_out, xh, (size_t)m * sizeof(double));
  if (cx_out) *cx_out = cx;
cleanup:
  if (info) *info = inf;
  precond_free(&pc);
  sgp_op_destroy(&B);
  free(buf);
  return code;
}
