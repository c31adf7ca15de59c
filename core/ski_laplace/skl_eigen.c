/* skl_eigen.c -- ski_laplace's eigen path for separable kernels: the whitened
 * latent u = mean + F v with F = Q Lambda^1/2 (K = F F', Q the Kronecker
 * eigenvectors of the grid's Toeplitz factors), the operator M = I + F'HF (H
 * the curvature d on the observed cells, 0 elsewhere) and its Jacobi
 * preconditioner p = 1 + lambda o diag(Q'HQ), exact for a constant curvature
 * (docs/ski_laplace.md, "The eigen path"). M >= I, so its solves never see
 * the curvature's inverse. Eigenpairs whose eigenvalue is 0 (below the floor of
 * sgp_ski_kron_eig_make) leave F, so v has only the kept ones: M is the identity
 * on the rest, which adds nothing to the mode, log|M| or the variances. */
#include "ski_laplace/skl_eig.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int skl_eig_applies(const skl_problem *p, const sgp_kernel *k)
{
  return sgp_ski_kron_eig_fits(k, &p->grid, SGP_SKI_KRON_EIG_HARD_MAX);
}

void skl_eig_free(skl_eig *e)
{
  sgp_ski_kron_eig_free(&e->ke);
  for (int j = 0; j < SGP_SKI_MAX_D; j++) free(e->QQ[j]);
  free(e->lamh); free(e->lam); free(e->full); free(e->p); free(e->dfull); free(e->work); free(e->tmp);
  memset(e, 0, sizeof *e);
}

/* The kept eigenpairs of each dimension: the factor eigenvalues come ascending,
 * with those below the floor set to 0, so the kept ones are the last ranks[j]. */
static int keep_basis(sgp_ctx *ctx, skl_eig *e)
{
  const sgp_ski_kron_eig *ke = &e->ke;
  e->mr = 1;
  for (int j = 0; j < ke->d; j++) {
    const int64_t mj = ke->m[j];
    int64_t r = 1;
    if (ke->Q[j]) {
      r = 0;
      for (int64_t i = 0; i < mj; i++) r += ke->mu[j][i] > 0.0;
      if (r == 0) return sgp_fail(ctx, SGP_ENOTPD, "kernel: the grid kernel matrix is zero");
      e->Qr[j] = ke->Q[j] + (mj - r) * mj;
      if (!(e->QQ[j] = sgp_alloc(mj * r))) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
      for (int64_t i = 0; i < mj * r; i++) e->QQ[j][i] = e->Qr[j][i] * e->Qr[j][i];
    }
    e->rows[j] = mj;
    e->ranks[j] = r;
    e->mr *= r;
  }
  return SGP_OK;
}

/* lamh (mr) = (s prod_j mu_j)^1/2 over the kept eigenvalues, first dimension fastest. */
static void kept_sqrt_values(skl_eig *e)
{
  const sgp_ski_kron_eig *ke = &e->ke;
  int64_t sub[SGP_SKI_MAX_D] = {0};
  for (int64_t i = 0; i < e->mr; i++) {
    double v = ke->scale;
    int64_t full = 0, stride = 1;
    for (int j = 0; j < ke->d; j++) {
      const int64_t k = ke->m[j] - e->ranks[j] + sub[j];
      if (ke->mu[j]) v *= ke->mu[j][k];
      full += k * stride;
      stride *= ke->m[j];
    }
    e->full[i] = full;
    e->lam[i] = v;
    e->lamh[i] = sqrt(v);
    sgp_ski_sub_next(sub, e->ranks, ke->d);
  }
}

int skl_eig_make(sgp_ctx *ctx, const skl_problem *p, const sgp_kernel *k, int64_t cols, skl_eig *e)
{
  memset(e, 0, sizeof *e);
  const int64_t m = p->m;
  int st = sgp_ski_kron_eig_make(ctx, k, &p->grid, &e->ke);
  if (!st) st = keep_basis(ctx, e);
  if (st) return st;
  e->m = m;
  e->cols = cols;
  const int64_t mr = e->mr;
  e->lamh = sgp_alloc(mr); e->lam = sgp_alloc(mr); e->p = sgp_alloc(mr); e->dfull = sgp_calloc(m);
  e->work = sgp_alloc(m * cols); e->tmp = sgp_alloc(m * cols);
  e->full = malloc((size_t)mr * sizeof(int64_t));
  if (!e->lamh || !e->lam || !e->p || !e->dfull || !e->work || !e->tmp || !e->full)
    return sgp_fail(ctx, SGP_ENOMEM, "ski_laplace: out of memory for the eigen path (%lld cells)",
                    (long long)m);
  kept_sqrt_values(e);
  e->lmax = 0.0;
  for (int64_t i = 0; i < mr; i++) e->lmax = fmax(e->lmax, e->lam[i]);
  return SGP_OK;
}

static int rect(sgp_ctx *ctx, skl_eig *e, double *const *F, char trans, int64_t cols,
                const double *X, double *Y)
{
  return sgp_ski_kron_rect_apply(ctx, e->ke.d, e->rows, e->ranks, (const double *const *)F,
                                 trans, cols, X, Y, e->work);
}

int skl_eig_curvature(sgp_ctx *ctx, const skl_problem *p, skl_eig *e, const double *w)
{
  memset(e->dfull, 0, (size_t)e->m * sizeof(double));
  for (int64_t i = 0; i < p->n; i++) e->dfull[p->obs[i]] = fmax(w[i], 0.0);
  /* diag(Q'HQ) = (Q o Q)' d */
  int st = rect(ctx, e, e->QQ, 'T', 1, e->dfull, e->p);
  for (int64_t i = 0; !st && i < e->mr; i++) e->p[i] = 1.0 + e->lam[i] * fmax(e->p[i], 0.0);
  return st;
}

int skl_eig_F(sgp_ctx *ctx, skl_eig *e, int64_t cols, const double *X, double *Y)
{
  const int64_t mr = e->mr;
  for (int64_t c = 0; c < cols; c++)
    for (int64_t i = 0; i < mr; i++) e->tmp[i + c * mr] = e->lamh[i] * X[i + c * mr];
  return rect(ctx, e, (double *const *)e->Qr, 'N', cols, e->tmp, Y);
}

int skl_eig_Ft(sgp_ctx *ctx, skl_eig *e, int64_t cols, const double *X, double *Y)
{
  const int64_t mr = e->mr;
  int st = rect(ctx, e, (double *const *)e->Qr, 'T', cols, X, Y);
  for (int64_t c = 0; !st && c < cols; c++)
    for (int64_t i = 0; i < mr; i++) Y[i + c * mr] *= e->lamh[i];
  return st;
}

int skl_eig_M(sgp_ctx *ctx, skl_eig *e, int64_t cols, const double *X, double *Y, double *buf)
{
  const int64_t m = e->m;
  int st = skl_eig_F(ctx, e, cols, X, buf);
  for (int64_t c = 0; !st && c < cols; c++)
    for (int64_t i = 0; i < m; i++) buf[i + c * m] *= e->dfull[i];
  if (!st) st = skl_eig_Ft(ctx, e, cols, buf, Y);
  for (int64_t k = 0; !st && k < e->mr * cols; k++) Y[k] += X[k];
  return st;
}

int skl_eig_diag_cov(sgp_ctx *ctx, skl_eig *e, double *out)
{
  for (int64_t i = 0; i < e->mr; i++) e->tmp[i] = e->lam[i] / e->p[i];
  return rect(ctx, e, e->QQ, 'N', 1, e->tmp, out);
}

/* Preconditioned CG on M for `cols` right-hand sides (cols <= e->cols), X = 0
 * first; coefficients as skl_cg's (those of the preconditioned operator
 * p^-1/2 M p^-1/2). */
int skl_eig_pcg(sgp_ctx *ctx, skl_eig *e, int64_t cols, const double *Bm, double *X, double rtol,
                int64_t max_iter, double *ca, double *cb, int64_t *steps, int *all_conv,
                int64_t *total_steps, double *max_res)
{
  const int64_t m = e->mr;  /* the whitened coordinates; buf is on the grid */
  double *R = sgp_alloc(m * cols), *Z = sgp_alloc(m * cols), *P = sgp_alloc(m * cols);
  double *AP = sgp_alloc(m * cols), *buf = sgp_alloc(e->m * cols), *rz = sgp_alloc(cols);
  double *nb = sgp_alloc(cols);
  int *active = calloc((size_t)cols, sizeof(int));
  int st = !R || !Z || !P || !AP || !buf || !rz || !nb || !active
           ? sgp_fail(ctx, SGP_ENOMEM, "out of memory") : 0;
  int64_t live = 0;
  for (int64_t c = 0; !st && c < cols; c++) {
    double *r = R + c * m, *z = Z + c * m;
    memcpy(r, Bm + c * m, (size_t)m * sizeof(double));
    memset(X + c * m, 0, (size_t)m * sizeof(double));
    for (int64_t i = 0; i < m; i++) z[i] = r[i] / e->p[i];
    memcpy(P + c * m, z, (size_t)m * sizeof(double));
    rz[c] = sgp_dot(m, r, z);
    nb[c] = sqrt(sgp_dot(m, r, r));
    active[c] = nb[c] > 0.0;
    live += active[c];
    if (steps) steps[c] = 0;
  }
  for (int64_t it = 0; !st && live > 0 && it < max_iter; it++) {
    if ((st = sgp_poll_interrupt(ctx))) break;
    if ((st = skl_eig_M(ctx, e, cols, P, AP, buf))) break;
    for (int64_t c = 0; c < cols; c++) {
      if (!active[c]) continue;
      double *x = X + c * m, *r = R + c * m, *z = Z + c * m, *pp = P + c * m, *ap = AP + c * m;
      const double a = rz[c] / sgp_dot(m, pp, ap);
      for (int64_t i = 0; i < m; i++) { x[i] += a * pp[i]; r[i] -= a * ap[i]; z[i] = r[i] / e->p[i]; }
      const double rzn = sgp_dot(m, r, z), be = rzn / rz[c];
      if (ca) ca[it + c * max_iter] = a;
      if (cb) cb[it + c * max_iter] = be;
      rz[c] = rzn;
      if (steps) steps[c] = it + 1;
      if (total_steps) (*total_steps)++;
      if (sqrt(sgp_dot(m, r, r)) <= rtol * nb[c]) { active[c] = 0; live--; continue; }
      for (int64_t i = 0; i < m; i++) pp[i] = z[i] + be * pp[i];
    }
  }
  if (!st && all_conv) {  /* the true residuals decide */
    *all_conv = 1;
    if (max_res) *max_res = 0.0;
    if (!(st = skl_eig_M(ctx, e, cols, X, AP, buf)))
      for (int64_t c = 0; c < cols; c++) {
        double rr = 0.0;
        for (int64_t i = 0; i < m; i++) { const double d = Bm[i + c * m] - AP[i + c * m]; rr += d * d; }
        if (sqrt(rr) > 2.0 * rtol * nb[c]) *all_conv = 0;
        if (max_res && nb[c] > 0.0) *max_res = fmax(*max_res, sqrt(rr) / nb[c]);
      }
  }
  free(R); free(Z); free(P); free(AP); free(buf); free(rz); free(nb); free(active);
  return st;
}
