/* evidence.c -- the exact Laplace evidence and its gradient
 * (Rasmussen and Williams, "Gaussian Processes for Machine Learning", 2006,
 * sections 3.4 and 5.5.1). At the mode f, a = K^-1 (f - m):
 *   log q = -1/2 a'(f - m) + log p(y | f) - 1/2 log |B|,
 * and for a kernel coordinate with C_j = I_C x dK/dtheta_j
 *   d log q = 1/2 a'C_j a - 1/2 tr(R C_j) + u'C_j a,   u = (I + W K)^-1 s2,
 * where s2 = d(-1/2 log|B|)/df (+1/2 diag(Sigma) d3 for a diagonal W), so every
 * kernel coordinate is sum_ik G_ik dK_ik with one weight matrix
 *   G = sum_c (1/2 a_c a_c' + sym(u_c a_c')) - 1/2 Q,   Q = sum_c R_cc,
 * contracted in one pass (sgp_kernel_grad_dense; log alpha too). The mean:
 * 1'(a_c + u_c). The likelihood's parameter rho (docs/gp_laplace.md): at fixed f,
 * log p moves by dl, its gradient by dg and W by dw; the mode moves by
 * df = Sigma dg, so d log q = 1'dl - 1/2 diag(Sigma)'dw + (K u)'dg. */
#include "laplace/evidence.h"
#include "kernels/kernels.h"
#include "laplace/lik_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sgp_ev_ws_init(sgp_ctx *ctx, sgp_ev_ws *ws, int64_t n, int64_t C, int dense)
{
  const int64_t nc = n * C, nn = dense ? n * n : 0;
  const int soft = C > 1;
  memset(ws, 0, sizeof *ws);
  ws->n = n; ws->C = C;
  sgp_ev_factor *fac = &ws->fac;
  fac->n = n; fac->C = C; fac->softmax = soft;
  ws->K = dense ? sgp_alloc(nn) : NULL;
  double **v[] = {&ws->f, &ws->a, &ws->w, &ws->g, &ws->d3, &ws->b, &ws->kb, &ws->da, &ws->kda,
                  &ws->ft, &ws->at};
  int ok = !dense || ws->K != NULL;
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) ok &= (*v[i] = sgp_calloc(nc)) != NULL;
  ok &= (fac->sw = sgp_alloc(n)) != NULL;
  if (dense && soft) {
    ok &= (fac->V = sgp_alloc(C * nn)) != NULL && (fac->E = sgp_alloc(C * nn)) != NULL;
    ok &= (fac->M = sgp_alloc(nn)) != NULL;
  } else if (dense) {
    ok &= (fac->L = sgp_alloc(nn)) != NULL;
  }
  if (ok) return SGP_OK;
  sgp_ev_ws_free(ws);
  return sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory for n = %lld", (long long)n);
}

void sgp_ev_ws_free(sgp_ev_ws *ws)
{
  double *v[] = {ws->K, ws->f, ws->a, ws->w, ws->g, ws->d3, ws->b, ws->kb, ws->da, ws->kda,
                 ws->ft, ws->at};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) free(v[i]);
  sgp_ev_factor_free(&ws->fac);
  memset(ws, 0, sizeof *ws);
}

/* s2 = d(-1/2 log|B|)/df from the covariance blocks S. Softmax, per point with
 * Sigma_i = S and pi: -1/2 tr(S dW_i/df_c) = -1/2 pi_c (S_cc - sum_a pi_a S_aa
 * - 2 (S pi)_c + 2 pi'S pi). */
static void implicit_s2(const sgp_ev_ws *ws, const double *S, double *s2)
{
  const int64_t n = ws->n, C = ws->C;
  if (C == 1) { for (int64_t i = 0; i < n; i++) s2[i] = 0.5 * S[i] * ws->d3[i]; return; }
  for (int64_t i = 0; i < n; i++) {
    const double *pi = ws->w;
    double tr = 0.0, quad = 0.0;
    for (int64_t c = 0; c < C; c++) {
      double sp = 0.0;
      for (int64_t c2 = 0; c2 < C; c2++) sp += S[i + n * (c + C * c2)] * pi[i + c2 * n];
      tr += pi[i + c * n] * S[i + n * (c + C * c)];
      quad += pi[i + c * n] * sp;
      s2[i + c * n] = sp; /* (S pi)_c for now */
    }
    for (int64_t c = 0; c < C; c++)
      s2[i + c * n] = -0.5 * pi[i + c * n] *
                      (S[i + n * (c + C * c)] - tr - 2.0 * s2[i + c * n] + 2.0 * quad);
  }
}

/* d log q / d log par (diagonal W): the explicit term, the log-determinant's
 * through W at fixed f, and the mode's move Sigma dg against s2, which is
 * s2' Sigma dg = (K u)'dg with u = (I + W K)^-1 s2. sig: diag(Sigma). */
static int par_grad(sgp_ctx *ctx, const sgp_ev_problem *p, const sgp_ev_ws *ws, const double *sig,
                    const double *u, double *out)
{
  const int64_t n = ws->n;
  double *dl = sgp_alloc(4 * n), *dg = dl + n, *dw = dg + n, *ku = dw + n;
  if (!dl) return sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory");
  sgp_lik_ops_of(p->lik.kind)->par_derivs(&p->lik, ws->f, dl, dg, dw);
  const int st = sgp_gemm(ctx, 'N', 'N', n, 1, n, 1.0, ws->K, n, u, n, 0.0, ku, n);
  double g = 0.0;
  for (int64_t i = 0; !st && i < n; i++) g += dl[i] - 0.5 * sig[i] * dw[i] + ku[i] * dg[i];
  *out = g;
  free(dl);
  return st;
}

/* The gradient at the mode (ws->fac factorized there). */
static int evidence_grad(sgp_ctx *ctx, const sgp_ev_problem *p, sgp_ev_ws *ws, double *grad)
{
  const int64_t n = ws->n, C = ws->C, nc = n * C;
  const sgp_ev_layout *l = &p->layout;
  double *G = sgp_alloc(n * n), *S = sgp_alloc(n * C * C);
  double *s2 = ws->b, *u = ws->kb, *ks2 = ws->ft;
  int st;
  if (!G || !S) { st = sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory"); goto done; }
  if ((st = sgp_ev_cov_parts(ctx, &ws->fac, ws->K, G, S))) goto done;
  implicit_s2(ws, S, s2);
  if ((st = sgp_gemm(ctx, 'N', 'N', n, C, n, 1.0, ws->K, n, s2, n, 0.0, ks2, n))) goto done;
  if ((st = sgp_ev_apply_r(ctx, &ws->fac, ks2, u))) goto done;
  for (int64_t k = 0; k < nc; k++) u[k] = s2[k] - u[k];
  double trq = 0.0;
  for (int64_t i = 0; i < n; i++) trq += G[i + i * n];
  for (int64_t j = 0; j < n; j++)       /* G = ... - 1/2 Q, lower triangle */
    for (int64_t i = j; i < n; i++) {
      double s = 0.0;
      for (int64_t c = 0; c < C; c++) {
        const double *a = ws->a + c * n, *uc = u + c * n;
        s += 0.5 * a[i] * a[j] + 0.5 * (uc[i] * a[j] + a[i] * uc[j]);
      }
      G[i + j * n] = s - 0.5 * G[i + j * n];
    }
  if ((st = sgp_kernel_grad_dense(ctx, &p->kernel, p->X, ws->K, G, n, grad,
                                  l->has_alpha ? grad + sgp_ev_alpha_at(l) : NULL)))
    goto done;
  double *gm = grad + l->n_ls + 1;
  for (int64_t c = 0; c < l->n_mean; c++) gm[c] = 0.0;
  for (int64_t c = 0; c < C; c++)
    for (int64_t i = 0; i < n; i++)
      gm[l->n_mean == 1 ? 0 : c] += ws->a[i + c * n] + u[i + c * n];
  if (l->has_noise) { /* d/dlog s2 = s2 (1/2 a'a - 1/2 tr R), R = (K + s2 I)^-1 */
    const double s2n = p->lik.noise[0];
    grad[sgp_ev_noise_at(l)] = s2n * (0.5 * sgp_dot(n, ws->a, ws->a) - 0.5 * trq);
  }
  if (l->has_par) {
    if (C != 1) { st = sgp_fail(ctx, SGP_EINVAL, "evidence: a learned likelihood parameter "
                                "needs a diagonal W"); goto done; }
    st = par_grad(ctx, p, ws, S, u, grad + sgp_ev_par_at(l));
  }
done:
  free(G); free(S);
  return st;
}

static int dense_apply_k(sgp_ctx *ctx, void *data, const double *v, double *out)
{
  const sgp_ev_ws *ws = (const sgp_ev_ws *)data;
  return sgp_gemm(ctx, 'N', 'N', ws->n, ws->C, ws->n, 1.0, ws->K, ws->n, v, ws->n, 0.0, out,
                  ws->n);
}

static int dense_factorize(sgp_ctx *ctx, void *data, const double *w)
{
  sgp_ev_ws *ws = (sgp_ev_ws *)data;
  return sgp_ev_factorize(ctx, &ws->fac, ws->K, w);
}

static int dense_apply_r(sgp_ctx *ctx, void *data, const double *z, double *out)
{
  return sgp_ev_apply_r(ctx, &((const sgp_ev_ws *)data)->fac, z, out);
}

int sgp_evidence(sgp_ctx *ctx, const sgp_ev_problem *p, sgp_ev_ws *ws, double *loglik,
                 double *grad)
{
  const int64_t n = ws->n, C = ws->C, nc = n * C;
  int st = sgp_kernel_matrix(ctx, &p->kernel, p->X, p->X, sgp_mat_of(ws->K, n, n));
  if (st) return st;
  double *m = sgp_alloc(nc), logp;
  if (!m) return sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory");
  for (int64_t c = 0; c < C; c++)
    for (int64_t i = 0; i < n; i++) m[i + c * n] = p->mean[p->layout.n_mean == 1 ? 0 : c];
  const sgp_ev_ops ops = {dense_apply_k, dense_factorize, dense_apply_r, NULL, ws, 0.1};
  st = sgp_ev_mode(ctx, &ops, &p->lik, m, ws, &logp);
  if (!st) {
    double q = 0.0;
    for (int64_t k = 0; k < nc; k++) q += ws->a[k] * (ws->f[k] - m[k]);
    *loglik = -0.5 * q + logp - ws->fac.half_logdet;
    if (!isfinite(*loglik))
      st = sgp_fail(ctx, SGP_ENOTPD, "evidence: not finite at these hyperparameters");
  }
  free(m);
  if (!st && grad) st = evidence_grad(ctx, p, ws, grad);
  return st;
}
