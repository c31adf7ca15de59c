/* valla_net_read.c -- a network given by a user as plain data (an R list, an
 * Octave struct: valla's and mlp_forward's `model`, a fit's `model`), read and
 * checked once for both hosts (sgp_valla_net_from_value, sgp_options.h), and the
 * nnet layout R's front turns an nnet fit into. Errors name the element as the
 * host's user writes it: 'model$weights[[2]]' (R) or 'model.weights{2}' (Octave). */
#include "valla/valla.h"
#include "host/fit_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const act_names[] = {"tanh", "sigmoid", "relu", "identity", "sigmoid_nnet",
                                        NULL};
static const char *const out_names[] = {"identity", "sigmoid", "sigmoid_nnet", NULL};

/* The pieces' names: R's weights / biases, or Octave's older W / b when a struct
 * has them instead. */
typedef struct {
  sgp_fd f;
  const char *w, *b;
  char item[64];
} net_reader;

/* "weights[[l]]" (R) or "weights{l}" (Octave), l 1-based. */
static const char *item(net_reader *r, const char *what, int l)
{
  snprintf(r->item, sizeof r->item, strcmp(r->f.sep, "$") ? "%s{%d}" : "%s[[%d]]", what, l);
  return r->item;
}

/* An activation by name (absent: def). */
static int activation(const sgp_fd *f, const char *name, const char *const *choices,
                      const char *def, sgp_activation *act)
{
  const sgp_value *v = sgp_fd_elt(f->fit, name);
  const char *s = def;
  if (!sgp_fd_is_nothing(v)) {
    if (v->type != SGP_VAL_STRING || v->len != 1 || !v->str || !strcmp(v->str, "NA"))
      return sgp_fd_bad(f, name, "must be one string");
    s = v->str;
    int ok = 0;
    for (int i = 0; choices[i] && !ok; i++) ok = !strcmp(s, choices[i]);
    if (!ok) {
      char list[160] = "";
      for (int i = 0; choices[i]; i++) {
        const size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s\"%s\"", i ? ", " : "", choices[i]);
      }
      return sgp_fd_bad(f, name, "is unknown: \"%s\"; use one of %s", s, list);
    }
  }
  return sgp_valla_activation_from_name(s, act) ? sgp_fd_bad(f, name, "is unknown") : SGP_OK;
}

/* weights[l] (a numeric matrix, finite, chained to the layer before) and biases[l]. */
static int layer(net_reader *r, const sgp_value *W, const sgp_value *b, int l, int transpose,
                 int64_t *width, sgp_cmat *Wv, sgp_cmat *bv)
{
  const sgp_value *w = &W->elts[l], *bl = &b->elts[l];
  if (w->type != SGP_VAL_REAL || (w->rows <= 0 && w->cols <= 0) || w->cols < 0)
    return sgp_fd_bad(&r->f, item(r, r->w, l + 1), "must be a numeric matrix");
  if (!sgp_fd_finite(w)) return sgp_fd_bad(&r->f, item(r, r->w, l + 1), "contains NaN, NA or Inf");
  const int64_t in = transpose ? w->cols : w->rows, out = transpose ? w->rows : w->cols;
  if (l > 0 && in != width[l])
    return sgp_fd_bad(&r->f, item(r, r->w, l + 1),
                      "has %lld %s but layer %d has %lld outputs (weights are %s)",
                      (long long)in, transpose ? "columns" : "rows", l, (long long)width[l],
                      transpose ? "out-by-in with transpose = TRUE" : "in-by-out");
  width[l] = in;
  width[l + 1] = out;
  *Wv = sgp_cmat_of(w->real, w->rows, w->cols);
  if (bl->type != SGP_VAL_REAL || bl->len != out)
    return sgp_fd_bad(&r->f, item(r, r->b, l + 1), "must be numeric of length %lld (got length %lld)",
                      (long long)out, (long long)(bl->type == SGP_VAL_NULL ? 0 : bl->len));
  if (!sgp_fd_finite(bl)) return sgp_fd_bad(&r->f, item(r, r->b, l + 1), "contains NaN, NA or Inf");
  *bv = sgp_cmat_of(bl->real, out, 1);
  return SGP_OK;
}

/* skip: nothing, or a D x C (transposed: C x D) finite numeric matrix. */
static int skip_of(const sgp_fd *f, const int64_t *width, int L, int transpose, sgp_cmat *out)
{
  const sgp_value *s = sgp_fd_elt(f->fit, "skip");
  *out = sgp_cmat_of(NULL, 0, 0);
  if (sgp_fd_is_nothing(s)) return SGP_OK;
  const int64_t r = transpose ? width[L] : width[0], c = transpose ? width[0] : width[L];
  if (s->type != SGP_VAL_REAL || s->rows != r || s->cols != c)
    return sgp_fd_bad(f, "skip", "must be a %lld x %lld numeric matrix", (long long)r,
                      (long long)c);
  if (!sgp_fd_finite(s)) return sgp_fd_bad(f, "skip", "contains NaN, NA or Inf");
  *out = sgp_cmat_of(s->real, r, c);
  return SGP_OK;
}

/* R's nnet fit as its front passes it: list(kind = "nnet", n = c(D, H, K), skip,
 * out_sigmoid, wts). */
static int nnet_of(sgp_ctx *ctx, const sgp_value *m, sgp_valla_net *net)
{
  const sgp_value *n = sgp_fd_elt(m, "n"), *sk = sgp_fd_elt(m, "skip"),
                  *os = sgp_fd_elt(m, "out_sigmoid"), *w = sgp_fd_elt(m, "wts");
  if (n->type != SGP_VAL_REAL || n->len != 3 || !sgp_fd_is_numeric(sk) || sk->len != 1 ||
      !sgp_fd_is_numeric(os) || os->len != 1 || w->type != SGP_VAL_REAL)
    return sgp_fail(ctx, SGP_EINVAL, "internal: a malformed nnet network");
  return sgp_valla_net_from_nnet(ctx, (int64_t)n->real[0], (int64_t)n->real[1],
                                 (int64_t)n->real[2], sk->real[0] != 0, os->real[0] != 0,
                                 sgp_cmat_of(w->real, w->len, 1), net);
}

/* The user's MLP: its layers' views (in arrays of L) and the net copied from them. */
static int mlp_of(net_reader *r, const sgp_value *W, const sgp_value *b, sgp_valla_net *net)
{
  const sgp_fd *f = &r->f;
  const int L = (int)W->len;
  int transpose = 0, st;
  const sgp_value *tv = sgp_fd_elt(f->fit, "transpose");
  if (!sgp_fd_is_nothing(tv) && (st = sgp_fd_flag(f, "transpose", &transpose))) return st;
  sgp_valla_mlp mlp;
  memset(&mlp, 0, sizeof mlp);
  if ((st = activation(f, "activation", act_names, "tanh", &mlp.activation)) ||
      (st = activation(f, "output", out_names, "identity", &mlp.output)))
    return st;
  int64_t *width = (int64_t *)malloc((size_t)(L + 1) * sizeof(int64_t));
  sgp_cmat *v = (sgp_cmat *)malloc((size_t)(2 * L) * sizeof(sgp_cmat));
  if (!width || !v) st = sgp_fail(f->ctx, SGP_ENOMEM, "valla: out of memory for the network");
  for (int l = 0; l < L && !st; l++) st = layer(r, W, b, l, transpose, width, &v[l], &v[L + l]);
  if (!st) st = skip_of(f, width, L, transpose, &mlp.skip);
  if (!st) {
    mlp.n_layers = L;
    mlp.width = width;
    mlp.W = v;
    mlp.b = v + L;
    mlp.transpose = transpose;
    st = sgp_valla_net_from_mlp(f->ctx, &mlp, net);
  }
  free(width);
  free(v);
  return st;
}

int sgp_valla_net_from_value(sgp_ctx *ctx, const sgp_value *model, const char *arg,
                             const char *sep, sgp_valla_net *net)
{
  memset(net, 0, sizeof *net);
  if (!model || model->type != SGP_VAL_LIST || !model->strs)
    return sgp_fail(ctx, SGP_EINVAL, "'%s' must be a network (a list or struct of weights, "
                    "biases, activation)", arg);
  const sgp_value *kind = sgp_fd_elt(model, "kind");
  if (kind->type == SGP_VAL_STRING && kind->str && !strcmp(kind->str, "nnet"))
    return nnet_of(ctx, model, net);
  net_reader r;
  r.f.ctx = ctx;
  r.f.fit = model;
  r.f.arg = arg;
  r.f.sep = sep;
  r.f.suffix = NULL;
  const int old = !sgp_fd_has(model, "weights") && sgp_fd_has(model, "W");
  r.w = old ? "W" : "weights";
  r.b = old ? "b" : "biases";
  const sgp_value *W = sgp_fd_elt(model, r.w), *b = sgp_fd_elt(model, r.b);
  if (W->type != SGP_VAL_LIST || W->len < 1)
    return sgp_fd_bad(&r.f, r.w, "must be a non-empty list of matrices");
  if (b->type != SGP_VAL_LIST || b->len != W->len)
    return sgp_fd_bad(&r.f, r.b, "must be a list with one vector per weight matrix (%lld)",
                      (long long)W->len);
  return mlp_of(&r, W, b, net);
}
