/* ski_precond.c -- opt-in preconditioned EFCG for the ski_gsgp posterior mean.
 * P = noise I + W V L V' W' with V L V' the top-q eigenpairs of
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
#include "ski/ski.h"

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

/* PCG in factorized form (x0 = 0, r0 = y; the names of EFCG, ski_solve.c):
 * x = W xh + cx y, r = W rh + cr y, z = P^{-1} r = W zh + cz y, p = W ph + cp y,
 * bp = B ph, mp = K_G bp + noise ph, bz = B zh, mz = K_G bz + noise zh;
 * gamma = <r, z>, g2z the new <r, z> (advance) for the direction. */
typedef struct {
  int64_t m;
  const sgp_op *B, *kg;
  const sgp_ski_stats *st;
  const precond *pc;
  double s2, kappa0;
  double *k0, *xh, *rh, *ph, *bp, *mp, *zh, *bz, *mz, *t, *tmp, *rt, *g, *weights;
  double cx, cr, cp, cz, gamma, g2z;
} pcg_state;

static int pcg_step(void *sv, sgp_ctx *ctx, double *delta, double *a)
{
  pcg_state *e = (pcg_state *)sv;
  const double *u0 = e->st->uy, rho0 = e->st->yy, c = e->cp;
  const double *as[4] = {e->bp, e->bp, e->mp, e->ph}, *bs[4] = {e->mp, e->k0, u0, u0};
  double d[4];
  (void)ctx;
  sgp_ski_dot4(e->m, as, bs, d);
  /* delta = p'A p, as in EFCG; a non-positive <r, z> is a breakdown too */
  *delta = d[0] + c * (d[1] + d[2]) + c * c * e->kappa0 + e->s2 * c * d[3] +
           e->s2 * c * c * rho0;
  if (!(e->gamma > 0) && isfinite(*delta)) *delta = 0.0;
  *a = e->gamma / *delta;
  return SGP_OK;
}

/* z = P^{-1} r with its B and K_G products; *g2 = ||r||^2 (rh'B rh = noise
 * rh'B zh + (V'B rh)'g: no product with BV) and e->g2z = <r, z>. */
static int pcg_precondition(pcg_state *e, sgp_ctx *ctx, double *g2)
{
  const double *u0 = e->st->uy, rho0 = e->st->yy;
  double rbvg, ru, rbz;
  int code = precond_apply(ctx, e->pc, e->s2, e->rh, e->cr, e->zh, e->g, &rbvg);
  if (code) return code;
  e->cz = e->cr / e->s2;
  if ((code = sgp_ski_bop_pair(ctx, e->B, e->kg, e->s2, e->m, e->zh, e->bz, e->mz))) return code;
  sgp_ski_dot2(e->m, e->rh, u0, e->rh, e->bz, &ru, &rbz);
  *g2 = e->s2 * rbz + rbvg + 2.0 * e->cr * ru + e->cr * e->cr * rho0;
  e->g2z = rbz + e->cz * ru + e->cr * dot(e->m, e->zh, u0) + e->cr * e->cz * rho0;
  return SGP_OK;
}

static int pcg_advance(void *sv, sgp_ctx *ctx, double a, double *g2)
{
  pcg_state *e = (pcg_state *)sv;
  const double c = e->cp;
  for (int64_t i = 0; i < e->m; i++) {
    e->xh[i] += a * e->ph[i];
    e->rh[i] -= a * (e->mp[i] + c * e->k0[i]);
  }
  e->cx += a * c;
  e->cr -= a * e->s2 * c;
  return pcg_precondition(e, ctx, g2);
}

/* The unpreconditioned true residual (and the weights), as EFCG's; when it
 * replaces the recursion's, z is recomputed from it. */
static int pcg_verify(void *sv, sgp_ctx *ctx, int replace, double *g2)
{
  pcg_state *e = (pcg_state *)sv;
  double cr, g2p;
  double *rh = replace ? e->rh : e->rt; /* t, tmp, rt: verify's own */
  int code = sgp_ski_efcg_residual(ctx, e->B, e->kg, e->s2, e->st, e->xh, e->cx, e->t,
                                   e->weights, rh, &cr, e->tmp, g2);
  if (code || !replace) return code;
  e->cr = cr;
  return pcg_precondition(e, ctx, &g2p);
}

static double pcg_direct(void *sv, double g2, int restart)
{
  pcg_state *e = (pcg_state *)sv;
  const double b = restart ? 0.0 : e->g2z / e->gamma;
  (void)g2;
  for (int64_t i = 0; i < e->m; i++) {
    e->ph[i] = e->zh[i] + b * e->ph[i];
    e->bp[i] = e->bz[i] + b * e->bp[i];
    e->mp[i] = e->mz[i] + b * e->mp[i];
  }
  e->cp = e->cz + b * e->cp;
  e->gamma = e->g2z;
  return b;
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
  sgp_ski_solve_info inf = {0, 0, 0.0, SGP_SKI_STOP_MAX_ITER, NAN, NAN};
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
  /* a serial BLAS for the preconditioner's products: a threaded OpenBLAS
   * splits them by its thread count, which changes their bits (ski_fft.c,
   * mode_dense) */
  const int blas_threads = sgp_blas_serial_begin();
  sgp_progress(ctx, "ski_gsgp: preconditioner", 0.0);
  if ((code = precond_build(ctx, st, &B, kg, noise, q, &pc))) goto cleanup;
  /* work vectors: k0 x r p bp mp z bz mz t tmp rt, and g (q) */
  buf = sgp_calloc(12 * m + q);
  if (!buf) {
    code = sgp_fail(ctx, SGP_ENOMEM, "stats: out of memory for PCG vectors (m = %lld)",
                    (long long)m);
    goto cleanup;
  }
  pcg_state e = {m, &B, kg, st, &pc, noise, 0.0, buf, buf + m, buf + 2 * m, buf + 3 * m,
                 buf + 4 * m, buf + 5 * m, buf + 6 * m, buf + 7 * m, buf + 8 * m, buf + 9 * m,
                 buf + 10 * m, buf + 11 * m, buf + 12 * m, weights, 0.0, 1.0, 0.0, 0.0, 0.0,
                 0.0};
  sgp_progress(ctx, "ski_gsgp: mean", 0.0);
  if ((code = kg->apply(kg, sgp_cmat_of(st->uy, m, 1), sgp_mat_of(e.k0, m, 1), ctx)))
    goto cleanup;
  e.kappa0 = dot(m, st->uy, e.k0);
  /* z0 = P^{-1} y (rh = 0, cr = 1); p0 = z0 */
  double g2;
  if ((code = pcg_precondition(&e, ctx, &g2))) goto cleanup;
  memcpy(e.ph, e.zh, (size_t)m * sizeof(double));
  memcpy(e.bp, e.bz, (size_t)m * sizeof(double));
  memcpy(e.mp, e.mz, (size_t)m * sizeof(double));
  e.cp = e.cz;
  e.gamma = e.g2z;
  const sgp_ski_cg cg = {&e, "mean", pcg_step, pcg_advance, pcg_verify, pcg_direct, NULL};
  if ((code = sgp_ski_cg_run(ctx, &cg, st->yy, sqrt(st->yy), o, &inf, history, alpha, beta)))
    goto cleanup;
  if (xhat_out) memcpy(xhat_out, e.xh, (size_t)m * sizeof(double));
  if (cx_out) *cx_out = e.cx;
cleanup:
  sgp_blas_serial_end(blas_threads);
  if (info) *info = inf;
  precond_free(&pc);
  sgp_op_destroy(&B);
  free(buf);
  return code;
}
