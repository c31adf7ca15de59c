/* ski_loglik_eig.c -- ski_gsgp's log-likelihood and gradient for a separable
 * kernel, preconditioned in the kernel's eigenbasis (ski_kron_eig.c). With
 * S = K_G^{1/2} = Q Lambda^{1/2} Q' and M = noise I + S B S (m-by-m),
 * Sylvester's identity and Woodbury give, for A = noise I + W K_G W':
 *   logdet A   = (n - m) log noise + logdet M,
 *   y'A^{-1}y  = (y'y - b'M^{-1}b) / noise,  b = S W'y,
 * so every solve is with M, which in the working basis (ski_eig_precond.c)
 * is M' = noise I + F'BF, F = Q Lambda^{1/2} U (two Kronecker products and
 * one B product per column and step), with a preconditioner P diagonal in
 * that basis: by default the exact inverse of M' for B replaced by the
 * Kronecker product of its marginals, which holds the CG steps to a few
 * whatever n (the plain SLQ ran into its Krylov cap at
 * m = 128K). logdet M = logdet P + logdet(P^{-1/2} M' P^{-1/2}), the second by
 * SLQ with Rademacher probes xi_j in the working basis, i.e. PCG on M' from
 * r0 = P^{1/2} xi_j; its solves u_j = M'^{-1} P^{1/2} xi_j and
 * v_j = P^{-1/2} xi_j give the Hutchinson traces E[u'X v] = tr(M'^{-1} X):
 *   d logdet A / d log noise = (n - m) + noise tr(M^{-1}),
 *   d logdet A / d log s     = m - noise tr(M^{-1}),
 *   d logdet A / d log ell   = 2 tr(M^{-1} S B dS)   (dS from dR, Daleckii-Krein).
 * Two more columns solve M' a = F'W'y and M' a1 = F'W'1: the data fit, the
 * quadratic terms (W'A^{-1}y = (W'y - B F a) / noise) and the GLS mean's
 * 1'A^{-1}1. Columns: 0 = y, 1 = ones, 2.. = probes. */
#include "ski/ski.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NMEAN 2
#define LOG_2PI 1.8378770664093454836

static double dot(int64_t n, const double *a, const double *b)
{
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

typedef struct {
  int64_t m, c, t, K;
  double s2;
  const sgp_op *B;
  sgp_ski_kron_eig ke;
  sgp_ski_eig_basis eb;
  sgp_ski_marginals own; /* B's marginals when the options bring none */
  double *buf, *pd, *b;              /* P, the mean right-hand sides (m x 2) */
  double *X, *R, *Z, *P, *T1, *T2, *T3; /* m x c each */
  double *gamma, *stop, *alpha, *beta, *tri;
  int64_t *its, *cap, *idx;
  char *live, *conv, *broke;
} eig_work;

static void work_free(eig_work *w)
{
  sgp_ski_kron_eig_free(&w->ke);
  sgp_ski_eig_basis_free(&w->eb);
  sgp_ski_marginals_free(&w->own);
  free(w->buf); free(w->gamma); free(w->its); free(w->live);
}

static int work_alloc(sgp_ctx *ctx, eig_work *w)
{
  const int64_t m = w->m, c = w->c, t = w->t, K = w->K;
  w->buf = sgp_calloc(m * (1 + NMEAN + 7 * c));
  w->gamma = sgp_calloc(2 * c + 2 * K * t + 3 * K + K * K);
  w->its = (int64_t *)calloc((size_t)(3 * c), sizeof(int64_t));
  w->live = (char *)calloc((size_t)(3 * c), 1);
  if (!w->buf || !w->gamma || !w->its || !w->live)
    return sgp_fail(ctx, SGP_ENOMEM, "probes: out of memory for %lld probe solves (m = %lld)",
                    (long long)t, (long long)m);
  double *p = w->buf;
  w->pd = p; w->b = p + m;
  p += (1 + NMEAN) * m;
  w->X = p; w->R = p + m * c; w->Z = p + 2 * m * c; w->P = p + 3 * m * c;
  w->T1 = p + 4 * m * c; w->T2 = p + 5 * m * c; w->T3 = p + 6 * m * c;
  w->stop = w->gamma + c; w->alpha = w->gamma + 2 * c; w->beta = w->alpha + K * t;
  w->tri = w->beta + K * t;
  w->cap = w->its + c; w->idx = w->its + 2 * c;
  w->conv = w->live + c; w->broke = w->live + 2 * c;
  return SGP_OK;
}

/* Y = F X (trans 'N': working basis to grid) or F'X ('T'), cols columns. */
static int basis_apply(sgp_ctx *ctx, const eig_work *w, char trans, int64_t cols,
                       const double *X, double *Y, double *work)
{
  return sgp_ski_kron_eig_apply(ctx, &w->ke, w->eb.F, trans, cols, X, Y, work);
}

/* T2[:, k] = M P[:, idx[k]] for the nl live columns. */
static int apply_m(sgp_ctx *ctx, eig_work *w, int64_t nl)
{
  const int64_t m = w->m;
  int code;
  for (int64_t k = 0; k < nl; k++)
    memcpy(w->T1 + k * m, w->P + w->idx[k] * m, (size_t)m * sizeof(double));
  if ((code = basis_apply(ctx, w, 'N', nl, w->T1, w->T2, w->T3))) return code;
  if ((code = w->B->apply(w->B, sgp_cmat_of(w->T2, m, nl), sgp_mat_of(w->T1, m, nl), ctx)))
    return code;
  if ((code = basis_apply(ctx, w, 'T', nl, w->T1, w->T2, w->T3))) return code;
  for (int64_t k = 0; k < nl; k++) {
    const double *p = w->P + w->idx[k] * m;
    double *o = w->T2 + k * m;
    for (int64_t i = 0; i < m; i++) o[i] += w->s2 * p[i];
  }
  return SGP_OK;
}

/* One CG step of column col given q = M'p; records the probes' coefficients.
 * Returns 1 on a non-finite p'q (the caller fails), else 0. Columns are
 * independent: the steps of one iteration run in parallel. */
static int cg_step(eig_work *w, int64_t col, const double *q)
{
  const int64_t m = w->m, j = col - NMEAN;
  double *x = w->X + col * m, *r = w->R + col * m, *z = w->Z + col * m, *p = w->P + col * m;
  const double delta = dot(m, p, q);
  if (!isfinite(delta)) return 1;
  if (!(delta > 0)) { w->live[col] = 0; w->broke[col] = 1; return 0; }
  const double a = w->gamma[col] / delta;
  double g2 = 0.0;
  for (int64_t i = 0; i < m; i++) {
    x[i] += a * p[i];
    r[i] -= a * q[i];
    z[i] = r[i] / w->pd[i];
    g2 += r[i] * z[i];
  }
  if (j >= 0) w->alpha[w->its[col] + j * w->K] = a;
  w->its[col]++;
  const double bt = g2 / w->gamma[col];
  w->gamma[col] = g2;
  if (g2 <= w->stop[col]) { w->live[col] = 0; w->conv[col] = 1; return 0; }
  if (w->its[col] >= w->cap[col]) { w->live[col] = 0; return 0; }
  if (j >= 0) w->beta[w->its[col] - 1 + j * w->K] = bt;
  for (int64_t i = 0; i < m; i++) p[i] = z[i] + bt * p[i];
  return 0;
}

/* Batched PCG from x = 0 on every column (R holds the right-hand sides). */
static int pcg_run(sgp_ctx *ctx, eig_work *w)
{
  const int64_t m = w->m;
  int code;
  for (int64_t col = 0; col < w->c; col++) {
    const double *r = w->R + col * m;
    double *z = w->Z + col * m;
    for (int64_t i = 0; i < m; i++) z[i] = r[i] / w->pd[i];
    memcpy(w->P + col * m, z, (size_t)m * sizeof(double));
    w->gamma[col] = dot(m, r, z);
    /* a probe takes one step at least: the quadrature needs T of order >= 1 */
    w->live[col] = col >= NMEAN || w->gamma[col] > w->stop[col];
    w->conv[col] = !w->live[col];
  }
  for (;;) {
    int64_t nl = 0;
    for (int64_t col = 0; col < w->c; col++) if (w->live[col]) w->idx[nl++] = col;
    if (nl == 0) return SGP_OK;
    if ((code = sgp_poll_interrupt(ctx))) return code;
    if ((code = apply_m(ctx, w, nl))) return code;
    int bad = 0;
    const int nt = sgp_par_threads(ctx, 10.0 * (double)(nl * m)); /* a CG step's vector work */
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(| : bad)
    for (int64_t k = 0; k < nl; k++) bad |= cg_step(w, w->idx[k], w->T2 + k * m);
    if (bad)
      return sgp_fail(ctx, SGP_EINVAL, "outputscale: the log-likelihood's CG met a non-finite "
                      "value (an overflow: y, outputscale and noise must be of moderate "
                      "magnitude)");
  }
}

/* Right-hand sides and stopping rules. The mean columns stop when the
 * preconditioned residual r'P^{-1}r (about the energy error of b'a, which
 * enters the data fit divided by noise^2) is below mean_tol^2 noise |v|^2, so
 * that the data fit is as accurate as an n-space solve to a relative residual
 * of mean_tol; the probes stop at a relative residual tol of the
 * preconditioned system. */
static int pcg_setup(sgp_ctx *ctx, const sgp_ski_stats *st, uint64_t seed,
                     const sgp_ski_loglik_opts *o, eig_work *w)
{
  const int64_t m = w->m;
  int code;
  memcpy(w->T1, st->uy, (size_t)m * sizeof(double));
  memcpy(w->T1 + m, st->u1, (size_t)m * sizeof(double));
  if ((code = basis_apply(ctx, w, 'T', NMEAN, w->T1, w->b, w->T3))) return code;
  memcpy(w->R, w->b, (size_t)(m * NMEAN) * sizeof(double));
  w->stop[0] = o->mean_tol * o->mean_tol * w->s2 * st->yy;
  w->stop[1] = o->mean_tol * o->mean_tol * w->s2 * (double)st->n;
  w->cap[0] = w->cap[1] = o->max_iter;
  for (int64_t j = 0; j < w->t; j++) {
    double *r = w->R + (NMEAN + j) * m;
    for (int64_t i = 0; i < m; i++) r[i] = sqrt(w->pd[i]) * sgp_ski_probe_value(seed, j, i);
    w->stop[NMEAN + j] = o->tol * o->tol * (double)m; /* xi'xi = m */
    w->cap[NMEAN + j] = o->slq_max_iter;
  }
  return SGP_OK;
}

/* logdet A and its standard error; discarded probes (a non-positive Ritz
 * value) are counted, kept ones marked in w->broke's complement. */
static int logdet_part(sgp_ctx *ctx, const sgp_ski_stats *st, eig_work *w, double *gam,
                       sgp_ski_loglik_result *v)
{
  const int64_t m = w->m;
  int64_t used = 0;
  int code;
  for (int64_t j = 0; j < w->t; j++) {
    const int64_t col = NMEAN + j, kj = w->its[col];
    if (kj > v->slq_iterations) v->slq_iterations = kj;
    if (!w->conv[col]) v->converged = 0;
    double q = 0.0;
    int ok = kj > 0;
    if (ok && (code = sgp_ski_cg_quadrature(ctx, kj, w->alpha + j * w->K, w->beta + j * w->K,
                                            w->tri, &q, &ok)))
      return code;
    if (!ok) { v->probes_discarded++; w->broke[col] = 1; continue; }
    w->broke[col] = 0;
    gam[used++] = (double)m * q;
  }
  v->probes_used = used;
  if (used == 0) return sgp_fail(ctx, SGP_ENOTPD, "probes: every probe gave a non-positive "
                                 "Ritz value");
  if (v->probes_discarded > 0) v->converged = 0;
  double mean = 0.0, ss = 0.0, lp = 0.0;
  for (int64_t j = 0; j < used; j++) mean += gam[j];
  mean /= (double)used;
  for (int64_t j = 0; j < used; j++) ss += (gam[j] - mean) * (gam[j] - mean);
  for (int64_t i = 0; i < m; i++) lp += log(w->pd[i]);
  v->logdet = (double)(st->n - m) * log(w->s2) + lp + mean;
  v->logdet_se = used > 1 ? sqrt(ss / (double)(used - 1) / (double)used) : 0.0;
  return SGP_OK;
}

/* Entry e from per-probe samples of tr(A^{-1} dA) over the kept probes. */
static void finish_entry(const eig_work *w, const double *sample, double quad, int e,
                         sgp_ski_loglik_grad_result *res)
{
  double mean = 0.0, ss = 0.0;
  int64_t used = 0;
  for (int64_t j = 0; j < w->t; j++)
    if (!w->broke[NMEAN + j]) { mean += sample[j]; used++; }
  mean = used > 0 ? mean / (double)used : 0.0;
  for (int64_t j = 0; j < w->t; j++)
    if (!w->broke[NMEAN + j]) ss += (sample[j] - mean) * (sample[j] - mean);
  res->quad[e] = quad;
  res->trace[e] = 0.5 * mean;
  res->grad[e] = quad - 0.5 * mean;
  res->grad_se[e] = used > 1 ? 0.5 * sqrt(ss / (double)(used - 1) / (double)used) : 0.0;
}

/* The mean columns: data fit, W'A^{-1}y into T3[:,0], the noise's quadratic
 * term, dL/dmu and d2L/dmu2. */
static int mean_part(sgp_ctx *ctx, const sgp_ski_stats *st, eig_work *w,
                     sgp_ski_loglik_grad_result *res)
{
  const int64_t m = w->m;
  const double s2 = w->s2;
  sgp_ski_loglik_result *v = &res->value;
  int code;
  if ((code = basis_apply(ctx, w, 'N', 1, w->X, w->T2, w->T3))) return code;
  const double *sa = w->T2; /* F a = S a (grid) */
  if ((code = w->B->apply(w->B, sgp_cmat_of(sa, m, 1), sgp_mat_of(w->T1, m, 1), ctx)))
    return code;
  const double *bsa = w->T1;
  double *wz = w->T3;
  for (int64_t i = 0; i < m; i++) wz[i] = (st->uy[i] - bsa[i]) / s2;
  v->datafit = (st->yy - dot(m, w->b, w->X)) / s2;
  v->loglik = -0.5 * (v->logdet + v->datafit + (double)st->n * LOG_2PI);
  const double zz = (st->yy - 2.0 * dot(m, st->uy, sa) + dot(m, sa, bsa)) / (s2 * s2);
  res->quad[res->ntheta - 1] = 0.5 * s2 * zz;
  res->dmean = (st->ysum - dot(m, st->u1, sa)) / s2;
  res->dmean2 = -((double)st->n - dot(m, w->b + m, w->X + m)) / s2;
  sgp_ski_solve_info *mi = &v->mean_info;
  mi->iterations = w->its[0];
  mi->converged = w->conv[0] && w->conv[1];
  mi->rel_residual = st->yy > 0 ? sqrt(w->gamma[0] / (s2 * st->yy)) : 0.0;
  mi->stop = mi->converged ? SGP_SKI_STOP_TOL
             : (w->broke[0] || w->broke[1]) ? SGP_SKI_STOP_BREAKDOWN : SGP_SKI_STOP_MAX_ITER;
  if (!mi->converged) v->converged = 0;
  return SGP_OK;
}

/* The kernel entries' quadratic terms from wz = W'A^{-1}y (T3[:,0]): log s
 * with dK = K_G (its product, the mean cache, into weights), each log ell
 * with sgp_ski_apply_dkg, as ski_loglik_grad.c does. */
static int kernel_quad(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_kernel *k,
                       const sgp_ski_kg_opts *kgo, eig_work *w, double *weights,
                       double *quad)
{
  const int64_t m = w->m, L = k->n_lengthscale;
  const sgp_ski_grid *g = &st->grid;
  const double *wz = w->T3;
  double *out = w->T3 + m, *acc = w->T3 + 2 * m;
  sgp_op kg = {0};
  int code = sgp_ski_grid_op(ctx, k, g, kgo, &kg);
  if (!code) code = kg.apply(&kg, sgp_cmat_of(wz, m, 1), sgp_mat_of(out, m, 1), ctx);
  const int kron = !code && sgp_ski_grid_op_path(&kg) == SGP_SKI_KG_KRONECKER;
  sgp_op_destroy(&kg);
  if (code) return code;
  quad[L] = 0.5 * dot(m, wz, out);
  if (weights) memcpy(weights, out, (size_t)m * sizeof(double));
  sgp_ski_kg_opts dko;
  if (kgo) dko = *kgo; else sgp_ski_kg_opts_default(&dko);
  dko.expected_products = 0.0;
  const unsigned all = (1u << g->d) - 1u;
  for (int64_t p = 0; p < L; p++) {
    const unsigned mask = L == 1 ? all : 1u << p;
    if ((code = sgp_ski_apply_dkg(ctx, k, g, &dko, L == 1 && kron, mask, sgp_cmat_of(wz, m, 1),
                                  out, acc)))
      return code;
    quad[p] = 0.5 * dot(m, wz, acc);
  }
  return SGP_OK;
}

/* E[c_j] for the lengthscale control variate c_j = 2 (Bk F v_j)'(Q D U v_j)
 * (trace_part): tr(P^{-1} G), G = 2 F'Bk Q D U with Bk = c (B_d x ... x B_1)
 * and D = Q'(dK_G^{1/2})Q summed over the dimensions j in mask, is exact from
 * G's diagonal 2 c s sum_j (x_{k != j} E_k) x dA_j (ski_eig_precond.c). */
static double control_trace(const eig_work *w, unsigned mask)
{
  const sgp_ski_eig_basis *eb = &w->eb;
  int64_t sub[SGP_SKI_MAX_D] = {0};
  double tr = 0.0;
  for (int64_t i = 0; i < w->m; i++) {
    double g = 0.0;
    for (int j = 0; j < w->ke.d; j++) {
      if (!(mask >> j & 1u) || !eb->dA[j]) continue;
      double v = eb->dA[j][sub[j]];
      for (int k = 0; k < w->ke.d; k++) if (k != j && eb->E[k]) v *= eb->E[k][sub[k]];
      g += v;
    }
    tr += g / w->pd[i];
    sgp_ski_sub_next(sub, w->ke.m, w->ke.d);
  }
  return 2.0 * eb->c * w->ke.scale * tr;
}

/* cv = Bk F V (m-by-t): the control variate's left factor (MARGINAL only). */
static int control_left(sgp_ctx *ctx, eig_work *w, const double *V, double *cv)
{
  const int64_t n = w->m * w->t;
  int code;
  if ((code = basis_apply(ctx, w, 'N', w->t, V, w->T2, w->T3))) return code;
  if ((code = sgp_ski_kron_eig_apply(ctx, &w->ke, w->eb.mg->B, 'N', w->t, w->T2, cv, w->T3)))
    return code;
  for (int64_t i = 0; i < n; i++) cv[i] *= w->eb.c;
  return SGP_OK;
}

/* The trace terms from the probe solves u_j (X) and v_j = P^{-1/2} xi_j (Z).
 * The lengthscales' samples 2 (B F u_j)'(Q D U v_j) take the control variate
 * c_j - E[c_j] off (MARGINAL): with u_j ~ v_j where M ~ P, and B ~ Bk, most
 * of their probe noise goes, and all of it where M = P and B = Bk (1-D, or
 * data on a tensor product of coordinates). */
static int trace_part(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_kernel *k,
                      uint64_t seed, eig_work *w, const double *quad,
                      sgp_ski_loglik_grad_result *res)
{
  const int64_t m = w->m, t = w->t, L = k->n_lengthscale;
  const double *U = w->X + NMEAN * m;
  double *V = w->Z + NMEAN * m, *sample = w->gamma; /* gamma: free after the solves */
  int code;
  for (int64_t j = 0; j < t; j++)
    for (int64_t i = 0; i < m; i++)
      V[i + j * m] = sgp_ski_probe_value(seed, j, i) / sqrt(w->pd[i]);
  for (int64_t j = 0; j < t; j++) sample[j] = (double)m - w->s2 * dot(m, U + j * m, V + j * m);
  finish_entry(w, sample, quad[L], (int)L, res);
  for (int64_t j = 0; j < t; j++) sample[j] = (double)(st->n - m) + (double)m - sample[j];
  finish_entry(w, sample, res->quad[L + 1], (int)L + 1, res);
  /* lengthscales: 2 (B F u_j)' (Q D U v_j), D of K_G^{1/2} in Q's basis */
  const int cv = w->eb.c > 0; /* MARGINAL */
  double *CV = w->P + NMEAN * m; /* the directions are free after the solves */
  if (cv && (code = control_left(ctx, w, V, CV))) return code;
  if ((code = basis_apply(ctx, w, 'N', t, U, w->T2, w->T3))) return code;
  if ((code = w->B->apply(w->B, sgp_cmat_of(w->T2, m, t), sgp_mat_of(w->T1, m, t), ctx)))
    return code;
  if ((code = sgp_ski_kron_eig_apply(ctx, &w->ke, w->eb.U, 'N', t, V, w->R, w->T3)))
    return code;
  memcpy(V, w->R, (size_t)(m * t) * sizeof(double));
  const unsigned all = (1u << st->grid.d) - 1u;
  for (int64_t p = 0; p < L; p++) {
    const unsigned mask = L == 1 ? all : 1u << p;
    if ((code = sgp_ski_kron_eig_dsqrt(ctx, &w->ke, mask, t, V, w->T2, w->T3))) return code;
    if ((code = sgp_ski_kron_eig_transform(ctx, &w->ke, 'N', t, w->T2, w->R, w->T3)))
      return code;
    const double mean_cv = cv ? control_trace(w, mask) : 0.0;
    for (int64_t j = 0; j < t; j++) {
      sample[j] = 2.0 * dot(m, w->T1 + j * m, w->R + j * m);
      if (cv) sample[j] += mean_cv - 2.0 * dot(m, CV + j * m, w->R + j * m);
    }
    finish_entry(w, sample, quad[p], (int)p, res);
  }
  return SGP_OK;
}

static int eig_setup(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_kernel *k,
                     const sgp_ski_loglik_opts *o, eig_work *w)
{
  const sgp_ski_marginals *mg = o->marginals;
  int code;
  if ((code = sgp_ski_kron_eig_make(ctx, k, &st->grid, &w->ke))) return code;
  if (o->eig_precond == SGP_SKI_EIG_PRECOND_MARGINAL && !mg) {
    if ((code = sgp_ski_marginals_make(ctx, st, &w->own))) return code;
    mg = &w->own;
  }
  return sgp_ski_eig_basis_make(ctx, st, &w->ke, mg, w->s2,
                                (sgp_ski_eig_precond)o->eig_precond, &w->eb, w->pd);
}

int sgp_ski_loglik_grad_eig(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_kernel *k,
                            double noise, const sgp_ski_kg_opts *kgo, int64_t probes,
                            uint64_t seed, const sgp_ski_loglik_opts *o, double *weights,
                            sgp_ski_loglik_grad_result *res)
{
  eig_work w;
  sgp_op B = {0};
  double quad[SGP_SKI_NTHETA_MAX];
  int code;
  memset(&w, 0, sizeof w);
  if ((code = sgp_ski_loglik_args(ctx, st, k, res))) return code;
  if ((code = sgp_ski_loglik_opts_check(ctx, o))) return code;
  if (probes < 1)
    return sgp_fail(ctx, SGP_EINVAL, "probes: must be at least 1 (got %lld)",
                    (long long)probes);
  if (!(noise > 0) || !isfinite(noise))
    return sgp_fail(ctx, SGP_EINVAL, "noise: must be a positive number (got %g)", noise);
  if (st->n < 1) return sgp_fail(ctx, SGP_EINVAL, "stats: hold no data points");
  if ((code = sgp_ski_stats_op(ctx, st, &B))) return code;
  res->ntheta = k->n_lengthscale + 2;
  res->value.converged = 1;
  w.m = st->m; w.t = probes; w.c = probes + NMEAN; w.s2 = noise; w.B = &B;
  w.K = o->slq_max_iter;
  if ((code = work_alloc(ctx, &w))) goto cleanup;
  if ((code = eig_setup(ctx, st, k, o, &w))) goto cleanup;
  if ((code = pcg_setup(ctx, st, seed, o, &w))) goto cleanup;
  if ((code = pcg_run(ctx, &w))) goto cleanup;
  if ((code = logdet_part(ctx, st, &w, w.T1, &res->value))) goto cleanup;
  if ((code = mean_part(ctx, st, &w, res))) goto cleanup;
  quad[res->ntheta - 1] = res->quad[res->ntheta - 1];
  if ((code = kernel_quad(ctx, st, k, kgo, &w, weights, quad))) goto cleanup;
  code = trace_part(ctx, st, k, seed, &w, quad, res);
cleanup:
  sgp_op_destroy(&B);
  work_free(&w);
  return code;
}
