/* evidence_mode.c -- the Laplace mode for the exact evidence: damped Newton on
 * Psi(a) = -1/2 a'K a + log p(y | m + K a) in the stable B form of R&W Alg. 3.1
 * (diagonal W) and Alg. 3.3 (softmax), warm-started from the previous
 * evaluation's mode and run to full accuracy (the evidence and its gradient assume
 * grad Psi = 0). K and R come through sgp_ev_ops: dense factors (exact) or the
 * matrix-free operator with CG solves (evidence_stochastic.c). */
#include "laplace/evidence.h"
#include "laplace/lik_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MODE_MAX_STEPS 200

/* log p summed and its gradient g (the fit's sgp_lik_eval), with W (diagonal: n,
 * and the third derivative d3) or pi (softmax: n x C) at f, uncapped. */
double sgp_ev_lik_derivs(const sgp_lik *lik, const double *f, double *g, double *w, double *d3)
{
  double lp;
  sgp_lik_eval(lik, f, &lp, g, NULL, w); /* w: scratch for the capped W^-1 */
  sgp_lik_ops_of(lik->kind)->curvature(lik, f, w, d3);
  return lp;
}

/* Psi at (a, f = m + K a); leaves w, g, d3 at f. */
static double psi_at(const sgp_lik *lik, const double *m, const double *a, const double *f,
                     sgp_ev_ws *ws, double *logp)
{
  const int64_t nc = ws->n * ws->C;
  double q = 0.0;
  for (int64_t k = 0; k < nc; k++) q += a[k] * (f[k] - m[k]);
  *logp = sgp_ev_lik_derivs(lik, f, ws->g, ws->w, ws->d3);
  return -0.5 * q + *logp;
}

/* The Newton step da = (I + W K)^-1 (W (f - m) + g) - a of R&W Alg. 3.1 in its
 * gradient form: with r = g - a (grad Psi in f, zero at the mode) and
 * R (I + K W) = W, da = r - R K r. A solve's error is then relative to |K r|,
 * which vanishes at the mode (an iterative R converges instead of stalling at
 * its tolerance times |f|). kda = K da. */
static int newton_direction(sgp_ctx *ctx, const sgp_ev_ops *ops, sgp_ev_ws *ws)
{
  const int64_t nc = ws->n * ws->C;
  for (int64_t k = 0; k < nc; k++) ws->b[k] = ws->g[k] - ws->a[k];
  int st = ops->apply_k(ctx, ops->data, ws->b, ws->kb);
  if (!st && ops->apply_rk) { /* K da = K b - K R K b: no pass over K for it */
    if ((st = ops->apply_rk(ctx, ops->data, ws->kb, ws->da, ws->kda))) return st;
    for (int64_t k = 0; k < nc; k++) {
      ws->da[k] = ws->b[k] - ws->da[k];
      ws->kda[k] = ws->kb[k] - ws->kda[k];
    }
    return SGP_OK;
  }
  if (!st) st = ops->apply_r(ctx, ops->data, ws->kb, ws->da);
  if (st) return st;
  for (int64_t k = 0; k < nc; k++) ws->da[k] = ws->b[k] - ws->da[k];
  return ops->apply_k(ctx, ops->data, ws->da, ws->kda);
}

/* The start: one full Newton step from the previous evaluation's mode f (the
 * latent values move far less than a = K^-1 (f - m) when the kernel changes, so
 * this lands near the new mode), a = b - R K b with b = W (f - m) + g, kept when
 * it beats the prior mean (a = 0). */
static int warm_step(sgp_ctx *ctx, const sgp_ev_ops *ops, const sgp_lik *lik, const double *m,
                     sgp_ev_ws *ws)
{
  const int64_t nc = ws->n * ws->C;
  double *pi = sgp_alloc(ws->C);
  if (!pi) return sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory");
  sgp_ev_lik_derivs(lik, ws->f, ws->g, ws->w, ws->d3);
  for (int64_t k = 0; k < nc; k++) ws->kb[k] = ws->f[k] - m[k];
  sgp_lik_w_apply(lik, ws->f, 1, ws->kb, nc, ws->b, nc, pi);
  free(pi);
  for (int64_t k = 0; k < nc; k++) ws->b[k] += ws->g[k];
  int st = ops->factorize(ctx, ops->data, ws->w);
  if (!st) st = ops->apply_k(ctx, ops->data, ws->b, ws->kb);
  if (!st && ops->apply_rk) { /* K a = K b - K R K b */
    st = ops->apply_rk(ctx, ops->data, ws->kb, ws->da, ws->kda);
    for (int64_t k = 0; !st && k < nc; k++) {
      ws->at[k] = ws->b[k] - ws->da[k];
      ws->ft[k] = ws->kb[k] - ws->kda[k] + m[k];
    }
    return st;
  }
  if (!st) st = ops->apply_r(ctx, ops->data, ws->kb, ws->da);
  for (int64_t k = 0; !st && k < nc; k++) ws->at[k] = ws->b[k] - ws->da[k];
  if (!st) st = ops->apply_k(ctx, ops->data, ws->at, ws->ft);
  for (int64_t k = 0; !st && k < nc; k++) ws->ft[k] += m[k];
  return st;
}

/* *dstep: the warm step's largest move in f relative to 1 + max|f - m| (its
 * factorization is then that many steps old), INFINITY from the prior mean. */
static int start(sgp_ctx *ctx, const sgp_ev_ops *ops, const sgp_lik *lik, const double *m,
                 sgp_ev_ws *ws, double *psi, double *dstep)
{
  const int64_t nc = ws->n * ws->C;
  double lp;
  *dstep = INFINITY;
  memset(ws->at, 0, (size_t)nc * sizeof(double));
  const double psi0 = psi_at(lik, m, ws->at, m, ws, &lp);
  if (ws->warm) {
    const int st = warm_step(ctx, ops, lik, m, ws);
    if (st == SGP_EINTERRUPT || st == SGP_ENOMEM) return st;
    if (!st && isfinite(*psi = psi_at(lik, m, ws->at, ws->ft, ws, &lp)) && !(*psi < psi0)) {
      double dmax = 0.0, fmax = 0.0;
      for (int64_t k = 0; k < nc; k++) {
        if (fabs(ws->ft[k] - ws->f[k]) > dmax) dmax = fabs(ws->ft[k] - ws->f[k]);
        if (fabs(ws->ft[k] - m[k]) > fmax) fmax = fabs(ws->ft[k] - m[k]);
      }
      *dstep = dmax / (1.0 + fmax);
      memcpy(ws->a, ws->at, (size_t)nc * sizeof(double));
      memcpy(ws->f, ws->ft, (size_t)nc * sizeof(double));
      return SGP_OK;
    }
  }
  memset(ws->a, 0, (size_t)nc * sizeof(double));
  memcpy(ws->f, m, (size_t)nc * sizeof(double));
  *psi = psi0;
  return SGP_OK;
}

/* Largest step along da that does not lower Psi (halving from the full step);
 * accepts it into a and f. Returns the latent step size taken. */
static double line_search(const sgp_lik *lik, const double *m, sgp_ev_ws *ws, double *psi)
{
  const int64_t nc = ws->n * ws->C;
  for (double t = 1.0; t > 1e-12; t *= 0.5) {
    for (int64_t k = 0; k < nc; k++) {
      ws->at[k] = ws->a[k] + t * ws->da[k];
      ws->ft[k] = ws->f[k] + t * ws->kda[k];
    }
    double lp;
    const double p = psi_at(lik, m, ws->at, ws->ft, ws, &lp);
    if (isfinite(p) && p >= *psi - 1e-14 * fabs(*psi)) {
      memcpy(ws->a, ws->at, (size_t)nc * sizeof(double));
      memcpy(ws->f, ws->ft, (size_t)nc * sizeof(double));
      *psi = p;
      return t;
    }
  }
  return 0.0;
}

int sgp_ev_mode(sgp_ctx *ctx, const sgp_ev_ops *ops, const sgp_lik *lik, const double *m,
                sgp_ev_ws *ws, double *logp)
{
  const int64_t nc = ws->n * ws->C;
  double psi, dwarm;
  int st = start(ctx, ops, lik, m, ws, &psi, &dwarm);
  if (st) return st;
  if (!isfinite(psi))
    return sgp_fail(ctx, SGP_ENOTPD, "evidence: the log-likelihood is not finite at the prior mean");
  /* a small warm step leaves its factorization (at the last mode) for chord steps */
  const double ct = ops->chord_tol;
  int step, chord = dwarm <= ct;
  double dprev = INFINITY;
  for (step = 0; step < MODE_MAX_STEPS; step++) {
    *logp = sgp_ev_lik_derivs(lik, ws->f, ws->g, ws->w, ws->d3);
    if (!chord && (st = ops->factorize(ctx, ops->data, ws->w))) return st;
    if ((st = sgp_poll_interrupt(ctx))) return st;
    if ((st = newton_direction(ctx, ops, ws))) return st;
    double dmax = 0.0, fmax = 0.0;
    for (int64_t k = 0; k < nc; k++) {
      if (fabs(ws->kda[k]) > dmax) dmax = fabs(ws->kda[k]);
      if (fabs(ws->f[k] - m[k]) > fmax) fmax = fabs(ws->f[k] - m[k]);
    }
    /* a chord step that did not contract enough is redone with a fresh factor */
    if (chord && !(dmax <= SGP_EV_CHORD_RATE * dprev)) { chord = 0; step--; continue; }
    if (dmax <= SGP_EV_MODE_STEP_TOL * (1.0 + fmax)) {
      /* take this last step too: the evidence is then off by its square only */
      for (int64_t k = 0; k < nc; k++) { ws->a[k] += ws->da[k]; ws->f[k] += ws->kda[k]; }
      psi_at(lik, m, ws->a, ws->f, ws, logp); /* logp, w, g, d3 at f */
      if ((st = ops->factorize(ctx, ops->data, ws->w))) return st;
      ws->warm = 1;
      return SGP_OK;
    }
    const double t = line_search(lik, m, ws, &psi);
    if (t == 0.0) {
      if (!chord) break;
      chord = 0; /* the frozen factor's direction failed: refactorize */
      continue;
    }
    chord = t == 1.0 && dmax <= ct * (1.0 + fmax);
    dprev = dmax;
  }
  ws->warm = 0;
  return sgp_fail(ctx, SGP_ENOTPD, "evidence: the Laplace mode was not found to full accuracy "
                  "(%s after %d Newton steps)", step < MODE_MAX_STEPS
                  ? "no step along the Newton direction raised Psi" : "the step limit", step);
}
