/* valla_objective.c -- the minibatch alpha-objective l = -(N/n_b) sum_i e_i + KL
 * (spec §2.2-§2.5) with A = L L' through H = I + L'KL = R R' (never A^{-1}), and
 * its hand-derived gradients (§3.3, §3.4) for L, log sigma0, log noise and Z. */
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

static void work_free(obj_work *w)
{
  double **p = (double **)w;
  for (size_t k = 0; k < sizeof *w / sizeof(double *); k++) free(p[k]);
}

int valla_objective(sgp_ctx *ctx, const sgp_valla_fit_t *fit, sgp_cmat Xb, sgp_cmat yb,
                    double *value, valla_grad *grad, int64_t *clamps)
{
  return valla_objective_k(ctx, fit, Xb, NULL, yb, value, grad, clamps);
}

int valla_objective_k(sgp_ctx *ctx, const sgp_valla_fit_t *fit, sgp_cmat Xb,
                      const valla_kernels *pre, sgp_cmat yb, double *value, valla_grad *grad,
                      int64_t *clamps)
{
  const sgp_valla_net *net = &fit->net;
  const int64_t M = fit->M, C = fit->C, nb = pre ? pre->nb : Xb.rows, nr = nb * C;
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
  int st = SGP_OK;
  if (!pre) {
    st = valla_cache_build(ctx, net, Xb, NULL, &cB);
    if (!st) st = valla_cache_build(ctx, net, sgp_cmat_of(fit->Z, M, fit->D), fit->tags, &cZ);
    if (st) goto done;
  }
  w.KBZ = sgp_alloc(nr * M); w.KZZ = sgp_alloc(M * M); w.kd = sgp_alloc(nr);
  w.T1 = sgp_alloc(M * (nr > M ? nr : M)); w.T2 = sgp_alloc(M * M); w.S = sgp_alloc(M * M);
  w.R = sgp_alloc(M * M); w.Ri = sgp_calloc(M * M); w.Hi = sgp_alloc(M * M);
  w.V = sgp_alloc(M * nr); w.v = sgp_alloc(nr); w.gb = sgp_alloc(nr);
  if (!w.KBZ || !w.KZZ || !w.kd || !w.T1 || !w.T2 || !w.S || !w.R || !w.Ri || !w.Hi || !w.V ||
      !w.v || !w.gb) {
    st = sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the objective");
    goto done;
  }
  if (pre) {
    memcpy(w.KBZ, pre->K0BZ, (size_t)(nr * M) * sizeof(double));
    memcpy(w.KZZ, pre->K0ZZ, (size_t)(M * M) * sizeof(double));
    memcpy(w.kd, pre->kd0, (size_t)nr * sizeof(double));
  } else {
    if ((st = valla_ntk_cross(ctx, net, &cB, &cZ, fit->layers, w.KBZ, nr))) goto done;
    if ((st = valla_ntk_cross(ctx, net, &cZ, &cZ, fit->layers, w.KZZ, M))) goto done;
    valla_ntk_diag(ctx, net, &cB, fit->layers, w.kd);
  }
  const double *Gb = pre ? pre->G : cB.G;
  for (int64_t k = 0; k < nr * M; k++) w.KBZ[k] *= sc;
  for (int64_t k = 0; k < M * M; k++) w.KZZ[k] *= sc;
  for (int64_t k = 0; k < nr; k++) w.kd[k] *= sc;

  /* S = L'KL, H = I + S = R R' */
  const double *L = fit->L;
  if ((st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, w.KZZ, M, L, M, 0.0, w.T2, M))) goto done;
  if ((st = sgp_gemm(ctx, 'T', 'N', M, M, M, 1.0, L, M, w.T2, M, 0.0, w.S, M))) goto done;
  memcpy(w.R, w.S, (size_t)(M * M) * sizeof(double));
  for (int64_t i = 0; i < M; i++) w.R[i + M * i] += 1.0;
  if ((st = sgp_potrf(ctx, M, w.R, M))) goto done;
  for (int64_t i = 0; i < M; i++) w.Ri[i + M * i] = 1.0;
  if ((st = sgp_trsm(ctx, 'L', 'L', 'N', M, M, 1.0, w.R, M, w.Ri, M))) goto done;
  for (int64_t j = 0; j < M; j++) for (int64_t i = 0; i < j; i++) w.Ri[i + M * j] = 0.0;

  /* V = R^{-1} L' K_ZB; v_r = k_r - |V_r|^2 */
  if ((st = sgp_gemm(ctx, 'T', 'T', M, nr, M, 1.0, L, M, w.KBZ, nr, 0.0, w.V, M))) goto done;
  if ((st = sgp_trsm(ctx, 'L', 'L', 'N', M, nr, 1.0, w.R, M, w.V, M))) goto done;
  int64_t nclamp = 0;
  for (int64_t r = 0; r < nr; r++) {
    double q = w.kd[r];
    for (int64_t m = 0; m < M; m++) q -= w.V[m + M * r] * w.V[m + M * r];
    if (q < 0) { q = 0; nclamp++; }
    w.v[r] = q;
  }
  if (clamps) *clamps = nclamp;

  /* data term; gb_r = d l / d v_r */
  double esum = 0.0, dsum = 0.0;
  for (int64_t i = 0; i < nb; i++) {
    double gi[1], ds = 0.0;
    const double *g = Gb + i;
    double y = yb.data[i * (yb.rows == 1 ? yb.ld : 1)];
    if (gauss) { gi[0] = (g[0] - fit->y_mean) / fit->y_sd; y = (y - fit->y_mean) / fit->y_sd; g = gi; }
    esum += valla_lik_term(fit->likelihood, fit->alpha, C, g, gauss ? 1 : nb, w.v + i, nb, y, s,
                           w.gb + i, nb, &ds);
    dsum += ds;
  }
  for (int64_t r = 0; r < nr; r++) w.gb[r] *= -scale;
  double kl = -0.5 * (double)M;
  for (int64_t i = 0; i < M; i++) kl += log(w.R[i + M * i]);
  for (int64_t k = 0; k < M * M; k++) kl += 0.5 * w.Ri[k] * w.Ri[k];
  *value = -scale * esum + kl;
  if (!grad) goto done;

  /* Hi = H^{-1} = Ri' Ri; B = L Hi L' */
  w.B = sgp_alloc(M * M); w.Psi = sgp_alloc(M * M);
  w.KbarBZ = sgp_alloc(nr * M); w.KbarZZ = sgp_alloc(M * M);
  if (!w.B || !w.Psi || !w.KbarBZ || !w.KbarZZ) {
    st = sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the gradient");
    goto done;
  }
  if ((st = sgp_gemm(ctx, 'T', 'N', M, M, M, 1.0, w.Ri, M, w.Ri, M, 0.0, w.Hi, M))) goto done;
  if ((st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, L, M, w.Hi, M, 0.0, w.T2, M))) goto done;
  if ((st = sgp_gemm(ctx, 'N', 'T', M, M, M, 1.0, w.T2, M, L, M, 0.0, w.B, M))) goto done;
  /* Psi = K_ZB diag(gb) K_BZ; KbarBZ temporarily holds diag(gb) K_BZ */
  for (int64_t m = 0; m < M; m++)
    for (int64_t r = 0; r < nr; r++) w.KbarBZ[r + nr * m] = w.gb[r] * w.KBZ[r + nr * m];
  if ((st = sgp_gemm(ctx, 'T', 'N', M, M, nr, 1.0, w.KBZ, nr, w.KbarBZ, nr, 0.0, w.Psi, M))) goto done;
  /* dL = tril{[K L Hi S - 2 (I - K B) Psi L] Hi} */
  double *KL_ = w.T1, *X1 = w.T2;
  if ((st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, w.KZZ, M, L, M, 0.0, KL_, M))) goto done;
  if ((st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, KL_, M, w.Hi, M, 0.0, X1, M))) goto done;
  if ((st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, X1, M, w.S, M, 0.0, KL_, M))) goto done; /* K L Hi S */
  if ((st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, w.Psi, M, L, M, 0.0, X1, M))) goto done;  /* Psi L */
  {
    double *KB = sgp_alloc(M * M), *Y = sgp_alloc(M * M);
    if (!KB || !Y) { free(KB); free(Y); st = sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory"); goto done; }
    st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, w.KZZ, M, w.B, M, 0.0, KB, M);
    for (int64_t i = 0; !st && i < M; i++) KB[i + M * i] -= 1.0;          /* KB - I */
    if (!st) st = sgp_gemm(ctx, 'N', 'N', M, M, M, 2.0, KB, M, X1, M, 1.0, KL_, M); /* + 2 (KB - I) Psi L */
    if (!st) st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, KL_, M, w.Hi, M, 0.0, Y, M);
    if (!st)
      for (int64_t j = 0; j < M; j++)
        for (int64_t i = 0; i < M; i++) grad->dL[i + M * j] = i >= j ? Y[i + M * j] : 0.0;
    /* kernel adjoints: KbarBZ = -2 diag(gb) K_BZ B; KbarZZ = B Psi B + B K B / 2 */
    if (!st) st = sgp_gemm(ctx, 'N', 'N', nr, M, M, -2.0, w.KbarBZ, nr, w.B, M, 0.0, w.V, nr);
    if (!st) memcpy(w.KbarBZ, w.V, (size_t)(nr * M) * sizeof(double));
    if (!st) st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, w.Psi, M, w.B, M, 0.0, KB, M);
    for (int64_t k = 0; !st && k < M * M; k++) Y[k] = w.KZZ[k];
    if (!st) st = sgp_gemm(ctx, 'N', 'N', M, M, M, 0.5, Y, M, w.B, M, 1.0, KB, M); /* Psi B + K B / 2 */
    if (!st) st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, w.B, M, KB, M, 0.0, w.KbarZZ, M);
    free(KB); free(Y);
    if (st) goto done;
  }
  for (int64_t a = 0; a < M; a++) /* symmetrize rounding */
    for (int64_t b = 0; b < a; b++) {
      const double q = 0.5 * (w.KbarZZ[a + M * b] + w.KbarZZ[b + M * a]);
      w.KbarZZ[a + M * b] = w.KbarZZ[b + M * a] = q;
    }
  double dls0 = 0.0;
  for (int64_t r = 0; r < nr; r++) dls0 += w.gb[r] * w.kd[r];
  for (int64_t k = 0; k < nr * M; k++) dls0 += w.KbarBZ[k] * w.KBZ[k];
  for (int64_t k = 0; k < M * M; k++) dls0 += w.KbarZZ[k] * w.KZZ[k];
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
  work_free(&w);
  return st;
}
