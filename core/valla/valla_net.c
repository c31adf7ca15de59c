/* valla_net.c -- the network as owned, normalized storage: checks and copies of
 * a user's MLP view, the nnet weight layout, and activations. */
#include "valla/valla.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double valla_act(sgp_activation f, double h)
{
  switch (f) {
  case SGP_ACT_TANH: return tanh(h);
  case SGP_ACT_SIGMOID:
    return h >= 0 ? 1.0 / (1.0 + exp(-h)) : exp(h) / (1.0 + exp(h));
  case SGP_ACT_SIGMOID_NNET: /* nnet's fpass: clipped, exactly 0 / 1 outside [-15, 15] */
    if (h < -15.0) return 0.0;
    if (h > 15.0) return 1.0;
    return 1.0 / (1.0 + exp(-h));
  case SGP_ACT_RELU: return h > 0 ? h : 0.0;
  default: return h;
  }
}

/* From the activation value where possible: exactly 0 in nnet's clipped region. */
double valla_act_d1(sgp_activation f, double h, double a)
{
  switch (f) {
  case SGP_ACT_TANH: return 1.0 - a * a;
  case SGP_ACT_SIGMOID: case SGP_ACT_SIGMOID_NNET: return a * (1.0 - a);
  case SGP_ACT_RELU: return h > 0 ? 1.0 : 0.0;
  default: return 1.0;
  }
}

double valla_act_d2(sgp_activation f, double h, double a)
{
  (void)h;
  switch (f) {
  case SGP_ACT_TANH: return -2.0 * a * (1.0 - a * a);
  case SGP_ACT_SIGMOID: case SGP_ACT_SIGMOID_NNET: return a * (1.0 - a) * (1.0 - 2.0 * a);
  default: return 0.0;
  }
}

void sgp_valla_net_free(sgp_valla_net *net)
{
  if (!net) return;
  for (int l = 0; l < net->n_layers; l++) {
    if (net->W) free(net->W[l]);
    if (net->b) free(net->b[l]);
  }
  free(net->W); free(net->b); free(net->width); free(net->skip);
  memset(net, 0, sizeof *net);
}

/* Allocates zeroed storage for the given widths. */
static int net_alloc(sgp_ctx *ctx, int L, const int64_t *width, int skip, sgp_valla_net *net)
{
  memset(net, 0, sizeof *net);
  net->n_layers = L;
  net->width = (int64_t *)malloc((size_t)(L + 1) * sizeof(int64_t));
  net->W = (double **)calloc((size_t)L, sizeof(double *));
  net->b = (double **)calloc((size_t)L, sizeof(double *));
  if (!net->width || !net->W || !net->b) goto oom;
  memcpy(net->width, width, (size_t)(L + 1) * sizeof(int64_t));
  for (int l = 0; l < L; l++) {
    net->W[l] = sgp_calloc(width[l] * width[l + 1]);
    net->b[l] = sgp_calloc(width[l + 1]);
    if (!net->W[l] || !net->b[l]) goto oom;
  }
  if (skip) {
    net->skip = sgp_calloc(width[0] * width[L]);
    if (!net->skip) goto oom;
  }
  return SGP_OK;
oom:
  sgp_valla_net_free(net);
  return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory for the network");
}

static int act_ok(sgp_activation f)
{
  return f == SGP_ACT_IDENTITY || f == SGP_ACT_TANH || f == SGP_ACT_SIGMOID ||
         f == SGP_ACT_SIGMOID_NNET || f == SGP_ACT_RELU;
}

/* Copies an in-by-out (or, transposed, out-by-in) view into in-by-out storage. */
static int copy_layer(sgp_ctx *ctx, const char *name, int l, sgp_cmat v, int64_t in,
                      int64_t out, int transpose, double *dst)
{
  const int64_t r = transpose ? out : in, c = transpose ? in : out;
  if (!v.data || v.rows != r || v.cols != c || v.ld < v.rows)
    return sgp_fail(ctx, SGP_EINVAL, "%s[%d] must be %lld x %lld (got %lld x %lld)", name,
                    l + 1, (long long)r, (long long)c, (long long)v.rows, (long long)v.cols);
  for (int64_t j = 0; j < c; j++)
    for (int64_t i = 0; i < r; i++) {
      const double x = v.data[i + j * v.ld];
      if (!isfinite(x))
        return sgp_fail(ctx, SGP_EINVAL, "%s[%d] has a non-finite entry", name, l + 1);
      if (transpose) dst[j + i * in] = x; else dst[i + j * in] = x;
    }
  return SGP_OK;
}

int sgp_valla_net_from_mlp(sgp_ctx *ctx, const sgp_valla_mlp *mlp, sgp_valla_net *net)
{
  memset(net, 0, sizeof *net);
  if (!mlp || mlp->n_layers < 1 || !mlp->width || !mlp->W || !mlp->b)
    return sgp_fail(ctx, SGP_EINVAL, "model must have at least one layer (W, b, width)");
  const int L = mlp->n_layers;
  for (int l = 0; l <= L; l++)
    if (mlp->width[l] < 1)
      return sgp_fail(ctx, SGP_EINVAL, "width[%d] must be positive", l);
  if (!act_ok(mlp->activation))
    return sgp_fail(ctx, SGP_EINVAL, "activation is not a known activation");
  if (mlp->output != SGP_ACT_IDENTITY && mlp->output != SGP_ACT_SIGMOID &&
      mlp->output != SGP_ACT_SIGMOID_NNET)
    return sgp_fail(ctx, SGP_EINVAL, "output must be identity or a logistic");
  int st = net_alloc(ctx, L, mlp->width, mlp->skip.data != NULL, net);
  if (st) return st;
  net->activation = mlp->activation;
  net->output = mlp->output;
  for (int l = 0; l < L && !st; l++) {
    st = copy_layer(ctx, "W", l, mlp->W[l], mlp->width[l], mlp->width[l + 1], mlp->transpose,
                    net->W[l]);
    if (!st) {
      sgp_cmat b = mlp->b[l];
      if (!b.data || b.rows * b.cols != mlp->width[l + 1])
        st = sgp_fail(ctx, SGP_EINVAL, "b[%d] must have %lld entries", l + 1,
                      (long long)mlp->width[l + 1]);
      else
        for (int64_t j = 0; j < b.rows * b.cols && !st; j++) {
          const double x = b.rows == 1 ? b.data[j * b.ld] : b.data[j];
          if (!isfinite(x)) st = sgp_fail(ctx, SGP_EINVAL, "b[%d] has a non-finite entry", l + 1);
          net->b[l][j] = x;
        }
    }
  }
  if (!st && net->skip)
    st = copy_layer(ctx, "skip", 0, mlp->skip, mlp->width[0], mlp->width[L], mlp->transpose,
                    net->skip);
  if (st) sgp_valla_net_free(net);
  return st;
}

int sgp_valla_net_from_nnet(sgp_ctx *ctx, int64_t D, int64_t H, int64_t K, int skip,
                            int out_sigmoid, sgp_cmat wts, sgp_valla_net *net)
{
  memset(net, 0, sizeof *net);
  if (D < 1 || K < 1 || H < 0)
    return sgp_fail(ctx, SGP_EINVAL, "nnet: need D >= 1 inputs, H >= 0 hidden, K >= 1 outputs");
  if (H == 0 && !skip)
    return sgp_fail(ctx, SGP_EINVAL, "nnet: size = 0 needs skip = TRUE");
  const int sk = skip ? 1 : 0;
  const int64_t P = H > 0 ? H * (D + 1) + K * (H + 1 + sk * D) : K * (D + 1);
  const int64_t nw = wts.rows * wts.cols;
  if (!wts.data || nw != P)
    return sgp_fail(ctx, SGP_EINVAL, "wts must have %lld entries for this layout (got %lld)",
                    (long long)P, (long long)nw);
  for (int64_t i = 0; i < nw; i++) {
    const double x = wts.cols == 1 ? wts.data[i] : wts.data[i * wts.ld];
    if (!isfinite(x)) return sgp_fail(ctx, SGP_EINVAL, "wts has a non-finite entry");
  }
#define WT(i) (wts.cols == 1 ? wts.data[(i)] : wts.data[(i) * wts.ld])
  const sgp_activation out = out_sigmoid ? SGP_ACT_SIGMOID_NNET : SGP_ACT_IDENTITY;
  int st;
  if (H == 0) {
    const int64_t width[2] = {D, K};
    if ((st = net_alloc(ctx, 1, width, 0, net))) return st;
    for (int64_t k = 0; k < K; k++) {
      const int64_t off = k * (D + 1);
      net->b[0][k] = WT(off);
      for (int64_t i = 0; i < D; i++) net->W[0][i + k * D] = WT(off + 1 + i);
    }
  } else {
    const int64_t width[3] = {D, H, K};
    if ((st = net_alloc(ctx, 2, width, sk, net))) return st;
    for (int64_t j = 0; j < H; j++) {
      net->b[0][j] = WT(j * (D + 1));
      for (int64_t i = 0; i < D; i++) net->W[0][i + j * D] = WT(j * (D + 1) + 1 + i);
    }
    for (int64_t k = 0; k < K; k++) {
      const int64_t off = H * (D + 1) + k * (H + 1 + sk * D);
      net->b[1][k] = WT(off);
      for (int64_t j = 0; j < H; j++) net->W[1][j + k * H] = WT(off + 1 + j);
      if (sk) for (int64_t i = 0; i < D; i++) net->skip[i + k * D] = WT(off + 1 + H + i);
    }
  }
#undef WT
  net->activation = SGP_ACT_SIGMOID_NNET;
  net->output = out;
  return SGP_OK;
}

int sgp_valla_net_copy(sgp_ctx *ctx, const sgp_valla_net *src, sgp_valla_net *dst)
{
  const int L = src->n_layers;
  int st = net_alloc(ctx, L, src->width, src->skip != NULL, dst);
  if (st) return st;
  for (int l = 0; l < L; l++) {
    memcpy(dst->W[l], src->W[l], (size_t)(src->width[l] * src->width[l + 1]) * sizeof(double));
    memcpy(dst->b[l], src->b[l], (size_t)src->width[l + 1] * sizeof(double));
  }
  if (src->skip)
    memcpy(dst->skip, src->skip, (size_t)(src->width[0] * src->width[L]) * sizeof(double));
  dst->activation = src->activation;
  dst->output = src->output;
  return SGP_OK;
}

int64_t sgp_valla_net_nparam(const sgp_valla_net *net)
{
  int64_t P = 0;
  for (int l = 0; l < net->n_layers; l++) P += (net->width[l] + 1) * net->width[l + 1];
  if (net->skip) P += net->width[0] * net->width[net->n_layers];
  return P;
}
