/* skl_newton.c -- the prior's grid operator, the B-operator and its conjugate
 * gradients, and Newton's method for the Laplace mode in grid space
 * (docs/ski_laplace.md, "Newton in grid space"). Only K products and B = I +
 * sw K_OO sw appear: the curvature is never inverted, so cells with d = 0
 * (no exposure, saturated labels) are harmless. */
#include "ski_laplace/skl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int skl_apply_k(sgp_ctx *ctx, const sgp_op *K, int64_t m, int64_t b, const double *X, double *Y)
{
  return K->apply(K, (sgp_cmat){X, m, b, m}, (sgp_mat){Y, m, b, m}, ctx);
}

int skl_prior_make(sgp_ctx *ctx, const skl_problem *p, const sgp_kernel *k, double mean,
                   skl_prior *pr)
{
  memset(pr, 0, sizeof *pr);
  pr->kernel = *k;
  const int64_t nl = k->n_lengthscale > 0 ? k->n_lengthscale : 1;
  for (int64_t j = 0; j < nl && j < SGP_SKI_MAX_D; j++) pr->ls[j] = k->lengthscale[j];
  pr->kernel.lengthscale = pr->ls;
  pr->mean = mean;
  int st = sgp_ski_grid_op(ctx, &pr->kernel, &p->grid, NULL, &pr->K);
  if (st) return st;
  /* lambda_max(K) <= max row sum of |K| = max (K 1): the kernels are positive */
  double *one = sgp_alloc(p->m), *k1 = sgp_alloc(p->m);
  if (!one || !k1) st = sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  for (int64_t i = 0; !st && i < p->m; i++) one[i] = 1.0;
  if (!st) st = skl_apply_k(ctx, &pr->K, p->m, 1, one, k1);
  pr->lmax = 0.0;
  for (int64_t i = 0; !st && i < p->m; i++) pr->lmax = fmax(pr->lmax, k1[i]);
  free(one); free(k1);
  return st;
}

int skl_prior_of(sgp_ctx *ctx, const skl_problem *p, const sgp_kernel *base, const double *ls,
                 int64_t nl, double os, double mean, skl_prior *pr)
{
  sgp_kernel k = *base;
  k.lengthscale = ls;
  k.n_lengthscale = nl;
  k.outputscale = os;
  return skl_prior_make(ctx, p, &k, mean, pr);
}

void skl_prior_free(skl_prior *pr) { sgp_op_destroy(&pr->K); }

void skl_scatter(const skl_problem *p, const double *sw, const double *v, double *out)
{
  memset(out, 0, (size_t)p->m * sizeof(double));
  if (!p->widx) {
    for (int64_t i = 0; i < p->n; i++) out[p->obs[i]] = sw ? sw[i] * v[i] : v[i];
    return;
  }
  for (int64_t i = 0; i < p->n; i++) {
    const double vi = sw ? sw[i] * v[i] : v[i];
    for (int64_t t = 0; t < p->T; t++)
      if (p->widx[i * p->T + t] >= 0) out[p->widx[i * p->T + t]] += p->ww[i * p->T + t] * vi;
  }
}

/* Y = B X with the grid work blocks G, KG (m x b each) given. */
static int bop_apply_in(sgp_ctx *ctx, const skl_bop *B, int64_t b, const double *X, double *Y,
                        double *G, double *KG)
{
  const skl_problem *p = B->p;
  const int64_t m = p->m, n = p->n;
  for (int64_t j = 0; j < b; j++) skl_scatter(p, B->sw, X + j * n, G + j * m);
  const int st = skl_apply_k(ctx, B->K, m, b, G, KG);
  for (int64_t j = 0; !st && j < b; j++)
    for (int64_t i = 0; i < n; i++)
      Y[i + j * n] = X[i + j * n] + B->sw[i] * skl_at(p, KG + j * m, i);
  return st;
}

int skl_bop_apply(sgp_ctx *ctx, const skl_bop *B, int64_t b, const double *X, double *Y)
{
  const int64_t m = B->p->m;
  double *G = sgp_alloc(m * b), *KG = sgp_alloc(m * b);
  const int st = !G || !KG ? sgp_fail(ctx, SGP_ENOMEM, "out of memory")
                           : bop_apply_in(ctx, B, b, X, Y, G, KG);
  free(G); free(KG);
  return st;
}

/* b independent CG runs in lockstep (one blocked B product per step). */
int skl_cg(sgp_ctx *ctx, const skl_bop *B, int64_t b, const double *Z, double *X, double rtol,
           int64_t max_iter, double *ca, double *cb, int64_t *steps, int *all_conv,
           int64_t *total_steps)
{
  const int64_t n = B->p->n, m = B->p->m;
  double *R = sgp_alloc(n * b), *P = sgp_alloc(n * b), *AP = sgp_alloc(n * b);
  double *g2 = sgp_alloc(b), *nb = sgp_alloc(b);
  double *G = sgp_alloc(m * b), *KG = sgp_alloc(m * b);  /* the B products' grid blocks */
  int *active = calloc((size_t)b, sizeof(int));
  int st = !R || !P || !AP || !g2 || !nb || !G || !KG || !active
           ? sgp_fail(ctx, SGP_ENOMEM, "out of memory") : 0;
  int64_t live = 0;
  for (int64_t j = 0; !st && j < b; j++) {
    memcpy(R + j * n, Z + j * n, (size_t)n * sizeof(double));
    memcpy(P + j * n, Z + j * n, (size_t)n * sizeof(double));
    memset(X + j * n, 0, (size_t)n * sizeof(double));
    g2[j] = sgp_dot(n, R + j * n, R + j * n);
    nb[j] = sqrt(g2[j]);
    active[j] = nb[j] > 0.0;
    live += active[j];
    if (steps) steps[j] = 0;
  }
  for (int64_t it = 0; !st && live > 0 && it < max_iter; it++) {
    if ((st = sgp_poll_interrupt(ctx))) break;
    if ((st = bop_apply_in(ctx, B, b, P, AP, G, KG))) break;
    for (int64_t j = 0; j < b; j++) {
      if (!active[j]) continue;
      double *x = X + j * n, *r = R + j * n, *p = P + j * n, *ap = AP + j * n;
      const double a = g2[j] / sgp_dot(n, p, ap);
      for (int64_t i = 0; i < n; i++) { x[i] += a * p[i]; r[i] -= a * ap[i]; }
      const double g2n = sgp_dot(n, r, r), be = g2n / g2[j];
      if (ca) ca[it + j * max_iter] = a;
      if (cb) cb[it + j * max_iter] = be;
      g2[j] = g2n;
      if (steps) steps[j] = it + 1;
      if (total_steps) (*total_steps)++;
      if (sqrt(g2n) <= rtol * nb[j]) { active[j] = 0; live--; continue; }
      for (int64_t i = 0; i < n; i++) p[i] = r[i] + be * p[i];
    }
  }
  /* the true residuals decide convergence */
  if (!st && all_conv) {
    *all_conv = 1;
    if ((st = bop_apply_in(ctx, B, b, X, AP, G, KG)) == SGP_OK)
      for (int64_t j = 0; j < b; j++) {
        double rr = 0.0;
        for (int64_t i = 0; i < n; i++) { const double e = Z[i + j * n] - AP[i + j * n]; rr += e * e; }
        if (sqrt(rr) > 2.0 * rtol * nb[j]) *all_conv = 0;
      }
  }
  free(R); free(P); free(AP); free(g2); free(nb); free(G); free(KG); free(active);
  return st;
}

int skl_state_init(sgp_ctx *ctx, skl_state *s, int64_t m, int64_t n, int64_t cap)
{
  memset(s, 0, sizeof *s);
  const int64_t n1 = n > 0 ? n : 1;
  s->alpha = sgp_calloc(m); s->kappa = sgp_calloc(m); s->v = sgp_calloc(m);
  s->f = sgp_alloc(n1); s->g = sgp_alloc(n1); s->w = sgp_alloc(n1); s->d3 = sgp_alloc(n1);
  s->sw = sgp_alloc(n1);
  s->cap = cap;
  s->h_psi = sgp_alloc(cap); s->h_err = sgp_alloc(cap); s->h_step = sgp_alloc(cap);
  s->h_cg = sgp_alloc(cap); s->h_res = sgp_alloc(cap); s->h_sec = sgp_alloc(cap);
  s->work = sgp_alloc(6 * m + 3 * n1);
  if (!s->alpha || !s->kappa || !s->v || !s->f || !s->g || !s->w || !s->d3 || !s->sw || !s->h_psi ||
      !s->h_err || !s->h_step || !s->h_cg || !s->h_res || !s->h_sec || !s->work)
    return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  return SGP_OK;
}

void skl_state_free(skl_state *s)
{
  free(s->alpha); free(s->kappa); free(s->v); free(s->f); free(s->g); free(s->w); free(s->d3); free(s->sw);
  free(s->h_psi); free(s->h_err); free(s->h_step); free(s->h_cg); free(s->h_res); free(s->h_sec);
  free(s->work);
  memset(s, 0, sizeof *s);
}

double skl_lik_at(const skl_problem *p, skl_state *s)
{
  if (p->n == 0) return 0.0;
  const double lp = sgp_ev_lik_derivs(&p->lik, s->f, s->g, s->w, s->d3) + p->ll_shift;
  for (int64_t i = 0; i < p->n; i++) s->sw[i] = sqrt(fmax(s->w[i], 0.0));
  return lp;
}

/* f = mean + kappa at the observed cells, then the likelihood there. */
double skl_lik_of(const skl_problem *p, const skl_prior *pr, const double *kappa, skl_state *s)
{
  for (int64_t i = 0; i < p->n; i++) s->f[i] = pr->mean + skl_at(p, kappa, i);
  return skl_lik_at(p, s);
}

void skl_history_row(skl_state *s, double psi, double err, double t, int64_t cg, double res,
                        double t0)
{
  if (s->rows >= s->cap) return;
  const int64_t r = s->rows++;
  s->h_psi[r] = psi; s->h_err[r] = err; s->h_step[r] = t; s->h_cg[r] = (double)cg;
  s->h_res[r] = res; s->h_sec[r] = sgp_clock() - t0;
}

/* The direction Delta = r - sw' B^-1 sw K r of the Newton step (gradient form:
 * its solve error is relative to |K r|, which vanishes at the mode) and K Delta;
 * work holds K r on return too (for r'Kr). */
static int direction(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr, skl_state *s,
                     const double *r, double rtol, const sgp_ski_laplace_opts *o, double *kr,
                     double *dl, double *kdl, double *res)
{
  const int64_t m = p->m, n = p->n;
  double *z = s->work + 6 * m, *x = z + n, *bx = x + n, *sx = s->work + 5 * m;
  int st = skl_apply_k(ctx, &pr->K, m, 1, r, kr);
  double dmax = 0.0;
  for (int64_t i = 0; !st && i < n; i++) { z[i] = s->sw[i] * skl_at(p, kr, i); dmax = fmax(dmax, s->w[i]); }
  /* Delta = r - sw'x is a small difference of two large vectors: an error e in x
   * moves it by at most sqrt(dmax) |e| <= sqrt(dmax) |z - B x| (B >= I), while
   * |Delta| >= |r| / (1 + dmax lmax); the solve's residual keeps the first below
   * rtol (the forcing term) times the second. With W in the place of P the
   * curvature's norm is at most dmax ||W||^2 (wnorm2 = 1 for cells) */
  dmax *= p->wnorm2;
  const double zn = sqrt(sgp_dot(n, z, z)), rn = sqrt(sgp_dot(p->m, r, r));
  if (zn > 0.0)
    rtol = fmax(o->inner_rtol, fmin(rtol, rtol * rn / ((1.0 + dmax * pr->lmax) * sqrt(dmax) * zn)));
  const skl_bop B = {p, &pr->K, s->sw};
  int conv = 0;
  int64_t steps = 0;
  if (!st && n > 0) st = skl_cg(ctx, &B, 1, z, x, rtol, o->max_iter, NULL, NULL, &steps, &conv,
                               &s->cg_steps);
  if (!st && n > 0) {
    st = skl_bop_apply(ctx, &B, 1, x, bx);
    double rr = 0.0, zz = sgp_dot(n, z, z);
    for (int64_t i = 0; i < n; i++) rr += (z[i] - bx[i]) * (z[i] - bx[i]);
    *res = zz > 0 ? sqrt(rr / zz) : 0.0;
  } else *res = 0.0;
  if (st) return st;
  skl_scatter(p, s->sw, n > 0 ? x : NULL, sx);
  for (int64_t i = 0; i < m; i++) dl[i] = r[i] - sx[i];
  if ((st = skl_apply_k(ctx, &pr->K, m, 1, sx, kdl))) return st;
  for (int64_t i = 0; i < m; i++) kdl[i] = kr[i] - kdl[i];
  return SGP_OK;
}

/* The damped step: the first t = 1, 1/2, ... whose Psi is finite and not below
 * psi0 (any finite one without damping). */
static int line_search(const skl_problem *p, const skl_prior *pr, skl_state *s, const double *dl,
                       const double *kdl, double psi0, int damping, double *t_out)
{
  const int64_t m = p->m;
  double *ka = s->work + 4 * m;
  const double q0 = sgp_dot(m, s->alpha, s->kappa);
  const double q1 = sgp_dot(m, dl, s->kappa) + sgp_dot(m, s->alpha, kdl), q2 = sgp_dot(m, dl, kdl);
  /* near the mode a step gains less than Psi's rounding: such a step is not
   * worse, so the comparison allows for the rounding of the sums */
  const double slack = 1e-13 * (fabs(psi0) + fabs(q0) + (double)p->n);
  for (double t = 1.0; t >= 0x1p-40; t *= 0.5) {
    for (int64_t i = 0; i < m; i++) ka[i] = s->kappa[i] + t * kdl[i];
    const double lp = skl_lik_of(p, pr, ka, s), psi = lp - 0.5 * (q0 + t * q1 + t * t * q2);
    if (isfinite(psi) && (!damping || psi >= psi0 - slack)) {
      for (int64_t i = 0; i < m; i++) { s->alpha[i] += t * dl[i]; s->kappa[i] = ka[i]; }
      *t_out = t;
      return 1;
    }
  }
  skl_lik_of(p, pr, s->kappa, s); /* back to the iterate */
  return 0;
}

int skl_newton(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr,
               const sgp_ski_laplace_opts *o, double deadline, skl_state *s)
{
  const int64_t m = p->m, n = p->n;
  double *r = s->work, *kr = s->work + m, *dl = s->work + 2 * m, *kdl = s->work + 3 * m;
  const double t0 = sgp_clock();
  s->rows = 0; s->newton_steps = 0; s->cg_steps = 0; s->converged = 0; s->stop = "max_newton";
  if (s->warm) {  /* keep the warm start only where it beats the prior mean */
    const int st = skl_apply_k(ctx, &pr->K, m, 1, s->alpha, s->kappa); /* this prior's K */
    if (st) return st;
    const double psi_w = skl_lik_of(p, pr, s->kappa, s) - 0.5 * sgp_dot(m, s->alpha, s->kappa);
    memset(r, 0, (size_t)m * sizeof(double));
    if (!(psi_w >= skl_lik_of(p, pr, r, s))) {
      memset(s->alpha, 0, (size_t)m * sizeof(double));
      memset(s->kappa, 0, (size_t)m * sizeof(double));
    }
  }
  s->warm = 1;
  for (int64_t it = 0;; it++) {
    s->logp = skl_lik_of(p, pr, s->kappa, s);
    s->psi = s->logp - 0.5 * sgp_dot(m, s->alpha, s->kappa);
    if (!isfinite(s->psi)) { s->stop = "diverged"; break; }
    skl_scatter(p, NULL, n > 0 ? s->g : NULL, r);
    double rn = 0.0, bn = 0.0;
    for (int64_t i = 0; i < m; i++) { r[i] -= s->alpha[i]; rn += r[i] * r[i]; }
    for (int64_t i = 0; i < n; i++) {
      const double b = s->w[i] * skl_at(p, s->kappa, i) + s->g[i];
      bn += b * b;
    }
    rn = sqrt(rn);
    /* mode bound: |u - u^| <= min(lmax |r|, sqrt(lmax r'Kr)) (Psi is strongly
     * concave with -Hessian >= K^-1); r'Kr comes with the next direction */
    double err = pr->lmax * rn;
    if (it > 0 && err <= o->tol) { s->mode_error = err; s->converged = 1; s->stop = "converged"; break; }
    if (it >= o->max_newton) { s->mode_error = err; break; }
    if (o->time_limit > 0 && deadline > 0 && sgp_clock() > deadline) {
      s->mode_error = err; s->stop = "time_limit"; break;
    }
    const double rtol = fmin(0.1, fmax(o->inner_rtol, bn > 0 ? rn / sqrt(bn) : 0.0));
    double res = 0.0;
    int st = direction(ctx, p, pr, s, r, rtol, o, kr, dl, kdl, &res);
    if (st) return st;
    err = fmin(err, sqrt(fmax(pr->lmax * sgp_dot(m, r, kr), 0.0)));
    s->mode_error = err;
    if (it > 0 && err <= o->tol) { s->converged = 1; s->stop = "converged"; break; }
    double t = 0.0;
    if (!line_search(p, pr, s, dl, kdl, s->psi, o->damping, &t)) {
      s->stop = "diverged";
      skl_history_row(s, s->psi, err, 0.0, s->cg_steps, res, t0);
      break;
    }
    s->newton_steps++;
    skl_history_row(s, s->psi, err, t, s->cg_steps, res, t0);
    sgp_say(ctx, "ski_laplace: Newton step %lld, mode bound %.3g, step %.3g, CG steps %lld",
            (long long)s->newton_steps, err, t, (long long)s->cg_steps);
  }
  return SGP_OK;
}
