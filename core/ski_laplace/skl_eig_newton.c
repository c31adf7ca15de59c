/* skl_eig_newton.c -- Newton's method for the Laplace mode in the whitened
 * coordinates v of the eigen path: Psi(v) = log p(y | mean + F v) - |v|^2 / 2,
 * gradient F'P'g - v, negative Hessian M = I + F'HF >= I. The step solves M
 * with the Jacobi preconditioner of the eigenbasis; -Hessian >= I makes
 * |v - v^| <= |gradient|, so |u - u^| <= sqrt(lambda_max(K)) |gradient| is the
 * mode bound. */
#include "ski_laplace/skl_eig.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The damped step along dv (F dv in fdv): the first t = 1, 1/2, ... whose Psi
 * is finite and not below psi0 (up to Psi's rounding). */
static int eig_line_search(const skl_problem *p, const skl_prior *pr, int64_t e_mr, skl_state *s,
                           const double *dv, const double *fdv, double psi0, int damping,
                           double *ka, double *t_out)
{
  const int64_t m = p->m, mr = e_mr;
  const double q0 = sgp_dot(mr, s->v, s->v), q1 = 2.0 * sgp_dot(mr, s->v, dv), q2 = sgp_dot(mr, dv, dv);
  const double slack = 1e-13 * (fabs(psi0) + q0 + (double)p->n);
  for (double t = 1.0; t >= 0x1p-40; t *= 0.5) {
    for (int64_t i = 0; i < m; i++) ka[i] = s->kappa[i] + t * fdv[i];
    const double psi = skl_lik_of(p, pr, ka, s) - 0.5 * (q0 + t * q1 + t * t * q2);
    if (isfinite(psi) && (!damping || psi >= psi0 - slack)) {
      for (int64_t i = 0; i < mr; i++) s->v[i] += t * dv[i];
      memcpy(s->kappa, ka, (size_t)m * sizeof(double));
      *t_out = t;
      return 1;
    }
  }
  skl_lik_of(p, pr, s->kappa, s);
  return 0;
}

int skl_newton_eig(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr, skl_eig *e,
                   const sgp_ski_laplace_opts *o, double deadline, skl_state *s)
{
  const int64_t m = p->m, n = p->n, mr = e->mr;
  /* scratch: the state's 6 m (gradient, step, F step, trial kappa, g on the grid) */
  double *gr = s->work, *dv = s->work + m, *fdv = s->work + 2 * m, *ka = s->work + 3 * m;
  double *gg = s->work + 4 * m;
  const double t0 = sgp_clock(), sl = sqrt(e->lmax);
  s->rows = 0; s->newton_steps = 0; s->cg_steps = 0; s->converged = 0; s->stop = "max_newton";
  int st = SGP_OK;
  /* The warm start v = F'alpha carries the last mode's representer weights into
   * this basis (F v = K alpha); kept only where it beats the prior mean. */
  memset(s->v, 0, (size_t)mr * sizeof(double));
  memset(s->kappa, 0, (size_t)m * sizeof(double));
  if (s->warm) {
    if ((st = skl_eig_Ft(ctx, e, 1, s->alpha, gr))) return st;
    if ((st = skl_eig_F(ctx, e, 1, gr, ka))) return st;
    const double psi_w = skl_lik_of(p, pr, ka, s) - 0.5 * sgp_dot(mr, gr, gr);
    if (psi_w >= skl_lik_of(p, pr, s->kappa, s)) {
      memcpy(s->v, gr, (size_t)mr * sizeof(double));
      memcpy(s->kappa, ka, (size_t)m * sizeof(double));
    }
  }
  s->warm = 1;
  for (int64_t it = 0;; it++) {
    s->logp = skl_lik_of(p, pr, s->kappa, s);
    s->psi = s->logp - 0.5 * sgp_dot(mr, s->v, s->v);
    if (!isfinite(s->psi)) { s->stop = "diverged"; break; }
    skl_scatter(p, NULL, n > 0 ? s->g : NULL, gg);
    if ((st = skl_eig_Ft(ctx, e, 1, gg, gr))) return st;
    for (int64_t i = 0; i < mr; i++) gr[i] -= s->v[i];
    const double gn = sqrt(sgp_dot(mr, gr, gr)), err = sl * gn;
    s->mode_error = err;
    if (it > 0 && err <= o->tol) { s->converged = 1; s->stop = "converged"; break; }
    if (it >= o->max_newton) break;
    if (o->time_limit > 0 && deadline > 0 && sgp_clock() > deadline) { s->stop = "time_limit"; break; }
    if ((st = skl_eig_curvature(ctx, p, e, s->w))) return st;
    /* the step's error is relative to the gradient, which vanishes at the mode */
    const double rtol = fmax(o->inner_rtol, fmin(0.1, gn));
    int conv = 0;
    double res = 0.0;
    if ((st = skl_eig_pcg(ctx, e, 1, gr, dv, rtol, o->max_iter, NULL, NULL, NULL, &conv,
                          &s->cg_steps, &res)))
      return st;
    if ((st = skl_eig_F(ctx, e, 1, dv, fdv))) return st;
    double t = 0.0;
    if (!eig_line_search(p, pr, mr, s, dv, fdv, s->psi, o->damping, ka, &t)) {
      s->stop = "diverged";
      skl_history_row(s, s->psi, err, 0.0, s->cg_steps, res, t0);
      break;
    }
    s->newton_steps++;
    skl_history_row(s, s->psi, err, t, s->cg_steps, res, t0);
    sgp_say(ctx, "ski_laplace: Newton step %lld, mode bound %.3g, step %.3g, CG steps %lld",
            (long long)s->newton_steps, err, t, (long long)s->cg_steps);
  }
  /* the representer weights at the mode: alpha = P'g (kappa = F v = K alpha there) */
  skl_scatter(p, NULL, n > 0 ? s->g : NULL, s->alpha);
  if (!st) st = skl_eig_curvature(ctx, p, e, s->w);
  return st;
}
