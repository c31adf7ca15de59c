/* valla_plain.c -- valla's and mlp_fit's results as plain data, written once for
 * both hosts (sgp_options.h): the network, the fit, the predictions, mlp_fit's
 * result; and a fit given back as plain data read into a fit for prediction. */
#include "valla/valla.h"
#include "host/fit_data.h"
#include "host/value_out.h"
#include "api/sgp_options.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sgp_value sgp_valla_net_plain(const sgp_valla_net *net, sgp_value_arena *a)
{
  const int L = net->n_layers;
  sgp_value *W = (sgp_value *)sgp_vo_alloc(a, (size_t)(2 * L) * sizeof(sgp_value));
  if (!W) return sgp_vo_null();
  sgp_value *b = W + L;
  for (int l = 0; l < L; l++) {
    W[l] = sgp_vo_real(a, net->width[l] * net->width[l + 1], net->W[l], net->width[l],
                       net->width[l + 1]);
    b[l] = sgp_vo_real(a, net->width[l + 1], net->b[l], 0, 0);
  }
  const char *names[] = {"weights", "biases", "activation", "output", "skip"};
  const sgp_value v[] = {
    sgp_vo_cells(a, L, W), sgp_vo_cells(a, L, b),
    sgp_vo_string(a, sgp_valla_activation_name(net->activation)),
    sgp_vo_string(a, sgp_valla_activation_name(net->output)),
    net->skip ? sgp_vo_real(a, net->width[0] * net->width[L], net->skip, net->width[0],
                            net->width[L])
              : sgp_vo_null()};
  return sgp_vo_list(a, 5, names, v);
}

sgp_value sgp_valla_net_shape_plain(const sgp_valla_net *net, sgp_value_arena *a)
{
  const int64_t shape[] = {net->width[0], net->width[net->n_layers], net->n_layers};
  const char *names[] = {"D", "C", "L"};
  const sgp_value v[] = {sgp_vo_int(a, 1, &shape[0]), sgp_vo_int(a, 1, &shape[1]),
                         sgp_vo_int(a, 1, &shape[2])};
  return sgp_vo_list(a, 3, names, v);
}

/* n doubles as a plain vector when C = 1 (R: a vector, Octave: a column), else
 * an n x C matrix. */
static sgp_value outputs(sgp_value_arena *a, int64_t n, int64_t C)
{
  return sgp_vo_real(a, n * C, NULL, C == 1 ? 0 : n, C == 1 ? 0 : C);
}

int sgp_valla_predict_plain(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X,
                            const sgp_valla_predict_opts *o, sgp_value_arena *a, sgp_value *out)
{
  const int64_t n = X.rows, C = fit->C, K = fit->n_class;
  const int cls = fit->likelihood != SGP_LIK_GAUSSIAN, bern = fit->likelihood == SGP_LIK_BERNOULLI;
  sgp_value mean = outputs(a, n, C), var = outputs(a, n, C), lv = outputs(a, n, C);
  sgp_value prob = sgp_vo_real(a, cls ? n * K : 0, NULL, n, K);
  sgp_value cov = o->full_cov ? sgp_vo_array3(a, C, C, n, NULL) : sgp_vo_null();
  *out = sgp_vo_null();
  if (sgp_value_arena_failed(a)) return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory");
  const sgp_mat none = sgp_mat_of(NULL, 0, 0);
  double *P = (double *)prob.real;
  int64_t unresolved = 0;
  int st = sgp_valla_predict_count(ctx, fit, X, sgp_mat_of((double *)mean.real, n, C),
                                   sgp_mat_of((double *)var.real, n, C),
                                   sgp_mat_of((double *)lv.real, n, C),
                                   cls && !o->mc ? sgp_mat_of(P, n, K) : none,
                                   o->full_cov ? sgp_mat_of((double *)cov.real, C * C, n) : none,
                                   &unresolved);
  if (!st && cls && o->mc) st = sgp_valla_predict_mc(ctx, fit, X, o->mc_samples, sgp_mat_of(P, n, K));
  if (st) return st;
  if (bern) prob = sgp_vo_real(a, n, P + n, 0, 0); /* P(y = 1) */
  char warning[512];
  sgp_variance_warning(unresolved, n * C, warning, sizeof warning);
  const char *names[6] = {"mean", "var"};
  sgp_value v[6] = {mean, var};
  int k = 2;
  if (!cls) { names[k] = "latent_var"; v[k++] = lv; }
  if (cls) { names[k] = "prob"; v[k++] = prob; }
  if (o->full_cov) { names[k] = "cov"; v[k++] = cov; }
  names[k] = "warning"; /* "" when none: the hosts warn with it and take it off */
  v[k++] = sgp_vo_string(a, warning);
  *out = sgp_vo_list(a, k, names, v);
  return sgp_value_arena_failed(a) ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory") : SGP_OK;
}

int sgp_valla_predict_result(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X,
                             const sgp_valla_predict_opts *o, sgp_value_arena *a, sgp_value *out)
{
  sgp_value pred;
  const int st = sgp_valla_predict_plain(ctx, fit, X, o, a, &pred);
  *out = st ? sgp_vo_null()
            : sgp_predict_result_plain(pred, sgp_opt_choice_name("valla_predict", "type", o->type), a);
  return st;
}

/* history: objective (one per iteration) and validation (iteration, nll). */
static sgp_value history(const sgp_valla_result *fit, sgp_value_arena *a)
{
  const char *vn[] = {"iteration", "nll"};
  const sgp_value vv[] = {sgp_vo_count(a, fit->n_eval, fit->trace_val_iter),
                          sgp_vo_real(a, fit->n_eval, fit->trace_val, 0, 0)};
  const char *hn[] = {"objective", "validation"};
  const sgp_value hv[] = {
    sgp_vo_real(a, fit->trace_obj ? fit->iterations : 0, fit->trace_obj, 0, 0),
    sgp_vo_list(a, 2, vn, vv)};
  return sgp_vo_list(a, 2, hn, hv);
}

/* x_range: 2 x d, the columns' min and max. */
static sgp_value x_range(sgp_cmat X, sgp_value_arena *a)
{
  sgp_value v = sgp_vo_real(a, 2 * X.cols, NULL, 2, X.cols);
  double *r = (double *)v.real;
  for (int64_t j = 0; r && j < X.cols; j++) {
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t i = 0; i < X.rows; i++) {
      const double x = X.data[i + j * X.ld];
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
    }
    r[2 * j] = lo;
    r[2 * j + 1] = hi;
  }
  return v;
}

static sgp_value opt_matrix(sgp_value_arena *a, int64_t M, const double *P)
{
  return P ? sgp_vo_real(a, M * M, P, M, M) : sgp_vo_null();
}

/* The fit's fields, in R's order (levels NULL: R's front names the classes). */
static sgp_value fit_fields(const sgp_valla_fit_parts *p, sgp_value_arena *a)
{
  const sgp_valla_result *f = p->fit;
  const sgp_valla_opts *o = p->opts;
  const int64_t M = f->M, one[] = {p->X.rows, f->D, f->C, f->n_class};
  const char *names[] = {"inducing", "tags", "L", "prior_var", "noise", "history", "iterations",
                         "best_iteration", "stopped_early", "clamps", "kernel_cache", "model",
                         "P1", "P2", "prior", "layers", "y_mean", "y_sd", "likelihood",
                         "method", "closed_form", "n_class", "levels", "n", "n_train", "d",
                         "C", "x_range", "seed", "stop_reason", "diverged_at", "test"};
  const sgp_value v[] = {
    sgp_vo_real(a, M * f->D, f->Z, M, f->D), sgp_vo_int32(a, M, f->tags, 1),
    opt_matrix(a, M, f->L), sgp_vo_scalar(a, sgp_valla_fit_prior_var(f)),
    f->likelihood == SGP_LIK_GAUSSIAN ? sgp_vo_scalar(a, sgp_valla_fit_noise(f)) : sgp_vo_null(),
    history(f, a), sgp_vo_scalar(a, (double)f->iterations),
    sgp_vo_scalar(a, (double)f->best_iteration), sgp_vo_flag(a, f->stopped_early != 0),
    sgp_vo_scalar(a, (double)f->clamps), sgp_vo_flag(a, f->kernel_cache != 0),
    sgp_valla_net_plain(&f->net, a), opt_matrix(a, M, f->P1), opt_matrix(a, M, f->P2),
    sgp_vo_flag(a, f->prior != 0),
    f->layers ? sgp_vo_int32(a, f->net.n_layers, f->layers, 0) : sgp_vo_null(),
    sgp_vo_scalar(a, f->y_mean), sgp_vo_scalar(a, f->y_sd),
    sgp_vo_string(a, sgp_opt_choice_name("gp_laplace", "likelihood", o->likelihood)),
    sgp_vo_string(a, sgp_opt_choice_name("valla", "method", o->method)),
    sgp_vo_flag(a, o->closed_form != 0), sgp_vo_int(a, 1, &one[3]), sgp_vo_null(),
    sgp_vo_int(a, 1, &one[0]), sgp_vo_scalar(a, (double)f->N), sgp_vo_int(a, 1, &one[1]),
    sgp_vo_int(a, 1, &one[2]), x_range(p->X, a), sgp_vo_scalar(a, (double)p->seed),
    sgp_vo_string(a, sgp_valla_stop_name(f->stop)), sgp_vo_scalar(a, (double)f->diverged_at),
    p->test ? *p->test : sgp_vo_null()};
  return sgp_vo_list(a, p->test ? 32 : 31, names, v);
}

sgp_value sgp_valla_fit_plain(const sgp_valla_fit_parts *p, sgp_value_arena *a)
{
  char warn[512], over[512];
  sgp_valla_stop_warning(p->fit->stop, p->fit->diverged_at, warn, sizeof warn);
  sgp_valla_overfit_warning(p->fit, over, sizeof over);
  const char *names[] = {"fit", "warning", "overfit"};
  const sgp_value v[] = {fit_fields(p, a), sgp_vo_string(a, warn), sgp_vo_string(a, over)};
  return sgp_vo_list(a, 3, names, v);
}

sgp_value sgp_valla_mlp_fit_plain(const sgp_valla_net *net, const sgp_valla_mlp_fit_info *info,
                                  const sgp_valla_mlp_fit_opts *o, uint64_t seed,
                                  sgp_value_arena *a)
{
  char warn[512];
  sgp_valla_stop_warning(info->stop, info->diverged_at, warn, sizeof warn);
  const char *un[] = {"likelihood", "seed", "warning"};
  const sgp_value uv[] = {
    sgp_vo_string(a, sgp_opt_choice_name("gp_laplace", "likelihood", o->likelihood)),
    sgp_vo_scalar(a, (double)seed), sgp_vo_string(a, warn)};
  const char *names[] = {"model", "loss", "initial_loss", "iterations", "stop_reason",
                         "diverged_at", "used"};
  const sgp_value v[] = {
    sgp_valla_net_plain(net, a), sgp_vo_scalar(a, info->final_loss),
    sgp_vo_scalar(a, info->initial_loss), sgp_vo_scalar(a, (double)info->iterations),
    sgp_vo_string(a, sgp_valla_stop_name(info->stop)),
    sgp_vo_scalar(a, (double)info->diverged_at), sgp_vo_list(a, 3, un, uv)};
  return sgp_vo_list(a, 7, names, v);
}

/* n flags or whole numbers of a plain-data field as ints (plus add), malloc'ed;
 * nothing: *out NULL. */
static int ints_of(const sgp_fd *f, const char *name, int64_t n, int add, int **out)
{
  const sgp_value *v = sgp_fd_elt(f->fit, name);
  *out = NULL;
  if (sgp_fd_is_nothing(v)) return SGP_OK;
  if (!sgp_fd_is_numeric(v) || v->len != n)
    return sgp_fd_bad(f, name, "must be empty or %lld whole numbers", (long long)n);
  *out = (int *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
  if (!*out) return sgp_fail(f->ctx, SGP_ENOMEM, "valla: out of memory");
  for (int64_t i = 0; i < n; i++) (*out)[i] = (int)v->real[i] + add;
  return SGP_OK;
}

static double number(const sgp_fd *f, const char *name)
{
  const sgp_value *v = sgp_fd_elt(f->fit, name);
  return v->type == SGP_VAL_REAL && v->len == 1 ? v->real[0] : 0.0;
}

static sgp_cmat opt_view(const sgp_fd *f, const char *name)
{
  const sgp_value *v = sgp_fd_elt(f->fit, name);
  return sgp_fd_is_nothing(v) ? sgp_cmat_of(NULL, 0, 0)
                              : sgp_cmat_of(v->real, sgp_fd_rows(v), sgp_fd_cols(v));
}

/* The fields prediction reads, of a fit sgp_valla_fit_check passed. */
static int read_fit(const sgp_fd *f, const sgp_valla_net *net, sgp_valla_result **out)
{
  static const char *const meth[] = {"valla", "lla", "ella", NULL};
  sgp_valla_fit_data d;
  memset(&d, 0, sizeof d);
  int li = 0, mi = 0, *tags = NULL, *layers = NULL;
  int st = sgp_fd_string(f, "likelihood", sgp_lik_valla_names, &li);
  if (!st) st = sgp_fd_string(f, "method", meth, &mi);
  d.likelihood = (sgp_likelihood)li;
  d.method = (sgp_valla_method)mi;
  d.inducing = opt_view(f, "inducing");
  if (!st) st = ints_of(f, "tags", d.inducing.rows, -1, &tags);
  if (!st) st = ints_of(f, "layers", net->n_layers, 0, &layers);
  if (!st) st = sgp_fd_flag(f, "prior", &d.prior);
  if (!st) st = sgp_fd_flag(f, "closed_form", &d.closed_form);
  if (!st) {
    d.tags = tags;
    d.layers = layers;
    d.P1 = opt_view(f, "P1");
    d.P2 = opt_view(f, "P2");
    d.prior_var = number(f, "prior_var");
    d.noise = d.likelihood == SGP_LIK_GAUSSIAN ? number(f, "noise") : 0.0;
    d.y_mean = number(f, "y_mean");
    d.y_sd = number(f, "y_sd");
    sgp_cmat *v = (sgp_cmat *)malloc((size_t)(2 * net->n_layers) * sizeof(sgp_cmat));
    sgp_valla_mlp mlp;
    if (!v) st = sgp_fail(f->ctx, SGP_ENOMEM, "valla: out of memory");
    if (v) sgp_valla_net_view(net, v, v + net->n_layers, &mlp);
    if (v) st = sgp_valla_fit_from_data(f->ctx, &mlp, &d, out);
    free(v);
  }
  free(tags);
  free(layers);
  return st;
}

int sgp_valla_fit_read(sgp_ctx *ctx, const sgp_value *fit, const char *arg, const char *sep,
                       sgp_valla_result **out)
{
  *out = NULL;
  int st = sgp_valla_fit_check(ctx, fit, arg, sep);
  if (st) return st;
  char marg[128];
  snprintf(marg, sizeof marg, "%s%smodel", arg, sep);
  sgp_valla_net net;
  if ((st = sgp_valla_net_from_value(ctx, sgp_fd_elt(fit, "model"), marg, sep, &net))) return st;
  sgp_fd f = sgp_fd_of(ctx, fit, arg, sep, " (the fit is damaged; refit it)");
  st = read_fit(&f, &net, out);
  sgp_valla_net_free(&net);
  return st;
}
