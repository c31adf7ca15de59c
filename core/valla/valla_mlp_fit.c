/* valla_mlp_fit.c -- a small seeded MAP trainer for the generic MLP (Adam with
 * PyTorch-style weight decay: grad += weight_decay * theta), so that examples and
 * tests can produce a trained network without an external framework. Losses are
 * batch means: squared error (gaussian), cross-entropy on the logits (softmax),
 * logistic loss on the one logit (bernoulli). */
#include "valla/valla.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

int valla_mlp_loss_grad(sgp_ctx *ctx, const sgp_valla_net *net, sgp_likelihood lik, sgp_cmat X,
                        const double *y, double *loss, double *grad)
{
  const int L = net->n_layers;
  const int64_t n = X.rows, C = net->width[L];
  valla_cache c;
  int st = valla_cache_build(ctx, net, X, (const int *)NULL, &c);
  if (st) return st;
  /* R = d loss / d g (n x C), then Hb = d loss / d H[l] backwards */
  int64_t wmax = 1;
  for (int l = 0; l <= L; l++) if (net->width[l] > wmax) wmax = net->width[l];
  double *Hb = sgp_alloc(n * wmax), *Hn = sgp_alloc(n * wmax);
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
  free(Hb); free(Hn);
  valla_cache_free(net, &c);
  return st;
}

int sgp_valla_mlp_fit(sgp_ctx *ctx, sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                      const sgp_valla_mlp_fit_opts *o, double *final_loss)
{
  const int64_t N = X.rows, D = X.cols, C = net->width[net->n_layers];
  int st;
  if (net->n_layers > 64) return sgp_fail(ctx, SGP_EINVAL, "model: at most 64 layers");
  if ((st = sgp_check_finite(ctx, "x", X)) || (st = sgp_check_finite(ctx, "y", y))) return st;
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
  const int64_t P = sgp_valla_net_nparam(net), nb = o->batch_size < N ? o->batch_size : N;
  valla_adam adam;
  memset(&adam, 0, sizeof adam);
  double *th = sgp_alloc(P), *g = sgp_alloc(P), *Xb = sgp_alloc(nb * D), *yb = sgp_alloc(nb);
  int64_t *perm = (int64_t *)malloc((size_t)N * sizeof(int64_t));
  st = (!th || !g || !Xb || !yb || !perm) ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in mlp_fit") : SGP_OK;
  if (!st) st = valla_adam_init(ctx, &adam, P, o->lr, 0.9, 0.999, 1e-8);
  for (int64_t i = 0; i < N && !st; i++) perm[i] = i;
  for (int64_t p = 0; p < P && !st; p++) th[p] = *param(net, p);
  int64_t pos = N;
  double loss = NAN;
  for (int64_t it = 0; it < o->iterations && !st; it++) {
    if ((st = sgp_poll_interrupt(ctx))) break;
    if (pos + nb > N) {
      for (int64_t i = N - 1; i > 0; i--) {
        int64_t j = (int64_t)(sgp_rng_uniform(&ctx->rng) * (double)(i + 1));
        if (j > i) j = i;
        const int64_t t = perm[i]; perm[i] = perm[j]; perm[j] = t;
      }
      pos = 0;
    }
    for (int64_t j = 0; j < D; j++)
      for (int64_t i = 0; i < nb; i++) Xb[i + nb * j] = X.data[perm[pos + i] + X.ld * j];
    for (int64_t i = 0; i < nb; i++) yb[i] = y.data[perm[pos + i]];
    pos += nb;
    if ((st = valla_mlp_loss_grad(ctx, net, o->likelihood, sgp_cmat_of(Xb, nb, D), yb, &loss, g))) break;
    for (int64_t p = 0; p < P; p++) g[p] += o->weight_decay * th[p];
    valla_adam_step(&adam, th, g, NULL);
    for (int64_t p = 0; p < P; p++) *param(net, p) = th[p];
    if ((it + 1) % 100 == 0) sgp_progress(ctx, "mlp_fit", (double)(it + 1) / (double)o->iterations);
  }
  if (!st && final_loss) st = valla_mlp_loss_grad(ctx, net, o->likelihood, X, y.data, final_loss, NULL);
  valla_adam_free(&adam);
  free(th); free(g); free(Xb); free(yb); free(perm);
  return st;
}
