/* laplace_scale.c -- gp_laplace's input scaling (option scale): one isotropic
 * lengthscale cannot serve columns whose units differ by orders of magnitude, so
 * the kernel sees each column standardized (centre: its mean, scale: its sd)
 * where the lengthscale is learned or defaulted. A lengthscale the user gives is
 * on the inputs' own scale: its columns are centred only, which a stationary
 * kernel (every kernel of the table) does not see but for rounding. The fit keeps
 * centre and scale; predict applies them to the fit's inputs and new ones
 * alike, and the fit reports lengthscales on the inputs' own scale. */
#include "laplace/laplace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column j's mean (corrected by the mean of the residuals: a constant column
 * gets its value back) and sd (denominator n - 1, as R's sd and Octave's std;
 * 1 for a column whose values are all equal, or n = 1). */
static int column_moments(sgp_cmat X, int64_t j, double *centre, double *scale)
{
  const int64_t n = X.rows;
  const double *x = X.data + j * X.ld;
  double s = 0.0, r = 0.0, ss = 0.0;
  int constant = 1;
  for (int64_t i = 0; i < n; i++) {
    s += x[i];
    constant = constant && x[i] == x[0];
  }
  double m = s / (double)n;
  for (int64_t i = 0; i < n; i++) r += x[i] - m;
  m += r / (double)n;
  for (int64_t i = 0; i < n; i++) ss += (x[i] - m) * (x[i] - m);
  *centre = constant ? x[0] : m;
  *scale = constant || n < 2 ? 1.0 : sqrt(ss / (double)(n - 1));
  if (!(*scale > 0.0) || !isfinite(*scale)) *scale = 1.0;
  return constant;
}

int sgp_laplace_scale_setup(sgp_ctx *ctx, sgp_cmat X, const sgp_laplace_opts *o,
                            sgp_laplace_result *fit)
{
  const int64_t d = X.cols;
  fit->centre = sgp_alloc(d);
  fit->scale = sgp_alloc(d);
  if (!fit->centre || !fit->scale) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  fit->scaled = o->scale && !o->kernel.lengthscale;
  int64_t n_const = 0;
  for (int64_t j = 0; j < d; j++) {
    fit->centre[j] = 0.0;
    fit->scale[j] = 1.0;
    if (!o->scale) continue;
    double s;
    n_const += column_moments(X, j, fit->centre + j, &s);
    if (fit->scaled) fit->scale[j] = s;
  }
  char *note = fit->scale_note;
  const size_t size = sizeof fit->scale_note;
  if (!o->scale)
    snprintf(note, size, "as given (scale = FALSE)");
  else if (!fit->scaled)
    snprintf(note, size, "centred only: the lengthscale is given, on the inputs' own scale");
  else
    snprintf(note, size, "standardized (centre: mean, scale: sd of each column%s)",
             n_const ? "; a constant column keeps scale 1" : "");
  return SGP_OK;
}

void sgp_laplace_scale_note_lengthscale(sgp_laplace_result *fit)
{
  if (!fit->scaled) return;
  const size_t len = strlen(fit->scale_note), size = sizeof fit->scale_note - len;
  const char *how = fit->hyper.requested & SGP_LEARN_LENGTHSCALE ? "learned" : "(not learned)";
  if (fit->kernel.n_lengthscale == 1 && fit->d > 1)
    snprintf(fit->scale_note + len, size, "; the lengthscale %.4g %s on them is shown per "
             "column on the inputs' own scale (times each sd)", fit->kernel.lengthscale[0], how);
  else
    snprintf(fit->scale_note + len, size, "; the lengthscale%s %s on them %s shown on the "
             "inputs' own scale (times the sd)", fit->kernel.n_lengthscale > 1 ? "s" : "", how,
             fit->kernel.n_lengthscale > 1 ? "are" : "is");
}

int sgp_laplace_standardize(sgp_ctx *ctx, sgp_cmat X, const double *centre, const double *scale,
                            double **out)
{
  const int64_t n = X.rows, d = X.cols;
  *out = NULL;
  int identity = 1;
  for (int64_t j = 0; centre && j < d; j++) identity = identity && centre[j] == 0.0 && scale[j] == 1.0;
  if (identity) return SGP_OK;
  double *Z = sgp_alloc(n * d > 0 ? n * d : 1);
  if (!Z) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  for (int64_t j = 0; j < d; j++)
    for (int64_t i = 0; i < n; i++) Z[i + j * n] = (X.data[i + j * X.ld] - centre[j]) / scale[j];
  *out = Z;
  return SGP_OK;
}

void sgp_laplace_lengthscale_original(const double *model, int64_t n_model, const double *scale,
                                      int scaled, int64_t d, double *out, int64_t *n_out)
{
  const int64_t nk = scaled && d > 1 ? d : n_model;
  for (int64_t j = 0; j < nk; j++)
    out[j] = model[n_model == 1 ? 0 : j] * (scale ? scale[nk == 1 ? 0 : j] : 1.0);
  *n_out = nk;
}
