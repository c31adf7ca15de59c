/* lik_table.h -- gp_laplace's likelihoods, one ops table (core-internal).
 *
 * A likelihood is one file under core/laplace/lik/ defining its sgp_lik_ops:
 * its arithmetic (log p, gradient, the capped pseudo-noise W^-1, the exact
 * curvature W and third derivative of the evidence, the response), its label
 * check and message, its data-based start values and its facts (flags below).
 * lik_table.c maps the public enum sgp_likelihood to the ops and writes the
 * name list every option table, fit check and doc reads. Nothing else switches
 * on the likelihood. ARCHITECTURE.md lists the steps of adding one.
 *
 * Storage (laplace.h): f and every NC-vector are N x C column-major; a diagonal
 * likelihood has C = 1, a multi-class one (softmax) a C x C block of W per point. */
#ifndef SGP_LIK_TABLE_H
#define SGP_LIK_TABLE_H

#include "laplace/laplace.h"

#include <math.h>
#include <stdio.h>

typedef struct sgp_lik_ops {
  /* facts (the name, the doc and valla's offer are the table's row) */
  int multiclass;        /* C latents per point, W = diag(pi) - pi pi' per point:
                          * the block paths (class centring, R&W Alg. 3.3) */
  int classes;           /* labels are classes: predict's type = "class", accuracy */
  int first_class;       /* classes: the code of the first (bernoulli 0, softmax 1) */
  int has_noise;         /* gaussian: the noise variance (option, hyperparameter,
                          * latent scale sqrt(outputscale), never capped) */
  int takes_offset;      /* the option `offset` (a log exposure) applies */
  int takes_trials;      /* the option `trials` (binomial) applies */
  /* the likelihood's scalar parameter (sgp_lik.par; NULL: none): its option
   * and fit field name, its field in sgp_laplace_opts and default (the option
   * row's) */
  const char *par_name;
  size_t par_offset;
  double par_default;
  /* predict's response fields (mean, then variance) and what the 1-D plot shows:
   * "latent" (f and y), "rate" (exp f and y / exposure), "probability" (the
   * inverse logit of f and y / trials), "classes" (f and the labels as ticks) */
  const char *resp_mean, *resp_var, *plot_scale;
  /* 1: y[i] is a valid label (finite already checked); 0: why holds the rule,
   * as "bernoulli labels must be 0 or 1" (the error: "y: <rule> (element i is y)") */
  int (*label)(const sgp_lik *lik, int64_t i, char *why, size_t size);
  /* optional: the checks of the likelihood's own data (trials, the scalar
   * parameter), before the labels; messages name the option */
  int (*check)(sgp_ctx *ctx, const sgp_lik *lik);
  /* log p summed, gradient, delta = W^-1 grad and nd (W^-1 capped at noise_max;
   * softmax: capped 1/pi) at f; grad, delta may be NULL */
  void (*eval)(const sgp_lik *lik, const double *f, double *loglik, double *grad,
               double *delta, double *nd);
  /* multiclass: y = W^dagger v (add: y += ...) for one NC-vector with the capped
   * nd; NULL: the diagonal nd v */
  void (*winv)(const sgp_lik *lik, const double *nd, const double *v, double *y, int add);
  /* Y = W(f) V for b NC-vectors, the exact negative Hessian (uncapped); pi: C
   * doubles of scratch */
  void (*w_apply)(const sgp_lik *lik, const double *f, int64_t b, const double *V, int64_t ldv,
                  double *Y, int64_t ldy, double *pi);
  /* the evidence's W (diagonal: n) and third derivative d3 = d^3 log p / df^3, or
   * pi (multiclass: n x C; d3 untouched), at f, uncapped */
  void (*curvature)(const sgp_lik *lik, const double *f, double *w, double *d3);
  /* the response's mean and variance (pm, pv: C each) at one test point from its
   * latent means m and variances s2 (C each, strides sm and ss) and log exposure off */
  void (*response)(const sgp_laplace_result *fit, int64_t C, const double *m, int64_t sm,
                   const double *s2, int64_t ss, double off, double *pm, double *pv);
  /* data-based start values: outputscale s, the mean (1, or C values), the
   * gaussian noise (left NaN otherwise) */
  void (*initial)(const sgp_lik *lik, double *s, double *mean, double *noise);
  /* optional, for a scalar parameter the evidence learns (its theta coordinate
   * log par): per point at f, the derivatives in log par at fixed f of log p (dl),
   * of its gradient in f (dg) and of W (dw); diagonal likelihoods only */
  void (*par_derivs)(const sgp_lik *lik, const double *f, double *dl, double *dg, double *dw);
} sgp_lik_ops;

/* The ops of a kind (NULL for a kind out of range). */
const sgp_lik_ops *sgp_lik_ops_of(sgp_likelihood kind);
/* The name list, valla's and the doc (sgp_options.h) are written from the rows. */
/* A fact of the ops, by name, for the lists in messages. */
typedef enum {
  SGP_LIK_FACT_OFFSET, SGP_LIK_FACT_CLASSES, SGP_LIK_FACT_NOISE, SGP_LIK_FACT_TRIALS,
  SGP_LIK_FACT_LEARNED_PAR /* a scalar parameter the evidence learns */
} sgp_lik_fact;
static inline int sgp_lik_has(const sgp_lik_ops *ops, sgp_lik_fact fact)
{
  return fact == SGP_LIK_FACT_OFFSET ? ops->takes_offset
         : fact == SGP_LIK_FACT_CLASSES ? ops->classes
         : fact == SGP_LIK_FACT_TRIALS ? ops->takes_trials
         : fact == SGP_LIK_FACT_LEARNED_PAR ? ops->par_derivs != NULL : ops->has_noise;
}
/* The names of the likelihoods with the fact, as `"a"`, `"a" or "b"`, `"a", "b"
 * or "c"` (quote; else without the quotes), in buf (returned). */
const char *sgp_lik_list(sgp_lik_fact fact, int quote, char *buf, size_t size);
/* Each scalar parameter's default into o (sgp_laplace_opts_default): NaN, not
 * given, for one the evidence learns (par_derivs), else par_default. */
void sgp_lik_par_defaults(sgp_laplace_opts *o);
/* A kind's scalar parameter as the user gave it (NaN: none, or not given). */
double sgp_lik_par_given(const sgp_laplace_opts *o);
/* The value a fit starts from: the given one, else par_default (NaN: none). */
double sgp_lik_par_of(const sgp_laplace_opts *o);

/* ---- arithmetic shared by the likelihood files */
/* The start values of a count with a log link: the mean rate over the exposure,
 * the outputscale from the spread of log counts (lik_poisson.c). */
void sgp_lik_rate_initial(const sgp_lik *lik, double *s, double *mean, double *noise);
static inline double sgp_log1pexp(double x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }
static inline double sgp_logistic(double x)
{
  return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}
static inline double sgp_lik_cap(double v, double vmax) { return v < vmax ? v : vmax; }
static inline double sgp_lik_offset(const sgp_lik *lik, int64_t i)
{
  return lik->offset ? lik->offset[i] : 0.0;
}
static inline double sgp_lik_trials(const sgp_lik *lik, int64_t i)
{
  return lik->trials ? lik->trials[lik->n_trials == 1 ? 0 : i] : 1.0;
}
/* 1 / sqrt(1 + pi s2 / 8): the probit approximation of E sigma(f) */
static inline double sgp_probit_kappa(double s2)
{
  return 1.0 / sqrt(1.0 + 3.14159265358979323846 * s2 / 8.0);
}
/* whole numbers in [lo, hi] */
static inline int sgp_lik_whole_in(double y, double lo, double hi)
{
  return y >= lo && y <= hi && y == floor(y);
}
/* the diagonal Y = w V for b vectors, w from W(f) per point */
#define SGP_LIK_DIAG_APPLY(lik, b, V, ldv, Y, ldy, WEXPR)                          \
  for (int64_t i = 0; i < (lik)->n; i++) {                                          \
    const double w_ = (WEXPR);                                                      \
    for (int64_t j = 0; j < (b); j++) (Y)[i + j * (ldy)] = w_ * (V)[i + j * (ldv)]; \
  }

#endif
