/* valla_api.c -- glue for the public valla API: activation names, plain-data views
 * of a network, original-scale hyperparameters and a fit rebuilt from plain data
 * (a fit saved by R or Octave and reloaded), so prediction needs no live state. */
#include "valla/valla.h"
#include "api/sgp_options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *act_names[] = {"identity", "tanh", "sigmoid", "sigmoid_nnet", "relu"};

int sgp_valla_activation_from_name(const char *name, sgp_activation *act)
{
  for (int i = 0; name && i < 5; i++)
    if (!strcmp(name, act_names[i])) { *act = (sgp_activation)i; return SGP_OK; }
  return SGP_EINVAL;
}

const char *sgp_valla_activation_name(sgp_activation act)
{
  return (int)act >= 0 && (int)act < 5 ? act_names[act] : "unknown";
}

void sgp_valla_net_view(const sgp_valla_net *net, sgp_cmat *W, sgp_cmat *b, sgp_valla_mlp *mlp)
{
  const int L = net->n_layers;
  for (int l = 0; l < L; l++) {
    W[l] = sgp_cmat_of(net->W[l], net->width[l], net->width[l + 1]);
    b[l] = sgp_cmat_of(net->b[l], net->width[l + 1], 1);
  }
  memset(mlp, 0, sizeof *mlp);
  mlp->n_layers = L;
  mlp->width = net->width;
  mlp->W = W;
  mlp->b = b;
  mlp->skip = sgp_cmat_of(net->skip, net->skip ? net->width[0] : 0, net->skip ? net->width[L] : 0);
  mlp->activation = net->activation;
  mlp->output = net->output;
}

const char *sgp_valla_stop_name(sgp_valla_stop stop)
{
  switch (stop) {
  case SGP_VALLA_STOP_ITERATIONS: return "iterations";
  case SGP_VALLA_STOP_EARLY: return "early_stopping";
  case SGP_VALLA_STOP_DIVERGED: return "diverged";
  case SGP_VALLA_STOP_LOSS_ROSE: return "loss_rose";
  }
  return "unknown";
}

const char *sgp_valla_stop_advice(sgp_valla_stop stop)
{
  switch (stop) {
  case SGP_VALLA_STOP_DIVERGED:
    return "training diverged (the objective or the parameters stopped being finite numbers) "
           "and was stopped, keeping the last usable state; the learning rate lr is probably "
           "too large: lower it";
  case SGP_VALLA_STOP_LOSS_ROSE:
    return "the training loss rose during training instead of falling; the learning rate lr "
           "is probably too large: lower it";
  default: return "";
  }
}

double sgp_valla_fit_prior_var(const sgp_valla_result *fit) { return exp(2.0 * fit->log_sigma0); }

double sgp_valla_fit_noise(const sgp_valla_result *fit)
{
  return fit->likelihood == SGP_LIK_GAUSSIAN ? exp(fit->log_noise) * fit->y_sd * fit->y_sd : 0.0;
}

int sgp_valla_net_new(sgp_ctx *ctx, int n_layers, const int64_t *width,
                      sgp_activation activation, sgp_valla_net *net)
{
  memset(net, 0, sizeof *net);
  if (n_layers < 1 || !width) return sgp_fail(ctx, SGP_EINVAL, "hidden: need at least one layer");
  int st = sgp_valla_mlp_check_size(ctx, n_layers, width, 0, 0);
  if (st) return st;
  int64_t P = 0;
  for (int l = 0; l < n_layers; l++) P += width[l] * width[l + 1] + width[l + 1];
  double *zeros = sgp_calloc(P);
  sgp_cmat *W = (sgp_cmat *)malloc((size_t)n_layers * sizeof(sgp_cmat));
  sgp_cmat *b = (sgp_cmat *)malloc((size_t)n_layers * sizeof(sgp_cmat));
  st = (!zeros || !W || !b) ? sgp_fail(ctx, SGP_ENOMEM, "mlp_fit: out of memory") : SGP_OK;
  if (!st) {
    int64_t off = 0;
    for (int l = 0; l < n_layers; l++) {
      W[l] = sgp_cmat_of(zeros + off, width[l], width[l + 1]);
      off += width[l] * width[l + 1];
      b[l] = sgp_cmat_of(zeros + off, width[l + 1], 1);
      off += width[l + 1];
    }
    sgp_valla_mlp mlp;
    memset(&mlp, 0, sizeof mlp);
    mlp.n_layers = n_layers;
    mlp.width = width;
    mlp.W = W;
    mlp.b = b;
    mlp.activation = activation;
    mlp.output = SGP_ACT_IDENTITY;
    st = sgp_valla_net_from_mlp(ctx, &mlp, net);
  }
  if (!st && (st = sgp_valla_net_init_random(ctx, net))) sgp_valla_net_free(net);
  free(zeros); free(W); free(b);
  return st;
}

/* Copies a matrix view into new contiguous storage (rows x cols). */
static int copy_mat(sgp_ctx *ctx, const char *name, sgp_cmat v, int64_t rows, int64_t cols,
                    double **out)
{
  *out = NULL;
  if (v.rows != rows || v.cols != cols)
    return sgp_fail(ctx, SGP_EDIM, "%s must be %lld x %lld (got %lld x %lld)", name,
                    (long long)rows, (long long)cols, (long long)v.rows, (long long)v.cols);
  int st = sgp_check_finite(ctx, name, v);
  if (st) return st;
  if (rows * cols == 0) return SGP_OK;
  *out = sgp_alloc(rows * cols);
  if (!*out) return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory");
  for (int64_t j = 0; j < cols; j++)
    memcpy(*out + rows * j, v.data + v.ld * j, (size_t)rows * sizeof(double));
  return SGP_OK;
}

/* P1, P2 and prior as each method leaves them (sgp_valla_result): a fit that lost
 * one of them, or got one it never has, would predict wrong variances silently. */
static int check_maps(sgp_ctx *ctx, const sgp_valla_fit_data *d, int64_t M)
{
  const int p1 = d->P1.data != NULL, p2 = d->P2.data != NULL, pr = d->prior != 0;
  const char *bad = NULL;
  if (M == 0 && (!pr || p1 || p2)) bad = "prior: a fit without inducing points has prior = true and no P1, P2";
  else if (M > 0 && pr && !p1) bad = "P1: is missing although prior = true";
  else if (M > 0 && !pr && (!p2 || p1)) bad = "P2: a fit with prior = false has P2 and no P1";
  else if (d->method == SGP_VALLA_METHOD_LLA && (!pr || p2)) bad = "method: an exact LLA fit has P1, prior = true and no P2";
  else if (d->method == SGP_VALLA_METHOD_ELLA && pr) bad = "method: an ELLA fit has P2 and prior = false";
  else if (d->method == SGP_VALLA_METHOD_VALLA && M > 0 && d->closed_form && !p2)
    bad = "P2: is missing from a closed-form fit";
  else if (d->method == SGP_VALLA_METHOD_VALLA && !d->closed_form && (p2 || !pr))
    bad = "closed_form: a valla fit with a trained A has P1, prior = true and no P2";
  if (bad) return sgp_fail(ctx, SGP_EINVAL, "%s; the fit is damaged (refit it)", bad);
  return SGP_OK;
}

static int check_data(sgp_ctx *ctx, const sgp_valla_fit_data *d, int64_t C)
{
  if (!sgp_lik_valla(d->likelihood))
    return sgp_fail(ctx, SGP_EINVAL, "likelihood must be gaussian, softmax or bernoulli");
  if (!sgp_lik_multiclass(d->likelihood) && C != 1)
    return sgp_fail(ctx, SGP_EINVAL, "likelihood: needs a network with one output (has %lld)", (long long)C);
  if (sgp_lik_multiclass(d->likelihood) && C < 2)
    return sgp_fail(ctx, SGP_EINVAL, "likelihood: softmax needs at least 2 network outputs");
  if (C > VALLA_MAX_C)
    return sgp_fail(ctx, SGP_EINVAL, "model: at most %d network outputs are supported", VALLA_MAX_C);
  if ((int)d->method < 0 || (int)d->method > SGP_VALLA_METHOD_ELLA)
    return sgp_fail(ctx, SGP_EINVAL, "method must be valla, lla or ella");
  if (!(d->prior_var > 0) || !isfinite(d->prior_var))
    return sgp_fail(ctx, SGP_EINVAL, "prior_var must be positive and finite");
  if (d->likelihood == SGP_LIK_GAUSSIAN) {
    if (!(d->noise > 0) || !isfinite(d->noise))
      return sgp_fail(ctx, SGP_EINVAL, "noise must be positive and finite");
    if (!(d->y_sd > 0) || !isfinite(d->y_sd) || !isfinite(d->y_mean))
      return sgp_fail(ctx, SGP_EINVAL, "y_sd must be positive and y_mean finite");
  }
  const int64_t M = d->inducing.data ? d->inducing.rows : 0;
  if (M > 0 && C > 1 && !d->tags) return sgp_fail(ctx, SGP_EINVAL, "tags are needed when C > 1");
  int st = check_maps(ctx, d, M);
  if (st) return st;
  for (int64_t m = 0; d->tags && m < M; m++)
    if (d->tags[m] < 0 || d->tags[m] >= C)
      return sgp_fail(ctx, SGP_EINVAL, "tags[%lld] is outside 1..%lld", (long long)(m + 1), (long long)C);
  return SGP_OK;
}

int sgp_valla_fit_from_data(sgp_ctx *ctx, const sgp_valla_mlp *model,
                            const sgp_valla_fit_data *d, sgp_valla_result **out)
{
  *out = NULL;
  sgp_valla_result *fit = (sgp_valla_result *)calloc(1, sizeof *fit);
  if (!fit) return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory");
  int st = sgp_valla_net_from_mlp(ctx, model, &fit->net);
  if (st) { free(fit); return st; }
  const sgp_valla_net *net = &fit->net;
  const int L = net->n_layers;
  fit->D = net->width[0];
  fit->C = net->width[L];
  if ((st = check_data(ctx, d, fit->C))) goto fail;
  fit->likelihood = d->likelihood;
  fit->method = d->method;
  fit->n_class = d->likelihood == SGP_LIK_BERNOULLI ? 2 : fit->C;
  fit->alpha = 1.0;
  fit->prior = d->prior ? 1 : 0;
  fit->log_sigma0 = 0.5 * log(d->prior_var);
  const int gauss = d->likelihood == SGP_LIK_GAUSSIAN;
  fit->y_mean = gauss ? d->y_mean : 0.0;
  fit->y_sd = gauss ? d->y_sd : 1.0;
  fit->log_noise = gauss ? log(d->noise / (fit->y_sd * fit->y_sd)) : 0.0;
  const int64_t M = d->inducing.data ? d->inducing.rows : 0;
  fit->M = M;
  if (M > 0) {
    if ((st = copy_mat(ctx, "inducing", d->inducing, M, fit->D, &fit->Z))) goto fail;
    fit->tags = (int *)malloc((size_t)M * sizeof(int));
    if (!fit->tags) { st = sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory"); goto fail; }
    for (int64_t m = 0; m < M; m++) fit->tags[m] = d->tags ? d->tags[m] : 0;
  }
  if (d->P1.data && (st = copy_mat(ctx, "P1", d->P1, M, M, &fit->P1))) goto fail;
  if (d->P2.data && (st = copy_mat(ctx, "P2", d->P2, M, M, &fit->P2))) goto fail;
  if (d->layers) {
    fit->layers = (int *)malloc((size_t)L * sizeof(int));
    if (!fit->layers) { st = sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory"); goto fail; }
    memcpy(fit->layers, d->layers, (size_t)L * sizeof(int));
  }
  *out = fit;
  return SGP_OK;
fail:
  sgp_valla_fit_free(fit);
  return st;
}
