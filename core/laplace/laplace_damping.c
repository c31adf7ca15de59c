/* laplace_damping.c -- gp_laplace's Newton step made safe: the bound on the
 * distance to the mode that stops the loop and sets the next solve's forcing
 * term, the step along the line (damping) and the globalized step over the
 * last actions of a truncated solve (laplace_subspace.c). */
#define _POSIX_C_SOURCE 200809L
#include "laplace/laplace_run.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* lambda_max(K) <= the largest row sum of K_x (kernels are >= 0): one K product,
 * made once (R->kx_rowsum); before it, n s (|k| <= s). */
static int kx_rowsum(sgp_ctx *ctx, run_t *R, int compute, double *lam)
{
  const int64_t n = R->it.n;
  const double s = R->o->kernel.outputscale;
  if (R->kx_rowsum == 0 && compute) {
    double *ones = R->scratch, *rows = R->t;
    for (int64_t i = 0; i < n; i++) ones[i] = 1.0;
    int st = R->op->apply(R->op, sgp_cmat_of(ones, n, 1), sgp_mat_of(rows, n, 1), ctx);
    if (st) return st;
    R->kprod++;
    double mx = s;
    for (int64_t i = 0; i < n; i++) if (rows[i] > mx) mx = rows[i];
    R->kx_rowsum = mx;
  }
  *lam = R->kx_rowsum > 0 ? R->kx_rowsum : (double)n * s;
  return SGP_OK;
}

/* Bound on max_n |f_n - f_mode| at f (f - m = K v, given as kv). -Hess Psi =
 * K^{-1} + W(f) >= K^{-1} everywhere (log-concave likelihoods): Psi is strongly
 * concave in the K^{-1} norm, so with g = grad Psi = grad l - v
 *   ||f - f_mode||_2^2 <= lambda_max(K) ||f - f_mode||_{K^-1}^2 <= lambda_max(K) g'K g
 * and ||f - f_mode||_2 <= ||g||_2 / (1/lambda_max(K) + min W) (the W part holds
 * near f; diagonal W). The first needs a K product (when kprod and the cheap
 * bounds fail); the second none. Softmax: the likelihood ignores per-point
 * constants, and K^{-1} commutes with the centring P, so Psi splits into the
 * centred part (bounded as above with P g: on the sums v is rounding amplified
 * by K^{-1}) and the sums, where Psi = -1/2 (f - m)'K^{-1}(f - m) peaks at
 * (I - P)(f - m) = 0: their error is known exactly, ||(I - P) K v||, and adds
 * in squares (a sum left there is a fixed point of the W^+ iteration: the
 * centred gradient alone never sees it). Sets R->forcing for the next solve. */
int sgp_laplace_mode_bound(sgp_ctx *ctx, run_t *R, const double *grad, const double *v,
                           const double *kv, const double *nd, int kprod, double *out)
{
  const int64_t n = R->it.n, NC = R->it.NC, C = R->it.C;
  const double s = R->o->kernel.outputscale, tol = R->tol;
  const int softmax = sgp_lik_multiclass(R->lik->kind);
  double *g = R->s, g2 = 0.0;
  if (!(tol > 0.0)) kprod = 0; /* nothing to verify: no product for it */
  for (int64_t q = 0; q < NC; q++) g[q] = grad[q] - v[q];
  if (softmax) sgp_laplace_center_classes(n, C, g);
  for (int64_t q = 0; q < NC; q++) g2 += g[q] * g[q];
  const double gn = sqrt(g2);
  double ndmax = 0.0, ndmin = INFINITY;
  for (int64_t q = 0; q < NC && !softmax; q++) {
    if (nd[q] > ndmax) ndmax = nd[q];
    if (nd[q] < ndmin) ndmin = nd[q];
  }
  const double wmin = ndmax > 0.0 ? 1.0 / ndmax : 0.0, wmax = softmax ? 1.0 : 1.0 / ndmin;
  double lam;
  int st;
  /* row sums once the gradient is small enough for them to decide */
  const int decide = tol > 0.0 && (gn / (1.0 / s + wmin) <= tol || (kprod && gn * s <= tol));
  if ((st = kx_rowsum(ctx, R, decide && gn / (1.0 / (n * s) + wmin) > tol, &lam))) return st;
  double bound = gn / (1.0 / lam + wmin);
  if (kprod && bound > tol && isfinite(bound)) {
    if ((st = kx_rowsum(ctx, R, 1, &lam))) return st;
    if ((st = R->op->apply(R->op, sgp_cmat_of(g, n, C), sgp_mat_of(R->t, n, C), ctx))) return st;
    R->kprod++;
    const double gkg = sgp_dot(NC, g, R->t), bk = sqrt(lam * (gkg > 0.0 ? gkg : 0.0));
    if (bk < bound) bound = bk;
  }
  if (softmax) { /* the sums of f - m, exactly */
    double e2 = 0.0;
    for (int64_t i = 0; i < n; i++) {
      double mu = 0.0;
      for (int64_t c = 0; c < C; c++) mu += kv[i + c * n];
      e2 += (double)C * (mu / (double)C) * (mu / (double)C);
    }
    bound = sqrt(bound * bound + e2);
  }
  *out = isfinite(bound) ? bound : INFINITY;
  /* inexact Newton (with damping): the next solve's residual r leaves grad Psi
   * ~ W r at the new iterate, so ||r|| <= 0.1 ||grad Psi|| / max W keeps the
   * convergence going below what the fixed inner tolerances allow (softmax:
   * W <= 1) */
  R->forcing = R->o->damping && isfinite(gn) && wmax > 0.0 ? 0.1 * gn / wmax : 0.0;
  return SGP_OK;
}

/* O8 damping: f(t) = f_i + t (f_{i+1} - f_i), v(t) likewise, for the
 * first t = 1, 1/2, ..., 2^-40 (each try is O(NC); exp-type links can need t far below
 * 2^-10 far from the mode) with finite Psi(f(t)) >= Psi(f_i); t = 0 (no
 * step; two in a row end the run as stalled) when none is. g = f_i - m; v, Kv
 * (= K v) are replaced by v(t), K v(t). */
void sgp_laplace_damped_step(const sgp_lik *lik, int64_t NC, const double *m, const double *g,
                             const double *vprev, double psi, double *v, double *Kv, double *ftry,
                             double *ndtry)
{
  /* Psi is a sum of NC terms: differences below its rounding are ties */
  const double slack = 4.0 * (double)NC * DBL_EPSILON * (fabs(psi) + 1.0);
  double t = 1.0;
  for (int k = 0; k <= 40; k++, t *= 0.5) {
    double llt, quad = 0.0;
    for (int64_t q = 0; q < NC; q++) {
      const double gq = g[q] + t * (Kv[q] - g[q]);
      ftry[q] = gq + m[q];
      quad += (vprev[q] + t * (v[q] - vprev[q])) * gq;
    }
    sgp_lik_eval(lik, ftry, &llt, NULL, NULL, ndtry);
    const double psit = llt - 0.5 * quad;
    if (isfinite(psit) && psit >= psi - slack) break;
    if (k == 40) { t = 0.0; break; } /* not an ascent direction: no step */
  }
  if (t < 1.0)
    for (int64_t q = 0; q < NC; q++) {
      Kv[q] = g[q] + t * (Kv[q] - g[q]);
      v[q] = vprev[q] + t * (v[q] - vprev[q]);
    }
}

/* The globalized step of a truncated solve (laplace_subspace.c) over this step's
 * actions (the last of the buffer, at most SUBSPACE_ACTIONS: laplace_run.h),
 * v_prev and the solver's v; g = K v_prev. */

int sgp_laplace_damped_subspace(sgp_ctx *ctx, run_t *R, const double *m, const double *g,
                                const double *vprev, double psi, double *v, double *Kv)
{
  sgp_itergp *it = &R->it;
  const int64_t NC = it->NC, B = it->B;
  const int64_t kb = B < R->sub_k ? B : R->sub_k, k = kb + 2, l0 = B - kb;
  /* U = S[:, l0..B+1], K U = T[:, l0..B+1]: the buffers' spare columns B, B+1
   * (SGP_ITERGP_SPARE) take v_prev and v, so the basis is not copied */
  double *U = it->S + l0 * NC, *KU = it->T + l0 * NC;
  if (it->unit) /* S = P_I may be implied by idx only: write it */
    for (int64_t l = 0; l < kb; l++) {
      memset(U + l * NC, 0, (size_t)NC * sizeof(double));
      U[l * NC + it->idx[l0 + l]] = 1.0;
    }
  memcpy(U + kb * NC, vprev, (size_t)NC * sizeof(double));
  memcpy(KU + kb * NC, g, (size_t)NC * sizeof(double));
  memcpy(U + (kb + 1) * NC, v, (size_t)NC * sizeof(double));
  memcpy(KU + (kb + 1) * NC, Kv, (size_t)NC * sizeof(double));
  int iters = 0, took_solver = 0;
  const int st = sgp_laplace_subspace_step(ctx, R->lik, m, k, U, KU, kb, kb + 1, v, Kv, &iters,
                                           &took_solver);
  if (!st && took_solver < 0) /* no ascent found in the basis: backtrack along the step */
    sgp_laplace_damped_step(R->lik, NC, m, g, vprev, psi, v, Kv, R->nv.ftry, R->nv.ndtry);
  return st;
}
