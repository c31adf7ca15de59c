/* laplace_train.c -- what summary and plot read of a gp_laplace fit given back
 * as plain data, computed once for both hosts from the likelihood's ops: the
 * log-likelihood at the mode f, the training accuracy of a classifier and the
 * data on the plot's scale. */
#include "laplace/lik_table.h"
#include "host/value_out.h"
#include "host/fit_data.h"

#include <string.h>

/* The likelihood of a checked fit (y, C, offset, noise, trials and the scalar
 * parameter as the fit holds them). */
static void lik_of(const sgp_value *fit, sgp_likelihood kind, int64_t n, int64_t C, sgp_lik *lik)
{
  const sgp_lik_ops *ops = sgp_lik_ops_of(kind);
  const sgp_value *off = sgp_fd_elt(fit, "offset"), *nv = sgp_fd_elt(fit, "noise");
  memset(lik, 0, sizeof *lik);
  lik->kind = kind;
  lik->n = n;
  lik->C = C;
  lik->y = sgp_fd_elt(fit, "y")->real;
  lik->noise_max = 1e300; /* the uncapped W^-1: only log p is read */
  lik->offset = off->type == SGP_VAL_REAL && off->len == n ? off->real : NULL;
  if (ops->has_noise) { lik->noise = nv->real; lik->n_noise = nv->len; }
  if (ops->takes_trials) {
    const sgp_value *tv = sgp_fd_elt(fit, "trials");
    lik->trials = tv->real;
    lik->n_trials = tv->len;
  }
  lik->par = NAN;
  if (ops->par_name) {
    const sgp_value *pv = sgp_fd_elt(fit, ops->par_name);
    if (pv->type == SGP_VAL_REAL && pv->len == 1) lik->par = pv->real[0];
  }
}

/* The share of points whose most probable class (multiclass: the largest
 * latent; else f > 0 for class 1) is the label. */
static double accuracy(const sgp_lik *lik, const double *f, int multiclass)
{
  const int64_t n = lik->n, C = lik->C;
  int64_t hit = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!multiclass) { hit += (f[i] > 0) == (lik->y[i] == 1.0); continue; }
    int64_t k = 0;
    for (int64_t c = 1; c < C; c++) if (f[i + c * n] > f[i + k * n]) k = c;
    hit += (double)(k + 1) == lik->y[i];
  }
  return (double)hit / (double)n;
}

int sgp_laplace_train_plain(sgp_ctx *ctx, const sgp_value *fit, sgp_value_arena *a,
                            sgp_value *out)
{
  int li = -1;
  const sgp_value *lv = sgp_fd_elt(fit, "likelihood"), *fv = sgp_fd_elt(fit, "f");
  for (int k = 0; lv->type == SGP_VAL_STRING && lv->len == 1 && sgp_lik_names[k]; k++)
    if (!strcmp(lv->str, sgp_lik_names[k])) li = k;
  const sgp_lik_ops *ops = sgp_lik_ops_of((sgp_likelihood)li);
  if (!ops || fv->type != SGP_VAL_REAL)
    return sgp_fail(ctx, SGP_EINVAL, "fit: must be a gp_laplace fit checked first");
  const int64_t n = sgp_fd_elt(fit, "y")->len, C = n ? fv->len / n : 1;
  sgp_lik lik;
  lik_of(fit, (sgp_likelihood)li, n, C, &lik);
  double ll, *nd = (double *)sgp_vo_alloc(a, (size_t)(n * C + 1) * sizeof(double));
  double *py = (double *)sgp_vo_alloc(a, (size_t)(n + 1) * sizeof(double));
  if (!nd || !py) return sgp_fail(ctx, SGP_ENOMEM, "gp_laplace: out of memory");
  ops->eval(&lik, fv->real, &ll, NULL, NULL, nd);
  /* the data on the plot's scale: y, y / exposure, y / trials; none for classes */
  const int classes = !strcmp(ops->plot_scale, "classes");
  for (int64_t i = 0; i < n; i++) {
    const double y = lik.y[i];
    py[i] = !strcmp(ops->plot_scale, "rate") ? y / exp(sgp_lik_offset(&lik, i))
            : !strcmp(ops->plot_scale, "probability") ? y / sgp_lik_trials(&lik, i) : y;
  }
  const char *names[] = {"loglik", "accuracy", "plot_scale", "plot_y"};
  const sgp_value v[] = {sgp_vo_scalar(a, ll),
                         ops->classes ? sgp_vo_scalar(a, accuracy(&lik, fv->real, ops->multiclass))
                                      : sgp_vo_null(),
                         sgp_vo_string(a, ops->plot_scale),
                         classes ? sgp_vo_null() : sgp_vo_real(a, n, py, 0, 0)};
  *out = sgp_vo_list(a, 4, names, v);
  if (sgp_value_arena_failed(a)) return sgp_fail(ctx, SGP_ENOMEM, "gp_laplace: out of memory");
  return SGP_OK;
}
