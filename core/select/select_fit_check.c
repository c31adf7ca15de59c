/* select_fit_check.c -- the model-selection fields of a fit given back as plain
 * data (those sgp_hyper_plain writes: hyper, loglik, loglik_se, loglik_grad,
 * learned, optim), checked once for both hosts before print or summary show
 * them. Beyond type and shape, the fields must agree with each other and with
 * the fit: hyper holds the values the fit used, a gradient and its standard
 * error come with a log-likelihood, and every coordinate the optimizer's trace
 * moves was learned. */
#include "host/fit_data.h"
#include "select/select.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* the groups of theta's coordinates: SGP_LEARN_* bits, named as `learn`'s choices
 * (bit i = choice i), which `learned` repeats */
#define GROUP_BITS (SGP_LEARN_LENGTHSCALE | SGP_LEARN_OUTPUTSCALE | SGP_LEARN_MEAN | \
                    SGP_LEARN_NOISE | SGP_LEARN_DISPERSION | SGP_LEARN_ALPHA)

static const char *const *group_names(void)
{
  return sgp_opt_find(sgp_verb_options("gp_laplace"), "learn")->choices;
}

/* The name of one group bit. */
static const char *group_name(unsigned bit)
{
  int i = 0;
  while (bit > 1u) { bit >>= 1; i++; }
  return group_names()[i];
}

/* one number; R's NA is a logical one */
static int one_number(const sgp_value *v)
{
  return v->len == 1 && (v->type == SGP_VAL_REAL ||
                         (v->type == SGP_VAL_LOGICAL && isnan(v->real[0])));
}

static int equal_values(const sgp_value *v, const double *x, int64_t n)
{
  if (v->type != SGP_VAL_REAL || v->len != n) return 0;
  for (int64_t i = 0; i < n; i++)
    if (!(v->real[i] == x[i])) return 0;
  return 1;
}

/* A coordinate of theta a model may have (dispersion, alpha): absent, or the
 * value the fit used (want; NULL: the model has none). *has: present. */
static int optional_equal(const sgp_value *v, const double *want, int *has)
{
  *has = !sgp_fd_is_nothing(v);
  return !*has || (want && equal_values(v, want, 1));
}

/* hyper: the lengthscales, outputscale and noise the fit used (noise NULL: none
 * to compare; then hyper's noise is nothing or one positive number), and its
 * dispersion and alpha where given (NULL: the model has none); the mean is
 * sgp_fd_hyper_mean's. Sets the layout of theta. */
static int check_hyper(const sgp_fd *f, const double *ls, int64_t n_ls, int64_t n_ls_theta,
                       double outputscale, const double *noise, const double *dispersion,
                       const double *alpha, sgp_hyper *h)
{
  const sgp_value *hv = sgp_fd_elt(f->fit, "hyper");
  const sgp_value *nv = sgp_fd_elt(hv, "noise");
  const int noise_ok = noise ? one_number(nv) && nv->real[0] == *noise
                             : sgp_fd_is_nothing(nv) ||
                                 (one_number(nv) && isfinite(nv->real[0]) && nv->real[0] > 0);
  int has_d = 0, has_a = 0;
  if (hv->type != SGP_VAL_LIST || !equal_values(sgp_fd_elt(hv, "lengthscale"), ls, n_ls) ||
      !equal_values(sgp_fd_elt(hv, "outputscale"), &outputscale, 1) || !noise_ok ||
      !optional_equal(sgp_fd_elt(hv, "dispersion"), dispersion, &has_d) ||
      !optional_equal(sgp_fd_elt(hv, "alpha"), alpha, &has_a))
    return sgp_fd_bad(f, "hyper", "must hold the lengthscale, outputscale, mean, noise, "
                      "dispersion and alpha the fit used (its kernel's and likelihood's)");
  memset(h, 0, sizeof *h);
  h->n_lengthscale = n_ls_theta;
  h->n_mean = sgp_fd_elt(hv, "mean")->len;
  h->has_dispersion = has_d;
  h->has_alpha = has_a;
  h->n_theta = n_ls_theta + 1 + h->n_mean + !sgp_fd_is_nothing(nv) + has_d + has_a;
  return SGP_OK;
}

/* loglik (one number, NA when not computed), loglik_se and loglik_grad (both
 * given exactly when the selection evaluated the log-likelihood, which is then
 * a number) */
static int check_loglik(const sgp_fd *f, const sgp_hyper *h, const char *const *theta)
{
  const sgp_value *ll = sgp_fd_elt(f->fit, "loglik"), *se = sgp_fd_elt(f->fit, "loglik_se");
  const sgp_value *g = sgp_fd_elt(f->fit, "loglik_grad");
  if (!sgp_fd_is_nothing(ll) && !(one_number(ll) && !isinf(ll->real[0])))
    return sgp_fd_bad(f, "loglik", "must be one finite number, or NA when not computed");
  const int has_ll = one_number(ll) && !isnan(ll->real[0]);
  /* Octave writes an empty named vector as a struct without fields */
  const int has_grad = !sgp_fd_is_nothing(g) && !(g->type == SGP_VAL_LIST && g->len == 0);
  if (has_grad && !has_ll)
    return sgp_fd_bad(f, "loglik", "must be one finite number (loglik_grad is given)");
  if (has_grad) {
    const int list = g->type == SGP_VAL_LIST;
    int ok = (list || g->type == SGP_VAL_REAL) && g->len == h->n_theta;
    for (int64_t k = 0; ok && k < g->len; k++) {
      const double x = list ? (one_number(&g->elts[k]) ? g->elts[k].real[0] : NAN) : g->real[k];
      ok = isfinite(x) && (!g->strs || (g->strs[k] && !strcmp(g->strs[k], theta[k])));
    }
    if (!ok)
      return sgp_fd_bad(f, "loglik_grad", "must be %lld finite numbers named by the "
                        "hyperparameters", (long long)h->n_theta);
  }
  const int se_ok = has_grad ? one_number(se) && isfinite(se->real[0]) && se->real[0] >= 0
                             : sgp_fd_is_nothing(se) || (one_number(se) && isnan(se->real[0]));
  if (!se_ok)
    return sgp_fd_bad(f, "loglik_se", has_grad ? "must be one finite number >= 0 (loglik_grad "
                      "is given)" : "must be NA or absent (loglik_grad is not given)");
  return SGP_OK;
}

/* learned: distinct names of groups; the bit of each into *bits */
static int check_learned(const sgp_fd *f, unsigned *bits)
{
  const sgp_value *v = sgp_fd_elt(f->fit, "learned");
  *bits = 0;
  if (sgp_fd_is_nothing(v)) return SGP_OK;
  const char *const *names = group_names();
  int ok = v->type == SGP_VAL_STRING;
  for (int64_t i = 0; ok && i < v->len; i++) {
    const char *s = v->strs ? v->strs[i] : v->str;
    int j = 0;
    while (names[j] && (!s || strcmp(s, names[j]))) j++;
    const unsigned bit = names[j] ? 1u << j : 0u;
    ok = (bit & GROUP_BITS) && !(*bits & bit);
    *bits |= bit;
  }
  if (!ok) {
    char list[160] = "";
    for (int j = 0; names[j]; j++)
      if ((1u << j) & GROUP_BITS)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "",
                 names[j]);
    return sgp_fd_bad(f, "learned", "must be distinct names out of %s", list);
  }
  return SGP_OK;
}

/* optim: the trace, one row per evaluation; the coordinates it moves were learned */
static int check_optim(const sgp_fd *f, const sgp_hyper *h, const char *const *theta,
                       unsigned bits)
{
  const char *need[4 + SGP_OPT_MAX_THETA] = {"evaluation", "loglik", "grad_norm", "seconds"};
  const int nn = 4 + (int)h->n_theta;
  for (int64_t k = 0; k < h->n_theta; k++) need[4 + k] = theta[k];
  int st = sgp_fd_columns(f, "optim", need, nn);
  if (st) return st;
  const sgp_value *o = sgp_fd_elt(f->fit, "optim");
  const double *ev = sgp_fd_elt(o, "evaluation")->real, *ll = sgp_fd_elt(o, "loglik")->real;
  const double *gn = sgp_fd_elt(o, "grad_norm")->real, *sec = sgp_fd_elt(o, "seconds")->real;
  const int64_t rows = sgp_fd_elt(o, "evaluation")->len;
  for (int64_t e = 0; e < rows; e++)
    if (ev[e] != (double)(e + 1) || !isfinite(sec[e]) || sec[e] < 0 || isinf(ll[e]) ||
        !(isnan(gn[e]) || (gn[e] >= 0 && isfinite(gn[e]))))
      return sgp_fd_bad(f, "optim", "row %lld is not an evaluation (evaluation %lld, finite "
                        "seconds >= 0, loglik and grad_norm finite or NaN)", (long long)e + 1,
                        (long long)e + 1);
  if (rows > 0 && !bits)
    return sgp_fd_bad(f, "learned", "is empty but the optimizer's trace (optim) has %lld rows",
                      (long long)rows);
  for (int64_t k = 0; k < h->n_theta; k++) {
    const sgp_value *c = sgp_fd_elt(o, theta[k]);
    if (!sgp_fd_finite(c))
      return sgp_fd_bad(f, "optim", "column %s must be finite", theta[k]);
    const unsigned bit = sgp_select_coordinate(h, k);
    for (int64_t e = 1; e < rows; e++)
      if (c->real[e] != c->real[0] && !(bits & bit))
        return sgp_fd_bad(f, "learned", "lacks %s, which the optimizer's trace (optim) moves",
                          group_name(bit));
  }
  return SGP_OK;
}

int sgp_fd_selection(const sgp_fd *f, const double *ls, int64_t n_ls, int64_t n_ls_theta,
                     double outputscale, const double *noise, const double *dispersion,
                     const double *alpha)
{
  sgp_hyper h;
  unsigned bits;
  int st = check_hyper(f, ls, n_ls, n_ls_theta, outputscale, noise, dispersion, alpha, &h);
  if (st) return st;
  if (h.n_theta > SGP_OPT_MAX_THETA)
    return sgp_fd_bad(f, "hyper", "has more than %d hyperparameters", SGP_OPT_MAX_THETA);
  char names[SGP_OPT_MAX_THETA][32];
  const char *theta[SGP_OPT_MAX_THETA];
  for (int64_t k = 0; k < h.n_theta; k++) {
    sgp_hyper_theta_name(&h, k, names[k], sizeof names[k]);
    theta[k] = names[k];
  }
  if ((st = check_loglik(f, &h, theta)) || (st = check_learned(f, &bits))) return st;
  return check_optim(f, &h, theta, bits);
}
