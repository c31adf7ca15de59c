/* valla_objective.c -- the minibatch alpha-objective l = -(N/n_b) sum_i e_i + KL
 * with A = L L' through H = I + L'KL = R R' (never A^{-1}), and
 * its hand-derived gradients for L, log sigma0, log noise and Z. */
#include "valla/valla.h"
#include "valla/valla_lik.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int valla_kl(sgp_ctx *ctx, int64_t M, const double *L, const double *K, double *kl)
{
  double *T = sgp_alloc(M * M), *H = sgp_alloc(M * M);
  int st = (!T || !H) ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the KL") : SGP_OK;
  if (!st) st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, K, M, L, M, 0.0, T, M);
  if (!st) st = sgp_gemm(ctx, 'T', 'N', M, M, M, 1.0, L, M, T, M, 0.0, H, M);
  if (!st) {
    for (int64_t i = 0; i < M; i++) H[i + M * i] += 1.0;
    st = sgp_potrf(ctx, M, H, M);
  }
  if (!st) { /* T = R^{-1} */
    memset(T, 0, (size_t)(M * M) * sizeof(double));
    for (int64_t i = 0; i < M; i++) T[i + M * i] = 1.0;
    st = sgp_trsm(ctx, 'L', 'L', 'N', M, M, 1.0, H, M, T, M);
  }
  if (!st) {
    double s = -0.5 * (double)M;
    for (int64_t i = 0; i < M; i++) s += log(H[i + M * i]);
    for (int64_t j = 0; j < M; j++) for (int64_t i = j; i < M; i++) s += 0.5 * T[i + M * j] * T[i + M * j];
    *kl = s;
  }
  free(T); free(H);
  return st;
}

/* Workspace of one objective evaluation. */
typedef struct {
  double *KBZ, *KZZ, *kd, *G;   /* scaled kernels; outputs (standardized) */
  double *T1, *T2, *S, *R, *Ri, *Hi, *B, *Psi, *V, *v, *gb, *KbarBZ, *KbarZZ;
} obj_work;

static void work_free(obj_work *w, valla_arena *a)
{
  double **p = (double **)w;
  for (size_t k = 0; k < sizeof *w / sizeof(double *); k++) valla_arena_free(a, p[k]);
}

int valla_objective(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat Xb, sgp_cmat yb,
                    double *value, valla_grad *grad, int64_t *clamps)
{
  return valla_objective_k(ctx, fit, Xb, NULL, yb, value, grad, clamps);
}

int valla_objective_k(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat Xb,
                      const valla_kernels *pre, sgp_cmat yb, double *value, valla_grad *grad,
                      int64_t *clamps)
{
  return valla_objective_a(ctx, fit, Xb, pre, yb, value, grad, clamps, NULL);
}

/* The batch's and the inducing points' kernels K_BZ (nr x M), K_ZZ and diag K_BB,
 * computed (or copied from pre) into w and scaled by sc. */
static int scaled_kernels(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat Xb,
                          const valla_kernels *pre, double sc, valla_arena *a, obj_work *w,
                          valla_cache *cB, valla_cache *cZ)
{
  const sgp_valla_net *net = &fit->net;
  const int64_t M = fit->M, nr = (pre ? pre->nb : Xb.rows) * fit->C;
  int st;
  if (!pre) {
    if ((st = valla_cache_build_a(ctx, net, Xb, NULL, a, cB))) return st;
    if ((st = valla_cache_build_a(ctx, net, sgp_cmat_of(fit->Z, M, fit->D), fit->tags, a, cZ)))
      return st;
  }
  w->KBZ = valla_arena_alloc(a, nr * M); w->KZZ = valla_arena_alloc(a, M * M);
  w->kd = valla_arena_alloc(a, nr); w->T1 = valla_arena_alloc(a, M * (nr > M ? nr : M));
  w->T2 = valla_arena_alloc(a, M * M); w->S = valla_arena_alloc(a, M * M);
  w->R = valla_arena_alloc(a, M * M); w->Ri = valla_arena_calloc(a, M * M);
  w->Hi = valla_arena_alloc(a, M * M); w->V = valla_arena_alloc(a, M * nr);
  w->v = valla_arena_alloc(a, nr); w->gb = valla_arena_alloc(a, nr);
  if (!w->KBZ || !w->KZZ || !w->kd || !w->T1 || !w->T2 || !w->S || !w->R || !w->Ri || !w->Hi ||
      !w->V || !w->v || !w->gb)
    return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the objective");
  if (pre) {
    memcpy(w->KBZ, pre->K0BZ, (size_t)(nr * M) * sizeof(double));
    memcpy(w->KZZ, pre->K0ZZ, (size_t)(M * M) * sizeof(double));
    memcpy(w->kd, pre->kd0, (size_t)nr * sizeof(double));
  } else {
    if ((st = valla_ntk_cross(ctx, net, cB, cZ, fit->layers, w->KBZ, nr))) return st;
    if ((st = valla_ntk_cross(ctx, net, cZ, cZ, fit->layers, w->KZZ, M))) return st;
    valla_ntk_diag(ctx, net, cB, fit->layers, w->kd);
  }
  for (int64_t k = 0; k < nr * M; k++) w->KBZ[k] *= sc;
  for (int64_t k = 0; k < M * M; k++) w->KZZ[k] *= sc;
  for (int64_t k = 0; k < nr; k++) w->kd[k] *= sc;
  return SGP_OK;
}

/* S = L'KL, H = I + S = R R' and Ri = R^{-1} (lower triangular). */
static int factor_h(sgp_ctx *ctx, int64_t M, const double *L, obj_work *w)
{
  int st;
  if ((st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, w->KZZ, M, L, M, 0.0, w->T2, M))) return st;
  if ((st = sgp_gemm(ctx, 'T', 'N', M, M, M, 1.0, L, M, w->T2, M, 0.0, w->S, M))) return st;
  memcpy(w->R, w->S, (size_t)(M * M) * sizeof(double));
  for (int64_t i = 0; i < M; i++) w->R[i + M * i] += 1.0;
  if ((st = sgp_potrf(ctx, M, w->R, M))) return st;
  for (int64_t i = 0; i < M; i++) w->Ri[i + M * i] = 1.0;
  if ((st = sgp_trsm(ctx, 'L', 'L', 'N', M, M, 1.0, w->R, M, w->Ri, M))) return st;
  for (int64_t j = 0; j < M; j++) for (int64_t i = 0; i < j; i++) w->Ri[i + M * j] = 0.0;
  return SGP_OK;
}

/* V = R^{-1} L' K_ZB; v_r = k_r - |V_r|^2, clamped at 0 (*nclamp counts those). */
static int latent_variances(sgp_ctx *ctx, int64_t M, int64_t nr, const double *L, obj_work *w,
                            int64_t *nclamp)
{
  int st;
  if ((st = sgp_gemm(ctx, 'T', 'T', M, nr, M, 1.0, L, M, w->KBZ, nr, 0.0, w->V, M))) return st;
  if ((st = sgp_trsm(ctx, 'L', 'L', 'N', M, nr, 1.0, w->R, M, w->V, M))) return st;
  *nclamp = 0;
  for (int64_t r = 0; r < nr; r++) {
    double q = w->kd[r];
    for (int64_t m = 0; m < M; m++) q -= w->V[m + M * r] * w->V[m + M * r];
    if (q < 0) { q = 0; (*nclamp)++; }
    w->v[r] = q;
  }
  return SGP_OK;
}

/* The data term sum_i e_i of the batch (outputs Gb, nb x C); gb_r = d e / d v_r
 * into w->gb, and *dsum = d/d log noise of the sum. */
static double expected_loglik(const sgp_valla_result *fit, const double *Gb, sgp_cmat yb,
                              int64_t nb, double s, obj_work *w, double *dsum)
{
  const int gauss = fit->likelihood == SGP_LIK_GAUSSIAN;
  double esum = 0.0;
  *dsum = 0.0;
  for (int64_t i = 0; i < nb; i++) {
    double gi[1], ds = 0.0;
    const double *g = Gb + i;
    double y = yb.data[i * (yb.rows == 1 ? yb.ld : 1)];
    if (gauss) { gi[0] = (g[0] - fit->y_mean) / fit->y_sd; y = (y - fit->y_mean) / fit->y_sd; g = gi; }
    esum += valla_lik_term(fit->likelihood, fit->alpha, fit->C, g, gauss ? 1 : nb, w->v + i, nb,
                           y, s, w->gb + i, nb, &ds);
    *dsum += ds;
  }
  return esum;
}

/* KL(q || p) = sum log R_ii + |R^{-1}|_F^2 / 2 - M / 2. */
static double kl_from_factor(int64_t M, const obj_work *w)
{
  double kl = -0.5 * (double)M;
  for (int64_t i = 0; i < M; i++) kl += log(w->R[i + M * i]);
  for (int64_t k = 0; k < M * M; k++) kl += 0.5 * w->Ri[k] * w->Ri[k];
  return kl;
}

/* Hi = H^{-1} = Ri' Ri; B = L Hi L'; Psi = K_ZB diag(gb) K_BZ, with KbarBZ
 * holding diag(gb) K_BZ on return. */
static int grad_b_psi(sgp_ctx *ctx, int64_t M, int64_t nr, const double *L, valla_arena *a,
                      obj_work *w)
{
  int st;
  w->B = valla_arena_alloc(a, M * M); w->Psi = valla_arena_alloc(a, M * M);
  w->KbarBZ = valla_arena_alloc(a, nr * M); w->KbarZZ = valla_arena_alloc(a, M * M);
  if (!w->B || !w->Psi || !w->KbarBZ || !w->KbarZZ)
    return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the gradient");
  if ((st = sgp_gemm(ctx, 'T', 'N', M, M, M, 1.0, w->Ri, M, w->Ri, M, 0.0, w->Hi, M))) return st;
  if ((st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, L, M, w->Hi, M, 0.0, w->T2, M))) return st;
  if ((st = sgp_gemm(ctx, 'N', 'T', M, M, M, 1.0, w->T2, M, L, M, 0.0, w->B, M))) return st;
  for (int64_t m = 0; m < M; m++)
    for (int64_t r = 0; r < nr; r++) w->KbarBZ[r + nr * m] = w->gb[r] * w->KBZ[r + nr * m];
  return sgp_gemm(ctx, 'T', 'N', M, M, nr, 1.0, w->KBZ, nr, w->KbarBZ, nr, 0.0, w->Psi, M);
}

/* dL = tril{[K L Hi S - 2 (I - K B) Psi L] Hi}, then the kernel adjoints
 * KbarBZ = -2 diag(gb) K_BZ B and KbarZZ = B Psi B + B K B / 2. */
static int grad_l_and_adjoints(sgp_ctx *ctx, int64_t M, int64_t nr, const double *L,
                               valla_arena *a, obj_work *w, double *dL)
{
  double *KL_ = w->T1, *X1 = w->T2;
  int st;
  if ((st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, w->KZZ, M, L, M, 0.0, KL_, M))) return st;
  if ((st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, KL_, M, w->Hi, M, 0.0, X1, M))) return st;
  if ((st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, X1, M, w->S, M, 0.0, KL_, M))) return st; /* K L Hi S */
  if ((st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, w->Psi, M, L, M, 0.0, X1, M))) return st;  /* Psi L */
  double *KB = valla_arena_alloc(a, M * M), *Y = valla_arena_alloc(a, M * M);
  if (!KB || !Y) {
    valla_arena_free(a, KB); valla_arena_free(a, Y);
    return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory");
  }
  st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, w->KZZ, M, w->B, M, 0.0, KB, M);
  for (int64_t i = 0; !st && i < M; i++) KB[i + M * i] -= 1.0;          /* KB - I */
  if (!st) st = sgp_gemm(ctx, 'N', 'N', M, M, M, 2.0, KB, M, X1, M, 1.0, KL_, M); /* + 2 (KB - I) Psi L */
  if (!st) st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, KL_, M, w->Hi, M, 0.0, Y, M);
  if (!st)
    for (int64_t j = 0; j < M; j++)
      for (int64_t i = 0; i < M; i++) dL[i + M * j] = i >= j ? Y[i + M * j] : 0.0;
  if (!st) st = sgp_gemm(ctx, 'N', 'N', nr, M, M, -2.0, w->KbarBZ, nr, w->B, M, 0.0, w->V, nr);
  if (!st) memcpy(w->KbarBZ, w->V, (size_t)(nr * M) * sizeof(double));
  if (!st) st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, w->Psi, M, w->B, M, 0.0, KB, M);
  for (int64_t k = 0; !st && k < M * M; k++) Y[k] = w->KZZ[k];
  if (!st) st = sgp_gemm(ctx, 'N', 'N', M, M, M, 0.5, Y, M, w->B, M, 1.0, KB, M); /* Psi B + K B / 2 */
  if (!st) st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, w->B, M, KB, M, 0.0, w->KbarZZ, M);
  valla_arena_free(a, KB); valla_arena_free(a, Y);
  return st;
}

/* d l / d log s0 = <Kbar, K> over all kernel blocks (the kernels are linear in
 * s0), after KbarZZ's rounding asymmetry is averaged away. */
static double grad_log_s0(int64_t M, int64_t nr, obj_work *w)
{
  for (int64_t a = 0; a < M; a++)
    for (int64_t b = 0; b < a; b++) {
      const double q = 0.5 * (w->KbarZZ[a + M * b] + w->KbarZZ[b + M * a]);
      w->KbarZZ[a + M * b] = w->KbarZZ[b + M * a] = q;
    }
  double dls0 = 0.0;
  for (int64_t r = 0; r < nr; r++) dls0 += w->gb[r] * w->kd[r];
  for (int64_t k = 0; k < nr * M; k++) dls0 += w->KbarBZ[k] * w->KBZ[k];
  for (int64_t k = 0; k < M * M; k++) dls0 += w->KbarZZ[k] * w->KZZ[k];
  return dls0;
}

int valla_objective_a(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat Xb,
                      const valla_kernels *pre, sgp_cmat yb, double *value, valla_grad *grad,
                      int64_t *clamps, valla_arena *a)
{
  const sgp_valla_net *net = &fit->net;
  const int64_t M = fit->M, nb = pre ? pre->nb : Xb.rows, nr = nb * fit->C;
  if (pre && grad && grad->dZ)
    return sgp_fail(ctx, SGP_EINVAL, "valla: precomputed kernels cannot give a Z gradient");
  const double s0 = exp(2.0 * fit->log_sigma0);
  const int gauss = fit->likelihood == SGP_LIK_GAUSSIAN;
  const double sc = gauss ? s0 / (fit->y_sd * fit->y_sd) : s0;
  const double s = gauss ? exp(fit->log_noise) : 0.0, scale = (double)fit->N / (double)nb;
  obj_work w;
  memset(&w, 0, sizeof w);
  valla_cache cB, cZ;
  memset(&cB, 0, sizeof cB);
  memset(&cZ, 0, sizeof cZ);
  int64_t nclamp = 0;
  double dsum = 0.0;
  int st = scaled_kernels(ctx, fit, Xb, pre, sc, a, &w, &cB, &cZ);
  if (!st) st = factor_h(ctx, M, fit->L, &w);
  if (!st) st = latent_variances(ctx, M, nr, fit->L, &w, &nclamp);
  if (st) goto done;
  if (clamps) *clamps = nclamp;
  const double esum = expected_loglik(fit, pre ? pre->G : cB.G, yb, nb, s, &w, &dsum);
  for (int64_t r = 0; r < nr; r++) w.gb[r] *= -scale; /* now d l / d v_r */
  *value = -scale * esum + kl_from_factor(M, &w);
  if (!grad) goto done;

  if ((st = grad_b_psi(ctx, M, nr, fit->L, a, &w))) goto done;
  if ((st = grad_l_and_adjoints(ctx, M, nr, fit->L, a, &w, grad->dL))) goto done;
  const double dls0 = grad_log_s0(M, nr, &w);
  grad->d_log_s0 = dls0;
  grad->d_log_sigma0 = 2.0 * dls0;
  grad->d_log_noise = gauss ? -scale * dsum : 0.0;
  if (grad->dZ) {
    memset(grad->dZ, 0, (size_t)(M * fit->D) * sizeof(double));
    for (int64_t k = 0; k < nr * M; k++) w.KbarBZ[k] *= sc;
    for (int64_t k = 0; k < M * M; k++) w.KbarZZ[k] *= sc;
    st = valla_ntk_adjoint_z(ctx, net, &cB, &cZ, fit->layers, w.KbarBZ, w.KbarZZ, grad->dZ);
  }
done:
  valla_cache_free(net, &cB);
  valla_cache_free(net, &cZ);
  work_free(&w, a);
  return st;
}
