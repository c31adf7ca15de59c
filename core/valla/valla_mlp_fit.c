/* valla_mlp_fit.c -- a small seeded MAP trainer for the generic MLP (Adam with
 * PyTorch-style weight decay: grad += weight_decay * theta), so that examples and
 * tests can produce a trained network without an external framework. Losses are
 * batch means: squared error (gaussian), cross-entropy on the logits (softmax),
 * logistic loss on the one logit (bernoulli). */
#include "valla/valla.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int sgp_valla_mlp_check_size(sgp_ctx *ctx, int n_layers, const int64_t *width, int skip,
                             int64_t batch_size)
{
  double P = 0, sw = 0, wmax = 1;
  for (int l = 0; l <= n_layers; l++) {
    if (width[l] < 1) return sgp_fail(ctx, SGP_EINVAL, "hidden: layer widths must be positive");
    if (width[l] > INT_MAX)
      return sgp_fail(ctx, SGP_EINVAL, "hidden: a layer of %lld units is wider than the %d "
                      "supported", (long long)width[l], INT_MAX);
    if (l < n_layers) P += ((double)width[l] + 1) * (double)width[l + 1];
    sw += (double)width[l];
    wmax = fmax(wmax, (double)width[l]);
  }
  if (skip) P += (double)width[0] * (double)width[n_layers];
  /* training keeps the weights, Adam's two moments, two copies and a gradient
   * (6 P doubles) and per batch row the activations, pre-activations and two
   * backward buffers (2 sum(width) + 2 max(width) doubles) */
  const double need = 8.0 * (6.0 * P + (double)batch_size * (2.0 * sw + 2.0 * wmax)),
               have = sgp_phys_mem_bytes();
  if (P > 9007199254740992.0 || (have > 0 && need > have))
    return sgp_fail(ctx, SGP_ENOMEM, "hidden: a network of %.4g parameters needs about %.3g GB "
                    "to train (batch_size %lld), more than this machine's %.3g GB of memory; "
                    "use fewer hidden units", P, need / 1e9, (long long)batch_size, have / 1e9);
  return SGP_OK;
}

void sgp_valla_mlp_fit_opts_default(sgp_valla_mlp_fit_opts *o)
{
  o->likelihood = SGP_LIK_GAUSSIAN;
  o->iterations = 2000;
  o->batch_size = 100;
  o->lr = 1e-3;
  o->weight_decay = 0.0;
}

int sgp_valla_net_init_random(sgp_ctx *ctx, sgp_valla_net *net)
{
  (void)ctx;
  for (int l = 0; l < net->n_layers; l++) { /* Glorot uniform, zero biases */
    const int64_t in = net->width[l], out = net->width[l + 1];
    const double a = sqrt(6.0 / (double)(in + out));
    for (int64_t k = 0; k < in * out; k++) net->W[l][k] = a * (2 * sgp_rng_uniform(&ctx->rng) - 1);
    for (int64_t k = 0; k < out; k++) net->b[l][k] = 0.0;
  }
  if (net->skip)
    for (int64_t k = 0; k < net->width[0] * net->width[net->n_layers]; k++) net->skip[k] = 0.0;
  return SGP_OK;
}

/* Parameter pointers in the documented order (valla.h: W[l], b[l], ..., skip). */
static double *param(sgp_valla_net *net, int64_t p)
{
  for (int l = 0; l < net->n_layers; l++) {
    const int64_t nw = net->width[l] * net->width[l + 1];
    if (p < nw) return net->W[l] + p;
    p -= nw;
    if (p < net->width[l + 1]) return net->b[l] + p;
    p -= net->width[l + 1];
  }
  return net->skip + p;
}

/* The loss gradient needs the forward pass only; its scratch lives in arena
 * (NULL: malloc) so that the training loop reuses it. */
static int loss_grad(sgp_ctx *ctx, const sgp_valla_net *net, sgp_likelihood lik, sgp_cmat X,
                     const double *y, double *loss, double *grad, valla_arena *arena)
{
  const int L = net->n_layers;
  const int64_t n = X.rows, C = net->width[L];
  valla_cache c;
  int st = valla_cache_forward(ctx, net, X, arena, &c);
  if (st) return st;
  /* R = d loss / d g (n x C), then Hb = d loss / d H[l] backwards */
  int64_t wmax = 1;
  for (int l = 0; l <= L; l++) if (net->width[l] > wmax) wmax = net->width[l];
  double *Hb = valla_arena_alloc(arena, n * wmax), *Hn = valla_arena_alloc(arena, n * wmax);
  if (!Hb || !Hn) { st = sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in mlp_fit"); goto done; }
  double f = 0;
  for (int64_t i = 0; i < n; i++) {
    const double *g = c.G + i;
    if (lik == SGP_LIK_GAUSSIAN) {
      const double r = g[0] - y[i];
      f += r * r;
      Hb[i] = 2 * r / (double)n;
    } else if (lik == SGP_LIK_BERNOULLI) {
      const double u = g[0], p = u >= 0 ? 1 / (1 + exp(-u)) : exp(u) / (1 + exp(u));
      f += y[i] > 0.5 ? (u > 0 ? log1p(exp(-u)) : -u + log1p(exp(u))) : (u > 0 ? u + log1p(exp(-u)) : log1p(exp(u)));
      Hb[i] = (p - y[i]) / (double)n;
    } else {
      double mx = -INFINITY, z = 0;
      for (int64_t k = 0; k < C; k++) if (g[n * k] > mx) mx = g[n * k];
      for (int64_t k = 0; k < C; k++) z += exp(g[n * k] - mx);
      const int64_t yc = (int64_t)y[i];
      f += mx + log(z) - g[n * yc];
      for (int64_t k = 0; k < C; k++) Hb[i + n * k] = (exp(g[n * k] - mx) / z - (k == yc)) / (double)n;
    }
  }
  *loss = f / (double)n;
  if (!grad) goto done;
  for (int64_t k = 0; k < n * C; k++) Hb[k] *= valla_act_d1(net->output, c.H[L - 1][k], c.G[k]);
  int64_t off[64], o = 0;
  for (int l = 0; l < L; l++) { off[l] = o; o += (net->width[l] + 1) * net->width[l + 1]; }
  for (int l = L - 1; l >= 0 && !st; l--) {
    const int64_t in = net->width[l], out = net->width[l + 1];
    st = sgp_gemm(ctx, 'T', 'N', in, out, n, 1.0, c.A[l], n, Hb, n, 0.0, grad + off[l], in);
    for (int64_t k = 0; k < out; k++) {
      double s = 0;
      for (int64_t i = 0; i < n; i++) s += Hb[i + n * k];
      grad[off[l] + in * out + k] = s;
    }
    if (!st && l == L - 1 && net->skip)
      st = sgp_gemm(ctx, 'T', 'N', net->width[0], C, n, 1.0, c.A[0], n, Hb, n, 0.0, grad + o, net->width[0]);
    if (!st && l > 0) {
      st = sgp_gemm(ctx, 'N', 'T', n, in, out, 1.0, Hb, n, net->W[l], in, 0.0, Hn, n);
      for (int64_t k = 0; k < n * in; k++) Hn[k] *= valla_act_d1(net->activation, c.H[l - 1][k], c.A[l][k]);
      double *t = Hb; Hb = Hn; Hn = t;
    }
  }
done:
  valla_arena_free(arena, Hb); valla_arena_free(arena, Hn);
  valla_cache_free(net, &c);
  return st;
}

int valla_mlp_loss_grad(sgp_ctx *ctx, const sgp_valla_net *net, sgp_likelihood lik, sgp_cmat X,
                        const double *y, double *loss, double *grad)
{
  return loss_grad(ctx, net, lik, X, y, loss, grad, NULL);
}

/* All n entries finite. */
static int all_finite(int64_t n, const double *x)
{
  for (int64_t i = 0; i < n; i++) if (!isfinite(x[i])) return 0;
  return 1;
}

static int check_fit_args(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                          const sgp_valla_mlp_fit_opts *o)
{
  const int64_t N = X.rows, D = X.cols, C = net->width[net->n_layers];
  int st;
  if (net->n_layers > 64) return sgp_fail(ctx, SGP_EINVAL, "model: at most 64 layers");
  if ((st = sgp_check_bounded(ctx, "x", X, SGP_MAX_DATA_VALUE)) || (st = sgp_check_bounded(ctx, "y", y, SGP_MAX_DATA_VALUE))) return st;
  if (D != net->width[0])
    return sgp_fail(ctx, SGP_EINVAL, "x has %lld columns but the network expects %lld inputs",
                    (long long)D, (long long)net->width[0]);
  if (y.rows * y.cols != N) return sgp_fail(ctx, SGP_EINVAL, "y must have one value per row of x");
  if ((o->likelihood == SGP_LIK_GAUSSIAN || o->likelihood == SGP_LIK_BERNOULLI) && C != 1)
    return sgp_fail(ctx, SGP_EINVAL, "likelihood needs a network with one output");
  if (o->likelihood != SGP_LIK_GAUSSIAN) {
    const int64_t K = o->likelihood == SGP_LIK_BERNOULLI ? 2 : C;
    for (int64_t i = 0; i < N; i++)
      if (y.data[i] != floor(y.data[i]) || y.data[i] < 0 || y.data[i] > K - 1)
        return sgp_fail(ctx, SGP_EINVAL, "y: label %g at row %lld is outside 0..%lld", y.data[i],
                        (long long)(i + 1), (long long)(K - 1));
  }
  if (o->iterations < 0 || o->batch_size < 1 || !(o->lr > 0) || !(o->weight_decay >= 0))
    return sgp_fail(ctx, SGP_EINVAL, "iterations, batch_size, lr and weight_decay must be valid");
  return sgp_valla_mlp_check_size(ctx, net->n_layers, net->width, net->skip != NULL,
                                  o->batch_size < N ? o->batch_size : N);
}

/* Rows perm[pos..pos+nb) of (X, y) into (Xb, yb). */
static void gather_batch(sgp_cmat X, const double *y, const int64_t *perm, int64_t nb, double *Xb,
                         double *yb)
{
  for (int64_t j = 0; j < X.cols; j++)
    for (int64_t i = 0; i < nb; i++) Xb[i + nb * j] = X.data[perm[i] + X.ld * j];
  for (int64_t i = 0; i < nb; i++) yb[i] = y[perm[i]];
}

static void shuffle(sgp_rng *rng, int64_t *perm, int64_t N)
{
  for (int64_t i = N - 1; i > 0; i--) {
    int64_t j = (int64_t)(sgp_rng_uniform(rng) * (double)(i + 1));
    if (j > i) j = i;
    const int64_t t = perm[i]; perm[i] = perm[j]; perm[j] = t;
  }
}

/* Adam from the network's weights on (X, y); info's losses are those of y. */
static int train(sgp_ctx *ctx, sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                 const sgp_valla_mlp_fit_opts *o, sgp_valla_mlp_fit_info *info)
{
  int st;
  const int64_t N = X.rows, D = X.cols, P = sgp_valla_net_nparam(net), nb = o->batch_size < N ? o->batch_size : N;
  valla_adam adam;
  memset(&adam, 0, sizeof adam);
  valla_arena arena;
  memset(&arena, 0, sizeof arena);
  double *th = sgp_alloc(P), *prev = sgp_alloc(P), *th0 = sgp_alloc(P), *g = sgp_alloc(P), *Xb = sgp_alloc(nb * D), *yb = sgp_alloc(nb);
  int64_t *perm = (int64_t *)malloc((size_t)N * sizeof(int64_t));
  st = (!th || !prev || !th0 || !g || !Xb || !yb || !perm) ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in mlp_fit") : SGP_OK;
  if (!st) st = valla_adam_init(ctx, &adam, P, o->lr, 0.9, 0.999, 1e-8);
  if (!st) st = valla_mlp_loss_grad(ctx, net, o->likelihood, X, y.data, &info->initial_loss, NULL);
  for (int64_t i = 0; i < N && !st; i++) perm[i] = i;
  for (int64_t p = 0; p < P && !st; p++) th0[p] = prev[p] = th[p] = *param(net, p);
  int64_t pos = N;
  for (int64_t it = 0; it < o->iterations && !st; it++) {
    if ((st = sgp_poll_interrupt(ctx))) break;
    if (pos + nb > N) { shuffle(&ctx->rng, perm, N); pos = 0; }
    gather_batch(X, y.data, perm + pos, nb, Xb, yb);
    pos += nb;
    valla_arena_reset(&arena);
    double loss = 0;
    if ((st = loss_grad(ctx, net, o->likelihood, sgp_cmat_of(Xb, nb, D), yb, &loss, g, &arena))) break;
    for (int64_t p = 0; p < P; p++) g[p] += o->weight_decay * th[p];
    memcpy(prev, th, (size_t)P * sizeof(double));
    if (isfinite(loss) && all_finite(P, g)) valla_adam_step(&adam, th, g, NULL);
    if (!isfinite(loss) || !all_finite(P, g) || !all_finite(P, th)) { /* keep the last finite state */
      info->stop = SGP_VALLA_STOP_DIVERGED;
      info->diverged_at = it + 1;
      memcpy(th, prev, (size_t)P * sizeof(double));
    }
    for (int64_t p = 0; p < P; p++) *param(net, p) = th[p];
    if (info->stop == SGP_VALLA_STOP_DIVERGED) break;
    info->iterations = it + 1;
    if ((it + 1) % 100 == 0) sgp_progress(ctx, "mlp_fit", (double)(it + 1) / (double)o->iterations);
  }
  if (!st) st = valla_mlp_loss_grad(ctx, net, o->likelihood, X, y.data, &info->final_loss, NULL);
  if (!st && !isfinite(info->final_loss)) { /* no usable trained state: keep the start */
    if (info->stop != SGP_VALLA_STOP_DIVERGED) info->diverged_at = info->iterations;
    info->stop = SGP_VALLA_STOP_DIVERGED;
    for (int64_t p = 0; p < P; p++) *param(net, p) = th0[p];
    info->final_loss = info->initial_loss;
  }
  if (!st && info->stop == SGP_VALLA_STOP_ITERATIONS && info->final_loss > info->initial_loss)
    info->stop = SGP_VALLA_STOP_LOSS_ROSE;
  valla_arena_destroy(&arena);
  valla_adam_free(&adam);
  free(th); free(prev); free(th0); free(g); free(Xb); free(yb); free(perm);
  return st;
}

/* g -> a g + b on a network with a linear output layer (and skip layer). */
static void affine_output(sgp_valla_net *net, double a, double b)
{
  const int L = net->n_layers - 1;
  const int64_t in = net->width[L], C = net->width[L + 1];
  for (int64_t k = 0; k < in * C; k++) net->W[L][k] *= a;
  for (int64_t k = 0; k < C; k++) net->b[L][k] = a * net->b[L][k] + b;
  if (net->skip)
    for (int64_t k = 0; k < net->width[0] * C; k++) net->skip[k] *= a;
}

/* Gaussian targets are trained on their standardized scale (mean 0, sd 1): the
 * Glorot start and lr then suit any units of y (mcycle's accelerations span about
 * 200; raw, 2000 Adam steps at lr 0.01 cannot grow the output weights that far). The
 * network starts as a map to that scale and is mapped back at the end, so training on
 * a y + b gives a g + b, to rounding; its outputs and losses are those of y
 * (initial_loss = sd^2 times the standardized one: the starting network is sd g0 + m).
 * weight_decay acts on the standardized scale. */
int sgp_valla_mlp_fit(sgp_ctx *ctx, sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                      const sgp_valla_mlp_fit_opts *o, sgp_valla_mlp_fit_info *info)
{
  sgp_valla_mlp_fit_info tmp;
  if (!info) info = &tmp;
  memset(info, 0, sizeof *info);
  int st = check_fit_args(ctx, net, X, y, o);
  if (st || o->likelihood != SGP_LIK_GAUSSIAN || net->output != SGP_ACT_IDENTITY)
    return st ? st : train(ctx, net, X, y, o, info);
  const int64_t N = X.rows;
  double m = 0, v = 0;
  for (int64_t i = 0; i < N; i++) m += y.data[i];
  m /= (double)N;
  for (int64_t i = 0; i < N; i++) v += (y.data[i] - m) * (y.data[i] - m);
  const double sd = v > 0 ? sqrt(v / (double)N) : 1.0;
  double *ys = sgp_alloc(N);
  if (!ys) return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in mlp_fit");
  for (int64_t i = 0; i < N; i++) ys[i] = (y.data[i] - m) / sd;
  st = train(ctx, net, X, sgp_cmat_of(ys, N, 1), o, info);
  affine_output(net, sd, m);
  info->initial_loss *= sd * sd;
  if (!st) st = valla_mlp_loss_grad(ctx, net, o->likelihood, X, y.data, &info->final_loss, NULL);
  free(ys);
  return st;
}
