/* laplace_predict.c -- latent predictive of gp_laplace at test inputs (standardized
 * as the fit's, laplace_scale.c):
 * mean m + K(X*, X) v (m the constant prior mean), variance k(x*, x*) - ||K(x*, X) Q||^2 (incl. computational
 * uncertainty), and the response. */
#include "laplace/lik_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sgp_laplace_predict(sgp_ctx *ctx, const sgp_laplace_result *fit, sgp_cmat Xs,
                        sgp_cmat offset_s, sgp_mat mean, sgp_mat var, sgp_mat resp_mean,
                        sgp_mat resp_var)
{
  int64_t unresolved = 0;
  return sgp_laplace_predict_count(ctx, fit, Xs, offset_s, mean, var, resp_mean, resp_var,
                                   &unresolved);
}

int sgp_laplace_predict_count(sgp_ctx *ctx, const sgp_laplace_result *fit, sgp_cmat Xs,
                              sgp_cmat offset_s, sgp_mat mean, sgp_mat var, sgp_mat resp_mean,
                              sgp_mat resp_var, int64_t *unresolved)
{
  int st;
  double *A = NULL, *mu = NULL;
  if (!fit) return sgp_fail(ctx, SGP_EINVAL, "fit: must not be NULL");
  const int64_t n = fit->n, C = fit->C, ns = Xs.rows, r = fit->r;
  if ((st = sgp_check_finite(ctx, "xtest", Xs))) return st;
  if (Xs.cols != fit->d)
    return sgp_fail(ctx, SGP_EDIM, "xtest: has %lld columns; the fit has %lld",
                    (long long)Xs.cols, (long long)fit->d);
  if (!mean.data || mean.rows != ns || mean.cols != C)
    return sgp_fail(ctx, SGP_EDIM, "mean: needs %lld x %lld", (long long)ns, (long long)C);
  if (var.data && (var.rows != ns || var.cols != C))
    return sgp_fail(ctx, SGP_EDIM, "var: needs %lld x %lld", (long long)ns, (long long)C);
  if (resp_mean.data && (resp_mean.rows != ns || resp_mean.cols != C))
    return sgp_fail(ctx, SGP_EDIM, "prob: needs %lld x %lld", (long long)ns, (long long)C);
  if (resp_var.data && (resp_var.rows != ns || resp_var.cols != C))
    return sgp_fail(ctx, SGP_EDIM, "resp_var: needs %lld x %lld", (long long)ns, (long long)C);
  if (offset_s.data && (offset_s.rows != ns || offset_s.cols != 1))
    return sgp_fail(ctx, SGP_EDIM, "offset: needs %lld x 1 at the test inputs", (long long)ns);
  if (offset_s.data && (st = sgp_check_finite(ctx, "offset", offset_s))) return st;
  /* the inputs the kernel saw: the fit's and the new ones standardized alike */
  double *Zf = NULL, *Zs = NULL;
  if ((st = sgp_laplace_standardize(ctx, sgp_cmat_of(fit->X, n, fit->d), fit->centre, fit->scale,
                                    &Zf)) ||
      (st = sgp_laplace_standardize(ctx, Xs, fit->centre, fit->scale, &Zs))) {
    free(Zf);
    return st;
  }
  const sgp_cmat Xf = sgp_cmat_of(Zf ? Zf : fit->X, n, fit->d);
  if (Zs) Xs = sgp_cmat_of(Zs, ns, fit->d);
  const int need_var = var.data || resp_mean.data || resp_var.data;
  const int64_t nr = need_var ? r : 0;
  mu = sgp_alloc(ns * C + 2 * C); /* and one point's response */
  if (!mu) { st = sgp_fail(ctx, SGP_ENOMEM, "out of memory"); goto cleanup; }
  memset(mu, 0, (size_t)(ns * C) * sizeof(double));
  if (nr == 0) {
    if ((st = sgp_kernel_apply_named(ctx, &fit->kernel, Xs, "xtest", Xf, "x", sgp_cmat_of(fit->weights, n, C),
                               mean, 0)))
      goto cleanup;
  } else {
    /* one pass over K(X*, X) for the weights and the root: K* [v, Q] */
    double *V = sgp_alloc(n * C * (1 + nr));
    A = sgp_alloc(ns * C * (1 + nr));
    if (!V || !A) { free(V); st = sgp_fail(ctx, SGP_ENOMEM, "out of memory"); goto cleanup; }
    memcpy(V, fit->weights, (size_t)(n * C) * sizeof(double));
    memcpy(V + n * C, fit->root, (size_t)(n * C * nr) * sizeof(double));
    st = sgp_kernel_apply_named(ctx, &fit->kernel, Xs, "xtest", Xf, "x", sgp_cmat_of(V, n, C * (1 + nr)),
                          sgp_mat_of(A, ns, C * (1 + nr)), 0);
    free(V);
    if (st) goto cleanup;
    for (int64_t c = 0; c < C; c++)
      for (int64_t i = 0; i < ns; i++) mean.data[i + c * mean.ld] = A[i + c * ns];
  }
  if (fit->hyper.mean) /* the constant prior mean */
    for (int64_t c = 0; c < C; c++)
      for (int64_t i = 0; i < ns; i++)
        mean.data[i + c * mean.ld] += fit->hyper.mean[fit->hyper.n_mean == 1 ? 0 : c];
  if (need_var) {
    /* mu holds the variances */
    for (int64_t q = 0; q < ns * C; q++) mu[q] = fit->kernel.outputscale;
    for (int64_t l = 0; l < nr; l++)
      for (int64_t c = 0; c < C; c++) {
        const double *a = A + (c + C * (l + 1)) * ns;
        for (int64_t i = 0; i < ns; i++) mu[i + c * ns] -= a[i] * a[i];
      }
    /* s - |K(x*, X) Q|^2 sums nr + 1 terms of total size 2 s - mu */
    const double s2 = fit->kernel.outputscale;
    for (int64_t q = 0; q < ns * C; q++)
      mu[q] = sgp_variance_resolved(mu[q], 2.0 * s2 - mu[q], nr, unresolved);
    if (var.data)
      for (int64_t c = 0; c < C; c++)
        for (int64_t i = 0; i < ns; i++) var.data[i + c * var.ld] = mu[i + c * ns];
  }
  if (resp_mean.data || resp_var.data) {
    const sgp_lik_ops *ops = sgp_lik_ops_of(fit->likelihood);
    double *pm = mu + ns * C, *pv = pm + C; /* one point's response */
    for (int64_t i = 0; i < ns; i++) {
      ops->response(fit, C, mean.data + i, mean.ld, mu + i, ns,
                    offset_s.data ? offset_s.data[i] : 0.0, pm, pv);
      for (int64_t c = 0; c < C; c++) {
        if (resp_mean.data) resp_mean.data[i + c * resp_mean.ld] = pm[c];
        if (resp_var.data) resp_var.data[i + c * resp_var.ld] = pv[c];
      }
    }
  }
  st = sgp_laplace_check_pred_finite(ctx, offset_s.data != NULL, mean, var, resp_mean, resp_var);
cleanup:
  free(A);
  free(mu);
  free(Zf);
  free(Zs);
  return st;
}
