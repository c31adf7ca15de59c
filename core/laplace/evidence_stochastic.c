/* evidence_stochastic.c -- the matrix-free Laplace evidence for a
 * diagonal W (bernoulli, poisson, gaussian). With
 * S = W^1/2, B = I + S K S, R = S B^-1 S, Sigma = K - K R K:
 *   mode:   Newton (evidence_mode.c) with R z by CG on B, K by the kernel operator,
 *           the CG preconditioned by a pivoted Cholesky of K (evidence_precond.c);
 *   log|B| = log|Q| + log|Q^-1/2 B Q^-1/2| (Q = I + S F F' S with F of rank up to
 *           SGP_EVS_SOLVE_RANK, evidence_precond.c): probes z_p = e_p + S F g_p
 *           (e_p, g_p Rademacher, fixed) have E[z z'] = Q, so Q^-1/2 z_p has
 *           identity covariance and stochastic Lanczos quadrature gives
 *           z_p' Q^-1 z_p e1' log(T_p) e1, T_p rebuilt from the Q-preconditioned CG
 *           coefficients of x_p = B^-1 z_p (the Lanczos matrix of Q^-1/2 B Q^-1/2
 *           from Q^-1/2 z_p); with y_p = Q^-1 z_p, E[x_p y_p'] = B^-1;
 *   control variates: Q itself, R_Q = S Q^-1 S = W - H H' (H = W F L^-T,
 *           L L' = I + F'W F): E[y_p y_p'] = Q^-1 Q Q^-1 = Q^-1, so every
 *           E[x_p y_p'] = B^-1 is split as Q^-1 (exact, of rank k: k more columns
 *           in the gradient's passes) + E[(x_p - y_p) y_p'], whose noise shrinks
 *           with |B^-1 - Q^-1| (evidence.h: the rank's effect on the noise):
 *   tr(R C_j) = tr(R_Q C_j) + (1/t) sum_p (S (x_p - y_p))' C_j (S y_p);
 *   diag(Sigma), per point by one of two unbiased forms, the one whose noise is
 *           scaled down: s - diag(K R K) where W_i s <= 1, with diag(K R_Q K) =
 *           diag(K W K) - rowsums((K H)^2) (a pass over the tiles and a product of
 *           k columns) plus (1/t) sum_p (K S (x_p - y_p)) o (K S y_p) (2t columns),
 *           and, since Sigma = S^-1 (I - B^-1) S^-1, (1 - diag(B^-1)) / W_i where
 *           W_i s > 1 (no product; the first form's error, of the order of s,
 *           would swamp a Sigma_ii <= 1/W_i);
 *   s2 = 1/2 diag(Sigma) o d3, u = (I + W K)^-1 s2 = s2 - R K s2 (one adjoint solve);
 *   every kernel coordinate: 1/2 a'C a + u'C a - 1/2 tr(R C), the contraction of
 *           dK with G = U V' of rank t + 2 + k in one pass over the tiles
 *           (sgp_kernel_grad_lowrank) and tr(W C) = s 1'w on the diagonal; the mean
 *           1'(a + u); gaussian noise s2n (1/2 a'a - 1/2 tr R); log alpha as the
 *           other kernel coordinates (dk_ii/dlog alpha = 0); the likelihood's
 *           parameter as the exact evidence's (evidence.c) with diag(Sigma) and
 *           u above and one more product K u.
 * The preconditioner's pivots are chosen once and kept, so that Q and the probes
 * move smoothly with theta: the optimizer sees one smooth function of theta. */
#include "laplace/evidence.h"
#include "kernels/kernels.h"
#include "laplace/lik_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Newton's solves: CG to this relative residual. In the gradient form of the step
 * (evidence_mode.c) the error is relative to the step itself, so Newton still
 * converges (linearly at rate ~ rtol cond(B)) to the exact mode's step tolerance. */
#define MF_NEWTON_RTOL 1e-4
/* The adjoint solve u = (I + W K)^-1 s2: its error enters the gradient as it is
 * (the mean's coordinate is 1'(a + u)), so it is solved far below the gradient's
 * standard error (~1e-5 relative with the control variates at n = 2000). */
#define MF_ADJOINT_RTOL 1e-9
/* The probes' solves (tr(R C_j), diag(Sigma) and the Lanczos quadrature); far
 * below the probes' own standard error. */
#define MF_PROBE_RTOL 1e-5
/* Lanczos steps kept per probe at most (the CG coefficients' storage). */
#define MF_MAX_CG 4000
/* K S p of a Newton solve's CG steps kept (mf_apply_rk), n doubles each; a longer
 * solve takes one more kernel pass instead. */
#define MF_KLOG 32

int sgp_evs_ws_init(sgp_ctx *ctx, sgp_evs_ws *ws, int64_t n, int probes, uint64_t seed,
                    size_t cache_bytes, int tile)
{
  memset(ws, 0, sizeof *ws);
  int st = sgp_ev_ws_init(ctx, &ws->ev, n, 1, 0);
  if (st) return st;
  ws->n = n; ws->t = probes; ws->cache_bytes = cache_bytes; ws->tile = tile;
  ws->piv = (int64_t *)malloc(SGP_EVS_SOLVE_RANK * sizeof(int64_t));
  if (!(ws->Z = sgp_alloc(n * probes)) || !(ws->E = sgp_alloc(SGP_EVS_SOLVE_RANK * probes)) ||
      !ws->piv) {
    sgp_evs_ws_free(ws);
    return sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory for %d probes", probes);
  }
  sgp_rng rng; /* its own stream: the probes depend on the seed only, and differ from
                * the optimizer's restarts drawn from the same seed */
  sgp_rng_seed(&rng, seed ^ 0x5eed9b0be5ull);
  for (int64_t k = 0; k < n * probes; k++) ws->Z[k] = (sgp_rng_next(&rng) >> 63) ? 1.0 : -1.0;
  for (int64_t k = 0; k < SGP_EVS_SOLVE_RANK * probes; k++)
    ws->E[k] = (sgp_rng_next(&rng) >> 63) ? 1.0 : -1.0;
  return SGP_OK;
}

void sgp_evs_ws_free(sgp_evs_ws *ws)
{
  sgp_ev_ws_free(&ws->ev);
  free(ws->Z); free(ws->E); free(ws->piv);
  memset(ws, 0, sizeof *ws);
}

/* ------------------------------------------------------ B = I + S K S */

typedef struct {
  sgp_op K, B;
  sgp_op P;          /* Q: the solves' preconditioner and the control variate (state: pc) */
  sgp_evs_precond pc;
  double *sw;        /* S = W^1/2 at the current point */
  double *scratch;   /* n x scratch_cols: S V inside b_apply (no allocation per CG step) */
  int64_t scratch_cols;
  int64_t iterations;
  double *klog;      /* n x MF_KLOG: K S p of one-column products while logging */
  int klog_n, logging; /* logged so far (MF_KLOG + 1: too many) */
} mf_t;

static int b_apply(const sgp_op *op, sgp_cmat V, sgp_mat Y, sgp_ctx *ctx)
{
  mf_t *m = (mf_t *)op->state; /* logs K S p (mf_apply_rk) */
  const int64_t n = op->n, nb = V.cols;
  int zero = 1; /* CG's residual of its zero start: no kernel pass */
  for (int64_t j = 0; j < nb && zero; j++)
    for (int64_t i = 0; i < n && zero; i++) zero = V.data[i + j * V.ld] == 0.0;
  if (zero) {
    for (int64_t j = 0; j < nb; j++) memset(Y.data + j * Y.ld, 0, (size_t)n * sizeof(double));
    return SGP_OK;
  }
  if (nb > m->scratch_cols)
    return sgp_fail(ctx, SGP_EINVAL, "evidence: internal: a block of %lld columns (at most %lld)",
                    (long long)nb, (long long)m->scratch_cols);
  double *t = m->scratch;
  for (int64_t j = 0; j < nb; j++)
    for (int64_t i = 0; i < n; i++) t[i + j * n] = m->sw[i] * V.data[i + j * V.ld];
  int st = m->K.apply(&m->K, sgp_cmat_of(t, n, nb), Y, ctx);
  if (st) return st;
  if (m->logging && nb == 1) {
    if (m->klog_n < MF_KLOG) memcpy(m->klog + m->klog_n * n, Y.data, (size_t)n * sizeof(double));
    if (m->klog_n <= MF_KLOG) m->klog_n++;
  }
  for (int64_t j = 0; j < nb; j++)
    for (int64_t i = 0; i < n; i++)
      Y.data[i + j * Y.ld] = V.data[i + j * V.ld] + m->sw[i] * Y.data[i + j * Y.ld];
  return SGP_OK;
}

/* X = B^-1 Rhs (n x nb) from a zero start, preconditioned or not; alpha/beta as
 * in sgp_cg (the Lanczos coefficients of B itself only without a preconditioner). */
static int b_solve(sgp_ctx *ctx, mf_t *m, const double *rhs, int64_t nb, double *X, double rtol,
                   const sgp_op *precond, double *alpha, double *beta, int max_iter)
{
  const int64_t n = m->B.n;
  sgp_cg_opts o;
  sgp_cg_opts_default(&o);
  o.tol = rtol;
  o.precond = precond;
  o.max_iter = max_iter;
  sgp_cg_info info;
  memset(X, 0, (size_t)(n * nb) * sizeof(double));
  int st = sgp_cg(ctx, &m->B, sgp_cmat_of(rhs, n, nb), sgp_mat_of(X, n, nb), &o, &info, alpha,
                  beta);
  m->iterations += info.iterations;
  if (!st && !info.converged)
    st = sgp_fail(ctx, SGP_ENOTPD, "evidence: CG on I + W^1/2 K W^1/2 stopped at relative "
                  "residual %.3g after %d iterations (tolerance %.3g)", info.max_rel_residual,
                  info.iterations, rtol);
  return st;
}

static int mf_apply_k(sgp_ctx *ctx, void *data, const double *v, double *out)
{
  const mf_t *m = (const mf_t *)data;
  return m->K.apply(&m->K, sgp_cmat_of(v, m->K.n, 1), sgp_mat_of(out, m->K.n, 1), ctx);
}

static int mf_factorize(sgp_ctx *ctx, void *data, const double *w)
{
  mf_t *m = (mf_t *)data;
  for (int64_t i = 0; i < m->K.n; i++) m->sw[i] = sqrt(w[i]);
  return sgp_evs_precond_factorize(ctx, &m->pc, m->sw);
}

/* out = S B^-1 S z, B solved to rtol */
static int apply_r_tol(sgp_ctx *ctx, mf_t *m, const double *z, double *out, double rtol)
{
  const int64_t n = m->K.n;
  double *sz = sgp_alloc(n);
  if (!sz) return sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory");
  for (int64_t i = 0; i < n; i++) sz[i] = m->sw[i] * z[i];
  int st = b_solve(ctx, m, sz, 1, out, rtol, &m->P, NULL, NULL, 0);
  for (int64_t i = 0; !st && i < n; i++) out[i] *= m->sw[i];
  free(sz);
  return st;
}

static int mf_apply_r(sgp_ctx *ctx, void *data, const double *z, double *out)
{
  return apply_r_tol(ctx, (mf_t *)data, z, out, MF_NEWTON_RTOL);
}

/* out = R z (as mf_apply_r) and kout = K out without a pass over K: CG's iterate
 * is x = sum_j alpha_j p_j from a zero start, and b_apply logs each K S p_j it
 * forms, so K out = K S x = sum_j alpha_j K S p_j. */
static int mf_apply_rk(sgp_ctx *ctx, void *data, const double *z, double *out, double *kout)
{
  mf_t *m = (mf_t *)data;
  const int64_t n = m->K.n;
  double *sz = sgp_alloc(n), *al = sgp_calloc(n);
  int st = sz && al ? SGP_OK : sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory");
  for (int64_t i = 0; !st && i < n; i++) sz[i] = m->sw[i] * z[i];
  const int64_t it0 = m->iterations;
  m->klog_n = 0;
  m->logging = 1;
  if (!st) st = b_solve(ctx, m, sz, 1, out, MF_NEWTON_RTOL, &m->P, al, NULL, (int)n);
  m->logging = 0;
  const int64_t steps = m->iterations - it0;
  if (!st && steps == m->klog_n && steps <= MF_KLOG) {
    memset(kout, 0, (size_t)n * sizeof(double));
    for (int64_t j = 0; j < steps; j++)
      for (int64_t i = 0; i < n; i++) kout[i] += al[j] * m->klog[i + j * n];
  }
  for (int64_t i = 0; !st && i < n; i++) out[i] *= m->sw[i];
  if (!st && !(steps == m->klog_n && steps <= MF_KLOG)) st = mf_apply_k(ctx, m, out, kout);
  free(sz); free(al);
  return st;
}

/* --------------------------------------------------------- the estimate */

/* phi_p = nu_p e1' log(T_p) e1 for each probe, from its CG coefficients (nu_p: the
 * squared norm of the start vector, z_p' Q^-1 z_p). */
static int slq(sgp_ctx *ctx, int t, const double *nu, int max_iter, const double *alpha,
               const double *beta, double *phi)
{
  double *d = sgp_alloc(3 * (int64_t)max_iter), *e = d + max_iter, *ev = e + max_iter;
  double *V = sgp_alloc((int64_t)max_iter * max_iter);
  int st = d && V ? SGP_OK : sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory");
  for (int p = 0; !st && p < t; p++) {
    const double *al = alpha + (int64_t)p * max_iter, *be = beta + (int64_t)p * max_iter;
    int k = 0;
    while (k < max_iter && al[k] != 0.0) k++;
    if (k == 0) { phi[p] = 0.0; continue; }
    for (int j = 0; j < k; j++) {
      d[j] = 1.0 / al[j] + (j > 0 ? be[j - 1] / al[j - 1] : 0.0);
      if (j + 1 < k) e[j] = sqrt(be[j]) / al[j];
    }
    if ((st = sgp_tridiag_eig(ctx, k, d, e, ev, V))) break;
    double s = 0.0;
    for (int j = 0; j < k; j++) s += V[(int64_t)j * k] * V[(int64_t)j * k] * log(ev[j]);
    phi[p] = nu[p] * s;
  }
  free(d); free(V);
  return st;
}

/* d_i = sum_l w_l k(x_i, x_l)^2 = diag(K W K), tile by tile: rows split among the
 * threads, each row summed by one thread in one order (the same for any count). */
static int kwk_diag(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X, const double *w, double *d)
{
  const int64_t n = X.rows, tb = 256;
  double *center = NULL;
  sgp_kprep prep;
  memset(&prep, 0, sizeof prep);
  int st = sgp_column_means(ctx, X, &center), nomem = 0;
  if (!st) st = sgp_kprep_init(ctx, k, X, center, &prep, "x");
  if (!st) {
    const int nt = sgp_par_threads(ctx, 30.0 * (double)n * (double)n);
    (void)nt;
#pragma omp parallel num_threads(nt)
    {
      double *kt = sgp_alloc(tb * tb);
      if (!kt) {
#pragma omp atomic write
        nomem = 1;
      }
#pragma omp for schedule(dynamic, 1)
      for (int64_t i0 = 0; i0 < n; i0 += tb) {
        if (!kt) continue;
        const int64_t ni = n - i0 < tb ? n - i0 : tb;
        for (int64_t q = 0; q < ni; q++) d[i0 + q] = 0.0;
        for (int64_t j0 = 0; j0 < n; j0 += tb) {
          const int64_t nj = n - j0 < tb ? n - j0 : tb;
          sgp_kernel_tile(ctx, k, &prep, i0, ni, &prep, j0, nj, kt, ni);
          for (int64_t c = 0; c < nj; c++) {
            const double wl = w[j0 + c], *col = kt + c * ni;
            for (int64_t q = 0; q < ni; q++) d[i0 + q] += wl * col[q] * col[q];
          }
        }
      }
      free(kt);
    }
    if (nomem) st = sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory for kernel tiles");
  }
  sgp_kprep_free(&prep);
  free(center);
  return st;
}

/* diag(Sigma) into sg (NULL: not kept) and s2 = 1/2 diag(Sigma) o d3, by the form whose noise is
 * the smaller per point (see the top of the file), each with Q as a control
 * variate: diag(B^-1) = diag(Q^-1) + E[(x - y) o y], diag(K R K) = diag(K R_Q K) +
 * E[(K S (x - y)) o (K S y)] with diag(K R_Q K) = diag(K W K) - rowsums((K H)^2).
 * D: S (x_p - y_p), S y_p (n x 2t) and H (n x k) side by side; dp = diag(Q^-1). */
static int implicit_s2(sgp_ctx *ctx, const sgp_ev_problem *p, sgp_evs_ws *ws, mf_t *m,
                       const double *D, const double *dp, double *s2, double *sg)
{
  const int64_t n = ws->n, t = ws->t, k = m->pc.k;
  const double *w = ws->ev.w, sk = p->kernel.outputscale;
  double *Y = NULL, *kp = NULL;
  int st = SGP_OK, any_small_w = 0;
  for (int64_t i = 0; i < n; i++) any_small_w |= w[i] * sk <= 1.0;
  if (any_small_w) { /* one product of [D, H] (2t + k columns) and a pass for diag(K W K) */
    Y = sgp_alloc(n * (2 * t + k)); kp = sgp_alloc(n);
    if (!Y || !kp) { st = sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory"); goto done; }
    if ((st = m->K.apply(&m->K, sgp_cmat_of(D, n, 2 * t + k), sgp_mat_of(Y, n, 2 * t + k), ctx)))
      goto done;
    if ((st = kwk_diag(ctx, &p->kernel, p->X, w, kp))) goto done;
    const double *KH = Y + n * 2 * t;
    for (int64_t c = 0; c < k; c++)
      for (int64_t i = 0; i < n; i++) kp[i] -= KH[i + c * n] * KH[i + c * n];
  }
  for (int64_t i = 0; i < n; i++) {
    double sig;
    if (w[i] * sk > 1.0) {
      double bi = 0.0; /* diag(B^-1)_i - diag(Q^-1)_i */
      for (int64_t j = 0; j < t; j++) bi += D[i + j * n] * D[i + (t + j) * n];
      sig = (1.0 - dp[i] - bi / ((double)t * w[i])) / w[i]; /* D carries S twice */
    } else {
      double kk = 0.0;
      for (int64_t j = 0; j < t; j++) kk += Y[i + j * n] * Y[i + (t + j) * n];
      sig = sk - kp[i] - kk / (double)t;
    }
    s2[i] = 0.5 * sig * ws->ev.d3[i];
    if (sg) sg[i] = sig;
  }
done:
  free(Y); free(kp);
  return st;
}

/* d log q / d log par as evidence.c's par_grad: 1'dl - 1/2 sig'dw + (K u)'dg;
 * scratch: 4n doubles. */
static int mf_par_grad(sgp_ctx *ctx, const sgp_ev_problem *p, sgp_evs_ws *ws, mf_t *m,
                       const double *sig, const double *u, double *scratch, double *out)
{
  const int64_t n = ws->n;
  double *dl = scratch, *dg = dl + n, *dw = dg + n, *ku = dw + n;
  sgp_lik_ops_of(p->lik.kind)->par_derivs(&p->lik, ws->ev.f, dl, dg, dw);
  const int st = mf_apply_k(ctx, m, u, ku);
  double g = 0.0;
  for (int64_t i = 0; !st && i < n; i++) g += dl[i] - 0.5 * sig[i] * dw[i] + ku[i] * dg[i];
  *out = g;
  return st;
}

/* The gradient from the probe solves X = B^-1 Z and Yp = Q^-1 Z (m holds S and
 * Q at the mode). The traces use Q as a control variate: with
 * R_Q = S Q^-1 S = W - H H' (H = W F L^-T, L L' = I + F'W F),
 * tr(R C) = tr(R_Q C) + tr((R - R_Q) C), the first exact (a diagonal part and k
 * more columns in the contraction), the second estimated by
 * (1/t) sum_p (S (x_p - y_p))' C (S y_p), whose noise shrinks with |B^-1 - Q^-1|;
 * diag(Sigma) likewise (implicit_s2). */
static int mf_grad(sgp_ctx *ctx, const sgp_ev_problem *p, sgp_evs_ws *ws, mf_t *m,
                   const double *X, const double *Yp, double *grad)
{
  const int64_t n = ws->n, t = ws->t, k = m->pc.k, r = t + 2 + k;
  const sgp_ev_layout *l = &p->layout;
  const double *a = ws->ev.a, *sw = m->sw, *w = ws->ev.w, sk = p->kernel.outputscale;
  /* D = [S (x_p - y_p), S y_p, H]: one block for the product in implicit_s2 */
  double *D = sgp_alloc(n * (2 * t + k)), *H = D ? D + n * 2 * t : NULL, *dp = sgp_alloc(n);
  double *U = sgp_alloc(n * r), *V = sgp_alloc(n * r);
  double *s2 = ws->ev.b, *ks2 = ws->ev.kb, *u = U + n;
  int st = D && dp && U && V ? SGP_OK : sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory");
  if (st) goto done;
  /* H2 = S F L^-T, diag(Q^-1) = 1 - rowsums(H2^2), H = S H2 */
  memcpy(H, m->pc.SF, (size_t)(n * k) * sizeof(double));
  if (k > 0 && (st = sgp_trsm(ctx, 'R', 'L', 'T', n, k, 1.0, m->pc.M, m->pc.ldm, H, n)))
    goto done;
  for (int64_t i = 0; i < n; i++) dp[i] = 1.0;
  for (int64_t c = 0; c < k; c++)
    for (int64_t i = 0; i < n; i++) {
      dp[i] -= H[i + c * n] * H[i + c * n];
      H[i + c * n] *= sw[i];
    }
  for (int64_t j = 0; j < t; j++)
    for (int64_t i = 0; i < n; i++) {
      D[i + j * n] = sw[i] * (X[i + j * n] - Yp[i + j * n]); /* S (x_p - y_p) */
      D[i + (t + j) * n] = sw[i] * Yp[i + j * n];            /* S y_p */
    }
  int any_d3 = (int)l->has_par; /* the parameter's gradient reads diag(Sigma) */
  for (int64_t i = 0; i < n; i++) any_d3 |= ws->ev.d3[i] != 0.0;
  memset(u, 0, (size_t)n * sizeof(double));
  if (any_d3) { /* gaussian: no implicit term */
    if ((st = implicit_s2(ctx, p, ws, m, D, dp, s2, l->has_par ? dp : NULL))) goto done;
    if ((st = mf_apply_k(ctx, m, s2, ks2)) || (st = apply_r_tol(ctx, m, ks2, u, MF_ADJOINT_RTOL))) goto done;
    for (int64_t i = 0; i < n; i++) u[i] = s2[i] - u[i];
  }
  double trr = 0.0, trp = 0.0, sumw = 0.0;
  for (int64_t i = 0; i < n; i++) {
    U[i] = 0.5 * a[i];
    V[i] = a[i];
    V[i + n] = a[i];
    sumw += w[i];
  }
  for (int64_t j = 0; j < t; j++)
    for (int64_t i = 0; i < n; i++) {
      U[i + (2 + j) * n] = -0.5 / (double)t * D[i + j * n];
      V[i + (2 + j) * n] = D[i + (t + j) * n];
      trr += D[i + j * n] * D[i + (t + j) * n];
    }
  for (int64_t c = 0; c < k; c++) /* -1/2 tr(R_Q C) = -1/2 sum w C_ii + 1/2 <H H', C> */
    for (int64_t i = 0; i < n; i++) {
      U[i + (2 + t + c) * n] = 0.5 * H[i + c * n];
      V[i + (2 + t + c) * n] = H[i + c * n];
      trp += H[i + c * n] * H[i + c * n];
    }
  trr = trr / (double)t + sumw - trp;
  if ((st = sgp_kernel_grad_lowrank(ctx, &p->kernel, p->X, sgp_cmat_of(U, n, r),
                                    sgp_cmat_of(V, n, r), ws->tile, grad,
                                    l->has_alpha ? grad + sgp_ev_alpha_at(l) : NULL)))
    goto done;
  grad[l->n_ls] -= 0.5 * sk * sumw; /* the diagonal: dk_ii/dlog s = s, dk_ii/dlog l = 0 */
  double *gm = grad + l->n_ls + 1;
  gm[0] = 0.0;
  for (int64_t i = 0; i < n; i++) gm[0] += a[i] + u[i];
  if (l->has_noise) {
    const double s2n = p->lik.noise[0];
    grad[sgp_ev_noise_at(l)] = s2n * (0.5 * sgp_dot(n, a, a) - 0.5 * trr);
  }
  if (l->has_par) /* dp holds diag(Sigma) now, D's first block is free */
    st = mf_par_grad(ctx, p, ws, m, dp, u, D, grad + sgp_ev_par_at(l));
done:
  free(D); free(dp); free(U); free(V);
  return st;
}

int sgp_evidence_stochastic(sgp_ctx *ctx, const sgp_ev_problem *p, sgp_evs_ws *ws,
                            double *loglik, double *se, double *grad)
{
  const int64_t n = ws->n, t = ws->t;
  if (p->lik.C != 1 || sgp_lik_multiclass(p->lik.kind))
    return sgp_fail(ctx, SGP_EINVAL, "evidence: the stochastic estimator takes a diagonal W "
                    "(bernoulli, poisson, gaussian), not softmax");
  const int max_iter = n < MF_MAX_CG ? (int)n : MF_MAX_CG;
  mf_t m;
  memset(&m, 0, sizeof m);
  /* the CG coefficients: zero past each probe's last iteration */
  double *X = sgp_alloc(n * t), *al = sgp_calloc((int64_t)max_iter * t);
  double *be = sgp_calloc((int64_t)max_iter * t), *mean = sgp_alloc(n), *phi = sgp_alloc(2 * t);
  double *Zp = sgp_alloc(n * t), *Yp = sgp_alloc(n * t), *nu = phi + t;
  m.sw = sgp_alloc(n);
  m.scratch_cols = t; /* the widest block B multiplies: the probes */
  m.scratch = sgp_alloc(n * t);
  m.klog = sgp_alloc(n * MF_KLOG);
  sgp_dense_op_opts oo;
  sgp_dense_op_opts_default(&oo);
  oo.cache_bytes = ws->cache_bytes;
  if (ws->tile > 0) oo.tile = ws->tile;
  int st = X && al && be && mean && phi && Zp && Yp && m.sw && m.scratch && m.klog ? SGP_OK
           : sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory for n = %lld", (long long)n);
  if (st || (st = sgp_op_dense_kernel(ctx, &p->kernel, p->X, &oo, &m.K, NULL))) goto done;
  m.B.n = n;
  m.B.state = &m;
  m.B.apply = b_apply;
  if ((st = sgp_evs_precond_build(ctx, &p->kernel, p->X, SGP_EVS_SOLVE_RANK, ws->piv,
                                  &ws->npiv, &m.pc)))
    goto done;
  m.P.n = n;
  m.P.state = &m.pc;
  m.P.apply = sgp_evs_precond_apply;
  for (int64_t i = 0; i < n; i++) mean[i] = p->mean[0];
  const sgp_ev_ops ops = {mf_apply_k, mf_factorize, mf_apply_r, mf_apply_rk, &m, 0.0}; /* no chord */
  double logp;
  if ((st = sgp_ev_mode(ctx, &ops, &p->lik, mean, &ws->ev, &logp))) goto done;
  /* the probes z_p = e_p + S F g_p (Q factorized at the mode), B^-1 Z and the
   * tridiagonals in one Q-preconditioned block CG, Q^-1 Z and z_p' Q^-1 z_p */
  const int64_t k = m.pc.k;
  for (int64_t j = 0; j < t; j++) memcpy(Zp + j * n, ws->Z + j * n, (size_t)n * sizeof(double));
  if (k > 0 && (st = sgp_gemm(ctx, 'N', 'N', n, t, k, 1.0, m.pc.SF, n, ws->E,
                              SGP_EVS_SOLVE_RANK, 1.0, Zp, n)))
    goto done;
  if ((st = b_solve(ctx, &m, Zp, t, X, MF_PROBE_RTOL, &m.P, al, be, max_iter))) goto done;
  if ((st = m.P.apply(&m.P, sgp_cmat_of(Zp, n, t), sgp_mat_of(Yp, n, t), ctx))) goto done;
  for (int64_t j = 0; j < t; j++) nu[j] = sgp_dot(n, Zp + j * n, Yp + j * n);
  if ((st = slq(ctx, (int)t, nu, max_iter, al, be, phi))) goto done;
  double ld = 0.0, var = 0.0;
  for (int64_t j = 0; j < t; j++) ld += phi[j];
  ld /= (double)t;
  for (int64_t j = 0; j < t; j++) var += (phi[j] - ld) * (phi[j] - ld);
  var = t > 1 ? var / (double)(t - 1) : NAN;
  double q = 0.0;
  for (int64_t i = 0; i < n; i++) q += ws->ev.a[i] * (ws->ev.f[i] - mean[i]);
  *loglik = -0.5 * q + logp - 0.5 * (sgp_evs_precond_logdet(&m.pc) + ld);
  *se = 0.5 * sqrt(var / (double)t);
  if (!isfinite(*loglik)) {
    st = sgp_fail(ctx, SGP_ENOTPD, "evidence: not finite at these hyperparameters");
    goto done;
  }
  if (grad) st = mf_grad(ctx, p, ws, &m, X, Yp, grad);
done:
  ws->cg_iterations = m.iterations;
  sgp_op_destroy(&m.K);
  sgp_evs_precond_free(&m.pc);
  free(X); free(al); free(be); free(mean); free(phi); free(Zp); free(Yp); free(m.sw);
  free(m.scratch); free(m.klog);
  return st;
}
