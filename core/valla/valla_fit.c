/* valla_fit.c -- sgp_valla_fit: argument checks, inducing points (per-class
 * k-means, tags), then exact LLA, the closed form or the Adam loop over
 * minibatches with `learn` masks and validation early stopping. */
#include "valla/valla.h"
#include "api/sgp_options.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows of x that k-means picks inducing points from: all of x, less the val_frac
 * hold-out when Adam runs without a validation set (as sgp_valla_fit splits). */
static int64_t rows_for_kmeans(int64_t N, sgp_cmat Xv, const sgp_valla_opts *o)
{
  const int use_adam = o->method == SGP_VALLA_METHOD_VALLA && !o->closed_form && o->iterations > 0;
  if (!use_adam || Xv.data || !(o->val_frac > 0)) return N;
  const int64_t nv = (int64_t)floor(o->val_frac * (double)N);
  return nv >= 1 && N - nv >= 1 ? N - nv : N;
}

/* The number M of k-means inducing points: 0 is the default, VALLA_DEFAULT_INDUCING
 * or the rows available when fewer; an explicit M must fit those rows. */
static int64_t resolve_n_inducing(int64_t n_inducing, int64_t rows)
{
  if (n_inducing != 0) return n_inducing;
  return rows < VALLA_DEFAULT_INDUCING ? rows : VALLA_DEFAULT_INDUCING;
}

static int check_n_inducing(sgp_ctx *ctx, const sgp_valla_opts *o, int64_t N, int64_t rows,
                            int64_t K)
{
  const int64_t M = resolve_n_inducing(o->n_inducing, rows);
  if (M < 1) return sgp_fail(ctx, SGP_EINVAL, "inducing: must be at least 1 (got %lld)", (long long)M);
  if (M > rows && rows < N)
    return sgp_fail(ctx, SGP_EINVAL, "inducing: M = %lld inducing points exceed the %lld rows of x "
                    "left after the val_frac = %g hold-out (n = %lld); pass validation, lower "
                    "val_frac or inducing", (long long)M, (long long)rows, o->val_frac, (long long)N);
  if (M > rows)
    return sgp_fail(ctx, SGP_EINVAL, "inducing: M = %lld inducing points exceed the n = %lld rows of x",
                    (long long)M, (long long)N);
  if (o->likelihood != SGP_LIK_GAUSSIAN && M < K)
    return sgp_fail(ctx, SGP_EINVAL, "inducing: M = %lld must be at least the number of classes (%lld)",
                    (long long)M, (long long)K);
  return SGP_OK;
}

static int check_args(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                      sgp_cmat Xv, sgp_cmat yv, const sgp_valla_opts *o)
{
  const int64_t C = net->width[net->n_layers], N = X.rows;
  int st;
  if ((st = sgp_check_bounded(ctx, "x", X, SGP_MAX_DATA_VALUE))) return st;
  if (X.cols != net->width[0])
    return sgp_fail(ctx, SGP_EINVAL, "x has %lld columns but the network expects %lld inputs",
                    (long long)X.cols, (long long)net->width[0]);
  if (y.rows * y.cols != N || (y.rows != 1 && y.cols != 1))
    return sgp_fail(ctx, SGP_EINVAL, "y must have one value per row of x (%lld)", (long long)N);
  if ((st = sgp_check_bounded(ctx, "y", y, SGP_MAX_DATA_VALUE))) return st;
  if (C > VALLA_MAX_C)
    return sgp_fail(ctx, SGP_EINVAL, "model: at most %d network outputs are supported", VALLA_MAX_C);
  if (!sgp_lik_valla(o->likelihood))
    return sgp_fail(ctx, SGP_EINVAL, "likelihood must be gaussian, softmax or bernoulli");
  if (sgp_lik_multiclass(o->likelihood) && C < 2)
    return sgp_fail(ctx, SGP_EINVAL, "likelihood: softmax needs at least 2 network outputs");
  if (o->likelihood == SGP_LIK_BERNOULLI && C != 1) /* valla's own coding: one logit */
    return sgp_fail(ctx, SGP_EINVAL, "likelihood: bernoulli needs one logit output");
  if (!sgp_lik_multiclass(o->likelihood) && C != 1)
    return sgp_fail(ctx, SGP_EINVAL, "likelihood: gaussian needs a network with one output (has %lld)", (long long)C);
  const int64_t K = o->likelihood == SGP_LIK_BERNOULLI ? 2 : C;
  for (int pass = 0; pass < 2; pass++) {
    sgp_cmat v = pass ? yv : y;
    if (pass && !yv.data) break;
    if (o->likelihood != SGP_LIK_GAUSSIAN)
      for (int64_t i = 0; i < v.rows * v.cols; i++) {
        const double t = v.data[i];
        if (t != floor(t) || t < 0 || t > K - 1)
          return sgp_fail(ctx, SGP_EINVAL, "%s: label %g at row %lld is outside 0..%lld",
                          pass ? "validation$y" : "y", t, (long long)(i + 1), (long long)(K - 1));
      }
  }
  if (Xv.data) {
    if ((st = sgp_check_bounded(ctx, "validation$x", Xv, SGP_MAX_DATA_VALUE))) return st;
    if (Xv.cols != X.cols) return sgp_fail(ctx, SGP_EINVAL, "validation$x must have %lld columns", (long long)X.cols);
    if (!yv.data || yv.rows * yv.cols != Xv.rows)
      return sgp_fail(ctx, SGP_EINVAL, "validation$y must have one value per row of validation$x");
    if ((st = sgp_check_bounded(ctx, "validation$y", yv, SGP_MAX_DATA_VALUE))) return st;
  }
  const int64_t M = o->inducing.data ? o->inducing.rows : o->n_inducing;
  if (o->method == SGP_VALLA_METHOD_VALLA || o->method == SGP_VALLA_METHOD_ELLA) {
    if (!o->inducing.data && (st = check_n_inducing(ctx, o, N, rows_for_kmeans(N, Xv, o), K)))
      return st;
    if (o->inducing.data) {
      if ((st = sgp_check_bounded(ctx, "inducing", o->inducing, SGP_MAX_DATA_VALUE))) return st;
      if (o->inducing.cols != X.cols)
        return sgp_fail(ctx, SGP_EINVAL, "inducing must have %lld columns", (long long)X.cols);
      if (o->inducing_tags)
        for (int64_t m = 0; m < M; m++)
          if (o->inducing_tags[m] < 0 || o->inducing_tags[m] >= C)
            return sgp_fail(ctx, SGP_EINVAL, "inducing_tags[%lld] is outside 0..%lld", (long long)m, (long long)(C - 1));
    }
  }
  if (!(o->prior_var > 0) || !isfinite(o->prior_var))
    return sgp_fail(ctx, SGP_EINVAL, "prior_var: must be positive and finite (got %g)", o->prior_var);
  if (!isfinite(o->noise)) return sgp_fail(ctx, SGP_EINVAL, "noise: must be finite (got %g)", o->noise);
  if (!(o->lr > 0) || !isfinite(o->lr))
    return sgp_fail(ctx, SGP_EINVAL, "lr: must be positive and finite (got %g)", o->lr);
  if (!(o->alpha >= 0 && o->alpha <= 1))
    return sgp_fail(ctx, SGP_EINVAL, "alpha: must be one number in [0, 1] (got %g)", o->alpha);
  if (o->alpha != 1 && o->likelihood != SGP_LIK_GAUSSIAN)
    return sgp_fail(ctx, SGP_EINVAL, "alpha: other than 1 needs likelihood = \"gaussian\" (got %g)", o->alpha);
  if (o->iterations < 0) return sgp_fail(ctx, SGP_EINVAL, "iterations must be >= 0");
  if (o->batch_size < 1) return sgp_fail(ctx, SGP_EINVAL, "batch_size must be >= 1");
  if (o->eval_every < 1) return sgp_fail(ctx, SGP_EINVAL, "eval_every must be >= 1");
  if (o->patience < 1) return sgp_fail(ctx, SGP_EINVAL, "patience must be >= 1");
  if (o->method == SGP_VALLA_METHOD_ELLA && o->ella_rank < 1)
    return sgp_fail(ctx, SGP_EINVAL, "ella_rank must be >= 1");
  if (!(o->jitter >= 0)) return sgp_fail(ctx, SGP_EINVAL, "jitter must be >= 0");
  if (!(o->val_frac >= 0 && o->val_frac < 1)) return sgp_fail(ctx, SGP_EINVAL, "val_frac must be in [0, 1)");
  if (!(o->beta1 >= 0 && o->beta1 < 1) || !(o->beta2 >= 0 && o->beta2 < 1) || !(o->adam_eps > 0))
    return sgp_fail(ctx, SGP_EINVAL, "beta1, beta2 must be in [0, 1) and adam_eps positive");
  if (o->method == SGP_VALLA_METHOD_LLA && N * C > o->lla_max)
    return sgp_fail(ctx, SGP_EINVAL, "method = \"lla\" needs N*C (%lld) <= lla_max (%lld)",
                    (long long)(N * C), (long long)o->lla_max);
  return SGP_OK;
}

/* Inducing inputs and tags: user locations, or k-means (per class for classification). */
static int init_inducing(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X, sgp_cmat y,
                         const sgp_valla_opts *o)
{
  const int64_t D = fit->D, N = X.rows;
  if (o->inducing.data) {
    fit->M = o->inducing.rows;
    fit->Z = sgp_alloc(fit->M * D);
    fit->tags = (int *)malloc((size_t)fit->M * sizeof(int));
    if (!fit->Z || !fit->tags) return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory");
    for (int64_t m = 0; m < fit->M; m++) {
      fit->tags[m] = o->inducing_tags ? o->inducing_tags[m] : (int)(m % fit->C);
      for (int64_t j = 0; j < D; j++) fit->Z[m + fit->M * j] = o->inducing.data[m + o->inducing.ld * j];
    }
    return SGP_OK;
  }
  const int64_t M = o->n_inducing;
  if (fit->likelihood == SGP_LIK_GAUSSIAN) {
    fit->M = M;
    fit->Z = sgp_alloc(M * D);
    fit->tags = (int *)calloc((size_t)M, sizeof(int));
    if (!fit->Z || !fit->tags) return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory");
    return valla_kmeans(ctx, X, NULL, N, M, (int)o->kmeans_iter, o->kmeans_max, fit->Z, M);
  }
  const int64_t K = fit->n_class, per = M / K;
  int64_t *rows = (int64_t *)malloc((size_t)N * sizeof(int64_t)), *cnt = (int64_t *)calloc((size_t)K, sizeof(int64_t));
  if (!rows || !cnt) { free(rows); free(cnt); return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory"); }
  for (int64_t i = 0; i < N; i++) cnt[(int64_t)y.data[i]]++;
  int64_t Mt = 0;
  for (int64_t c = 0; c < K; c++) Mt += cnt[c] < per ? cnt[c] : per;
  fit->M = Mt;
  fit->Z = sgp_alloc(Mt * D);
  fit->tags = (int *)malloc((size_t)(Mt > 0 ? Mt : 1) * sizeof(int));
  int st = (!fit->Z || !fit->tags) ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory") : SGP_OK;
  int64_t off = 0;
  for (int64_t c = 0; c < K && !st; c++) {
    int64_t nc = 0;
    for (int64_t i = 0; i < N; i++) if ((int64_t)y.data[i] == c) rows[nc++] = i;
    const int64_t k = nc < per ? nc : per;
    if (k == 0) continue;
    double *cent = sgp_alloc(k * D);
    if (!cent) { st = sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory"); break; }
    if (k == nc) /* a class with fewer points contributes all of them */
      for (int64_t m = 0; m < k; m++) for (int64_t j = 0; j < D; j++) cent[m + k * j] = X.data[rows[m] + X.ld * j];
    else
      st = valla_kmeans(ctx, X, rows, nc, k, (int)o->kmeans_iter, o->kmeans_max, cent, k);
    for (int64_t m = 0; m < k && !st; m++) {
      fit->tags[off + m] = fit->likelihood == SGP_LIK_BERNOULLI ? 0 : (int)c;
      for (int64_t j = 0; j < D; j++) fit->Z[off + m + Mt * j] = cent[m + k * j];
    }
    off += k;
    free(cent);
  }
  free(rows); free(cnt);
  return st;
}

/* Rows [i0, i0+n) of idx gathered from X, y into Xb (n x D), yb. */
static void gather(sgp_cmat X, sgp_cmat y, const int64_t *idx, int64_t n, double *Xb, double *yb)
{
  for (int64_t j = 0; j < X.cols; j++)
    for (int64_t i = 0; i < n; i++) Xb[i + n * j] = X.data[idx[i] + X.ld * j];
  for (int64_t i = 0; i < n; i++) yb[i] = y.data[idx[i] * (y.rows == 1 ? y.ld : 1)];
}

static void shuffle(sgp_rng *rng, int64_t *a, int64_t n)
{
  for (int64_t i = n - 1; i > 0; i--) {
    int64_t j = (int64_t)(sgp_rng_uniform(rng) * (double)(i + 1));
    if (j > i) j = i;
    const int64_t t = a[i]; a[i] = a[j]; a[j] = t;
  }
}

/* Parameter vector: lower triangle of L (column by column), omega0, rho, Z. */
static int64_t n_params(const sgp_valla_result *f) { return f->M * (f->M + 1) / 2 + 2 + f->M * f->D; }

static void pack(const sgp_valla_result *f, const double *dL, double dw, double dr, const double *dZ,
                 double *x)
{
  int64_t p = 0;
  for (int64_t j = 0; j < f->M; j++) for (int64_t i = j; i < f->M; i++) x[p++] = dL[i + f->M * j];
  x[p++] = dw;
  x[p++] = dr;
  for (int64_t k = 0; k < f->M * f->D; k++) x[p++] = dZ ? dZ[k] : 0.0;
}

static void unpack(sgp_valla_result *f, const double *x)
{
  int64_t p = 0;
  for (int64_t j = 0; j < f->M; j++) for (int64_t i = j; i < f->M; i++) f->L[i + f->M * j] = x[p++];
  f->log_sigma0 = x[p++];
  f->log_noise = x[p++];
  for (int64_t k = 0; k < f->M * f->D; k++) f->Z[k] = x[p++];
}

/* Phase-1 cache (fixed Z): unscaled K0(X, Z) (N*C x M, row i + N*c),
 * diag k0 (N*C), outputs (N x C) and K0_ZZ, computed once in tiles. */
typedef struct { double *K, *kd, *G, *KZZ; } train_cache;

static void train_cache_free(train_cache *t) { free(t->K); free(t->kd); free(t->G); free(t->KZZ); }

static int train_cache_build(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X, train_cache *t)
{
  const sgp_valla_net *net = &fit->net;
  const int64_t N = X.rows, C = fit->C, M = fit->M, T = N < 1024 ? N : 1024;
  valla_cache cZ;
  memset(&cZ, 0, sizeof cZ);
  t->K = sgp_alloc(N * C * M); t->kd = sgp_alloc(N * C); t->G = sgp_alloc(N * C); t->KZZ = sgp_alloc(M * M);
  double *Kt = sgp_alloc(T * C * M), *dt = sgp_alloc(T * C);
  int st = (!t->K || !t->kd || !t->G || !t->KZZ || !Kt || !dt)
               ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory for the kernel cache") : SGP_OK;
  if (!st) st = valla_cache_build(ctx, net, sgp_cmat_of(fit->Z, M, fit->D), fit->tags, &cZ);
  if (!st) st = valla_ntk_cross(ctx, net, &cZ, &cZ, fit->layers, t->KZZ, M);
  for (int64_t i0 = 0; i0 < N && !st; i0 += T) {
    if ((st = sgp_poll_interrupt(ctx))) break;
    const int64_t nt = N - i0 < T ? N - i0 : T, nr = nt * C;
    sgp_cmat Xt = {X.data + i0, nt, X.cols, X.ld};
    valla_cache cB;
    if ((st = valla_cache_build(ctx, net, Xt, NULL, &cB))) break;
    st = valla_ntk_cross(ctx, net, &cB, &cZ, fit->layers, Kt, nr);
    valla_ntk_diag(ctx, net, &cB, fit->layers, dt);
    for (int64_t c = 0; c < C && !st; c++)
      for (int64_t i = 0; i < nt; i++) {
        const int64_t r = i + nt * c, R = i0 + i + N * c;
        for (int64_t m = 0; m < M; m++) t->K[R + N * C * m] = Kt[r + nr * m];
        t->kd[R] = dt[r];
        t->G[R] = cB.G[r];
      }
    valla_cache_free(net, &cB);
  }
  if (cZ.A) valla_cache_free(net, &cZ);
  free(Kt); free(dt);
  return st;
}

/* Batch rows idx[0..nb) of the cache into K0BZ (nb*C x M), kd0, G (nb x C). */
static void train_cache_gather(const train_cache *t, int64_t N, int64_t C, int64_t M,
                               const int64_t *idx, int64_t nb, double *K, double *kd, double *G)
{
  for (int64_t c = 0; c < C; c++)
    for (int64_t i = 0; i < nb; i++) {
      const int64_t r = i + nb * c, R = idx[i] + N * c;
      for (int64_t m = 0; m < M; m++) K[r + nb * C * m] = t->K[R + N * C * m];
      kd[r] = t->kd[R];
      G[r] = t->G[R];
    }
}

/* All n entries finite. */
static int all_finite(int64_t n, const double *x)
{
  for (int64_t i = 0; i < n; i++) if (!isfinite(x[i])) return 0;
  return 1;
}

/* A parameter vector the fit can use: finite, and prior variance exp(2 omega0) and
 * noise exp(rho) positive normal numbers (a step of lr = 1e3 on log sigma0 makes
 * exp underflow to 0 although the vector is finite). */
static int usable(const sgp_valla_result *f, int64_t P, const double *x)
{
  const int64_t nl = f->M * (f->M + 1) / 2;
  const double s0 = exp(2.0 * x[nl]), s = exp(x[nl + 1]);
  return all_finite(P, x) && s0 >= DBL_MIN && s0 <= DBL_MAX && s >= DBL_MIN && s <= DBL_MAX;
}

/* The minibatch objective rose over the run: the mean m of the last w values
 * (w = min(100, n / 2), at least 10) exceeds the first value, taken at the start,
 * by more than 3 standard errors of that difference, s sqrt(1 + 1/w) with s the
 * standard deviation of the last w values (the minibatch noise). */
static int objective_rose(const double *trace, int64_t n)
{
  const int64_t w = n / 2 < 100 ? n / 2 : 100;
  if (w < 10) return 0;
  const double *t = trace + n - w;
  double m = 0, v = 0;
  for (int64_t i = 0; i < w; i++) m += t[i] / (double)w;
  for (int64_t i = 0; i < w; i++) v += (t[i] - m) * (t[i] - m) / (double)(w - 1);
  return m - trace[0] > 3.0 * sqrt(v * (1.0 + 1.0 / (double)w));
}

/* A step that diverged (non-finite objective, gradient or step, or H = I + L'K L
 * without a Cholesky factor, which exact arithmetic excludes): the fit keeps
 * prev when its covariance can be built (best_iteration = it - 1), else the
 * start x0 (best_iteration = 0); with keep_best the caller restores its best
 * validated state instead. */
static int diverged(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X, int64_t it, const double *prev,
                    const double *x0, int keep_best)
{
  fit->stop = SGP_VALLA_STOP_DIVERGED;
  fit->diverged_at = it;
  fit->iterations = it - 1;
  if (keep_best) return SGP_OK;
  fit->best_iteration = it - 1;
  unpack(fit, prev);
  int st = valla_fit_finalize(ctx, fit, X);
  if (st == SGP_ENOTPD || (!st && !usable(fit, n_params(fit), prev))) {
    unpack(fit, x0);
    fit->best_iteration = 0;
    st = valla_fit_finalize(ctx, fit, X);
  }
  return st;
}

/* State of one Adam run: parameter vectors (current, gradient, best validated,
 * previous step, start), the minibatch and its gradient blocks, which entries
 * Adam moves, the shuffled row order and, with fixed Z, the cached kernels. */
typedef struct {
  int64_t P, nb, pos, worse;
  unsigned learn;
  int want_z, cached, have_val;
  int tune_noise; /* the noise minimizes the validation NLL at each check (noise_fit) */
  double *x, *gx, *best, *prev, *x0, *Xb, *yb, *dL, *dZ;
  unsigned char *mask;
  int64_t *perm;
  double prev_val, best_val;
  valla_adam adam;
  valla_arena arena; /* per-iteration scratch, reused (valla_arena.c) */
  train_cache tc;
  double *cK, *ckd, *cG; /* the batch's rows of tc */
} adam_run;

static void adam_run_free(adam_run *r)
{
  train_cache_free(&r->tc);
  free(r->cK); free(r->ckd); free(r->cG);
  valla_arena_destroy(&r->arena);
  valla_adam_free(&r->adam);
  free(r->x); free(r->gx); free(r->best); free(r->prev); free(r->x0); free(r->Xb); free(r->yb);
  free(r->dL); free(r->dZ); free(r->mask); free(r->perm);
}

/* Adam moves the entries of the parameter blocks that `learn` names. */
static void fill_learn_mask(const sgp_valla_result *fit, unsigned learn, int want_z, int64_t P,
                            unsigned char *mask)
{
  int64_t p = 0;
  const int64_t nl = fit->M * (fit->M + 1) / 2;
  for (; p < nl; p++) mask[p] = (learn & SGP_VALLA_LEARN_A) != 0;
  mask[p++] = (learn & SGP_VALLA_LEARN_PRIOR_VAR) != 0;
  mask[p++] = (learn & SGP_VALLA_LEARN_NOISE) != 0;
  for (; p < P; p++) mask[p] = want_z;
}

/* The run's buffers, the fit's traces and the Adam state. */
static int adam_run_alloc(sgp_ctx *ctx, sgp_valla_result *fit, int64_t N, const sgp_valla_opts *o,
                          adam_run *r)
{
  const int64_t M = fit->M, D = fit->D, P = r->P, nb = r->nb;
  r->x = sgp_alloc(P); r->gx = sgp_alloc(P); r->best = sgp_alloc(P); r->prev = sgp_alloc(P);
  r->x0 = sgp_alloc(P); r->Xb = sgp_alloc(nb * D); r->yb = sgp_alloc(nb);
  r->dL = sgp_alloc(M * M); r->dZ = r->want_z ? sgp_alloc(M * D) : NULL;
  r->mask = (unsigned char *)calloc((size_t)P, 1);
  r->perm = (int64_t *)malloc((size_t)N * sizeof(int64_t));
  fit->trace_obj = sgp_alloc(o->iterations > 0 ? o->iterations : 1);
  const int64_t max_eval = o->iterations / o->eval_every + 2;
  fit->trace_val = sgp_alloc(max_eval);
  fit->trace_val_iter = (int64_t *)malloc((size_t)max_eval * sizeof(int64_t));
  if (!r->x || !r->gx || !r->best || !r->prev || !r->x0 || !r->Xb || !r->yb || !r->dL ||
      (r->want_z && !r->dZ) || !r->mask || !r->perm || !fit->trace_obj || !fit->trace_val ||
      !fit->trace_val_iter)
    return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the optimizer");
  int st = valla_adam_init(ctx, &r->adam, P, o->lr, o->beta1, o->beta2, o->adam_eps);
  if (!st) fill_learn_mask(fit, r->learn, r->want_z, P, r->mask);
  return st;
}

/* Fixed Z: the training kernels are cached once when they fit in cache_max_bytes. */
static int adam_run_cache(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X,
                          const sgp_valla_opts *o, adam_run *r)
{
  const int64_t N = X.rows, M = fit->M, C = fit->C, nb = r->nb;
  const double need = 8.0 * (double)(N * C) * (double)(M + 2) + 8.0 * (double)(nb * C) * (double)(M + 2);
  r->cached = !r->want_z && need <= (double)o->cache_max_bytes;
  if (!r->cached) return SGP_OK;
  r->cK = sgp_alloc(nb * C * M); r->ckd = sgp_alloc(nb * C); r->cG = sgp_alloc(nb * C);
  return (!r->cK || !r->ckd || !r->cG)
             ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory for the kernel cache")
             : train_cache_build(ctx, fit, X, &r->tc);
}

/* Restore the best validated state instead of the last usable one. */
static int keeps_best(const sgp_valla_result *fit, const sgp_valla_opts *o, const adam_run *r)
{
  return r->have_val && o->restore_best && fit->n_eval > 0;
}

/* Iteration it: one Adam step on the next minibatch. *end is set when the run
 * stops here (divergence; the fit then holds the state diverged() chose). */
static int adam_iteration(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X, sgp_cmat y,
                          const sgp_valla_opts *o, adam_run *r, int64_t it, int *end)
{
  const int64_t N = X.rows, nb = r->nb, P = r->P;
  if (r->pos + nb > N) { shuffle(&ctx->rng, r->perm, N); r->pos = 0; }
  gather(X, y, r->perm + r->pos, nb, r->Xb, r->yb);
  r->pos += nb;
  double val = 0;
  int64_t cl = 0;
  valla_kernels pre = {nb, r->cK, r->ckd, r->tc.KZZ, r->cG};
  if (r->cached) train_cache_gather(&r->tc, N, fit->C, fit->M, r->perm + r->pos - nb, nb, r->cK, r->ckd, r->cG);
  valla_arena_reset(&r->arena);
  valla_grad g;
  memset(&g, 0, sizeof g);
  g.dL = r->dL;
  g.dZ = r->dZ;
  int st = valla_objective_a(ctx, fit, sgp_cmat_of(r->Xb, nb, fit->D), r->cached ? &pre : NULL,
                             sgp_cmat_of(r->yb, nb, 1), &val, &g, &cl, &r->arena);
  if (!st) pack(fit, r->dL, g.d_log_sigma0, g.d_log_noise, r->dZ, r->gx);
  memcpy(r->prev, r->x, (size_t)P * sizeof(double));
  if (!st && isfinite(val) && all_finite(P, r->gx)) valla_adam_step(&r->adam, r->x, r->gx, r->mask);
  if (st == SGP_ENOTPD || (!st && !(isfinite(val) && all_finite(P, r->gx) && usable(fit, P, r->x)))) {
    *end = 1;
    return diverged(ctx, fit, X, it, r->prev, r->x0, keeps_best(fit, o, r));
  }
  if (st) return st;
  fit->clamps += cl;
  fit->trace_obj[it - 1] = val;
  fit->iterations = it;
  unpack(fit, r->x);
  return SGP_OK;
}

/* The validation NLL of the current state (its covariance built first); with
 * r->tune_noise the noise is first set to the variance that minimizes it, also in
 * Adam's vector (so that the state checked and the one kept carry it). */
static int validation_nll(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X, sgp_cmat Xv,
                          sgp_cmat yv, adam_run *r, double *nll)
{
  *nll = 0;
  int st = valla_fit_finalize(ctx, fit, X);
  if (!st && r->tune_noise && !(st = valla_noise_from_validation(ctx, fit, Xv, yv)))
    r->x[fit->M * (fit->M + 1) / 2 + 1] = fit->log_noise;
  if (!st) st = valla_nll(ctx, fit, Xv, yv, nll);
  return st;
}

/* nll of iteration it into the traces; a new best state is remembered. */
static void record_nll(sgp_valla_result *fit, adam_run *r, int64_t it, double nll)
{
  fit->trace_val[fit->n_eval] = nll;
  fit->trace_val_iter[fit->n_eval++] = it;
  if (nll < r->best_val) { r->best_val = nll; memcpy(r->best, r->x, (size_t)r->P * sizeof(double)); fit->best_iteration = it; }
}

/* A validation check after iteration it; *end is set on divergence or when
 * patience checks in a row got worse (early stopping). */
static int validation_check(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X, sgp_cmat Xv,
                            sgp_cmat yv, const sgp_valla_opts *o, adam_run *r, int64_t it,
                            int *end)
{
  double nll;
  int st = validation_nll(ctx, fit, X, Xv, yv, r, &nll);
  if (st == SGP_ENOTPD || (!st && !isfinite(nll))) {
    *end = 1;
    return diverged(ctx, fit, X, it, r->prev, r->x0, keeps_best(fit, o, r));
  }
  if (st) return st;
  record_nll(fit, r, it, nll);
  r->worse = nll > r->prev_val ? r->worse + 1 : 0;
  r->prev_val = nll;
  if (r->worse >= o->patience) { fit->stopped_early = 1; fit->stop = SGP_VALLA_STOP_EARLY; *end = 1; }
  return SGP_OK;
}

/* After the loop: the final iterate competes too (without this check, iterations
 * after the last evaluation, all but the first when eval_every >= iterations,
 * would be discarded); then the state kept and the stop reason. */
static int finish_run(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X, sgp_cmat Xv, sgp_cmat yv,
                      const sgp_valla_opts *o, adam_run *r)
{
  int st = SGP_OK;
  const int div = fit->stop == SGP_VALLA_STOP_DIVERGED;
  if (r->have_val && !fit->stopped_early && !div && fit->n_eval > 0 &&
      fit->trace_val_iter[fit->n_eval - 1] != fit->iterations) {
    double nll;
    if (!(st = validation_nll(ctx, fit, X, Xv, yv, r, &nll))) record_nll(fit, r, fit->iterations, nll);
  }
  if (!st && r->have_val && o->restore_best && fit->n_eval > 0) unpack(fit, r->best);
  if (!st && !r->have_val && !div) fit->best_iteration = fit->iterations;
  /* the first check (after iteration 1) may move a tuned noise far from its start,
   * which moves the objective: the trend is judged from the iteration after it */
  const int64_t t0 = r->tune_noise && fit->iterations > 1 ? 1 : 0;
  if (!st && r->learn && fit->stop == SGP_VALLA_STOP_ITERATIONS &&
      objective_rose(fit->trace_obj + t0, fit->iterations - t0))
    fit->stop = SGP_VALLA_STOP_LOSS_ROSE;
  return st;
}

static int adam_loop(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X, sgp_cmat y, sgp_cmat Xv,
                     sgp_cmat yv, const sgp_valla_opts *o)
{
  const int64_t N = X.rows;
  adam_run r;
  memset(&r, 0, sizeof r);
  r.P = n_params(fit);
  r.nb = o->batch_size < N ? o->batch_size : N;
  r.learn = o->learn & (fit->likelihood == SGP_LIK_GAUSSIAN ? 15u : 7u);
  r.want_z = (r.learn & SGP_VALLA_LEARN_INDUCING) != 0;
  r.have_val = Xv.data != NULL && Xv.rows > 0;
  r.tune_noise = r.have_val && (r.learn & SGP_VALLA_LEARN_NOISE) && o->noise_fit == SGP_VALLA_NOISE_VALIDATION;
  if (r.tune_noise) r.learn &= ~(unsigned)SGP_VALLA_LEARN_NOISE; /* not Adam's: set on validation */
  fit->noise_from_val = r.tune_noise;
  int st = adam_run_alloc(ctx, fit, N, o, &r);
  if (!st) st = adam_run_cache(ctx, fit, X, o, &r);
  if (st) goto done;
  for (int64_t i = 0; i < N; i++) r.perm[i] = i;
  r.pos = N; /* forces a shuffle at the first iteration */
  r.prev_val = r.best_val = INFINITY;
  pack(fit, fit->L, fit->log_sigma0, fit->log_noise, fit->Z, r.x);
  memcpy(r.best, r.x, (size_t)r.P * sizeof(double));
  memcpy(r.x0, r.x, (size_t)r.P * sizeof(double));
  int end = 0;
  for (int64_t it = 1; it <= o->iterations; it++) {
    if ((st = sgp_poll_interrupt(ctx))) break;
    if ((st = adam_iteration(ctx, fit, X, y, o, &r, it, &end)) || end) break;
    if (r.have_val && (it - 1) % o->eval_every == 0 &&
        ((st = validation_check(ctx, fit, X, Xv, yv, o, &r, it, &end)) || end))
      break;
    if (it % 100 == 0) sgp_progress(ctx, "valla", (double)it / (double)o->iterations);
  }
  if (!st) st = finish_run(ctx, fit, X, Xv, yv, o, &r);
  fit->kernel_cache = r.cached;
done:
  adam_run_free(&r);
  return st;
}

/* y_mean and y_sd of the gaussian targets (population sd; 1 when y is constant). */
static void standardize_targets(sgp_valla_result *fit, sgp_cmat y)
{
  const int64_t N = y.rows * y.cols;
  double m = 0, v = 0;
  for (int64_t i = 0; i < N; i++) m += y.data[i];
  m /= (double)N;
  for (int64_t i = 0; i < N; i++) v += (y.data[i] - m) * (y.data[i] - m);
  v = sqrt(v / (double)N);
  fit->y_mean = m;
  fit->y_sd = v > 0 ? v : 1.0;
}

/* Copies of the training and validation rows when the fit splits them itself. */
typedef struct { int64_t *idx; double *Xtr, *ytr, *Xva, *yva; } split_bufs;

static void split_bufs_free(split_bufs *b)
{
  free(b->idx); free(b->Xtr); free(b->ytr); free(b->Xva); free(b->yva);
}

/* Without a validation set: a seeded val_frac of the rows is held out (when
 * that leaves both parts non-empty); Xt, yt, Xv, yv then view sp's copies. */
static int hold_out_validation(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X, sgp_cmat y,
                               double val_frac, split_bufs *sp, sgp_cmat *Xt, sgp_cmat *yt,
                               sgp_cmat *Xv, sgp_cmat *yv)
{
  const int64_t N = X.rows, D = fit->D;
  int64_t nv = (int64_t)floor(val_frac * (double)N);
  if (!(nv >= 1 && N - nv >= 1)) return SGP_OK;
  sp->idx = (int64_t *)malloc((size_t)N * sizeof(int64_t));
  sp->Xtr = sgp_alloc((N - nv) * D); sp->ytr = sgp_alloc(N - nv);
  sp->Xva = sgp_alloc(nv * D); sp->yva = sgp_alloc(nv);
  if (!sp->idx || !sp->Xtr || !sp->ytr || !sp->Xva || !sp->yva)
    return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory");
  for (int64_t i = 0; i < N; i++) sp->idx[i] = i;
  shuffle(&ctx->rng, sp->idx, N);
  gather(X, y, sp->idx, nv, sp->Xva, sp->yva);
  gather(X, y, sp->idx + nv, N - nv, sp->Xtr, sp->ytr);
  *Xt = sgp_cmat_of(sp->Xtr, N - nv, D); *yt = sgp_cmat_of(sp->ytr, N - nv, 1);
  *Xv = sgp_cmat_of(sp->Xva, nv, D); *yv = sgp_cmat_of(sp->yva, nv, 1);
  sgp_say(ctx, "valla: holding out %lld training points for validation (optimistic if the "
               "network was trained on them)", (long long)nv);
  return SGP_OK;
}

/* A seeded subsample of val_max validation rows, so that a check's cost does
 * not grow with n; Xv, yv then view sp's copies. */
static int subsample_validation(sgp_ctx *ctx, const sgp_valla_result *fit, int64_t val_max,
                                split_bufs *sp, sgp_cmat *Xv, sgp_cmat *yv)
{
  const int64_t nv = Xv->rows;
  int64_t *vi = (int64_t *)malloc((size_t)nv * sizeof(int64_t));
  double *Xs = sgp_alloc(val_max * fit->D), *ys = sgp_alloc(val_max);
  if (!vi || !Xs || !ys) {
    free(vi); free(Xs); free(ys);
    return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory");
  }
  for (int64_t i = 0; i < nv; i++) vi[i] = i;
  shuffle(&ctx->rng, vi, nv);
  gather(*Xv, *yv, vi, val_max, Xs, ys);
  free(vi); free(sp->Xva); free(sp->yva);
  sp->Xva = Xs; sp->yva = ys;
  *Xv = sgp_cmat_of(sp->Xva, val_max, fit->D); *yv = sgp_cmat_of(sp->yva, val_max, 1);
  return SGP_OK;
}

int sgp_valla_fit(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                  sgp_cmat X_val, sgp_cmat y_val, const sgp_valla_opts *o, sgp_valla_result **out)
{
  *out = NULL;
  int st = check_args(ctx, net, X, y, X_val, y_val, o);
  if (st) return st;
  sgp_valla_opts resolved = *o;   /* n_inducing = 0: the default, sized to the data */
  resolved.n_inducing = resolve_n_inducing(o->n_inducing, rows_for_kmeans(X.rows, X_val, o));
  if (o->n_inducing == 0 && !o->inducing.data && o->method != SGP_VALLA_METHOD_LLA &&
      resolved.n_inducing < VALLA_DEFAULT_INDUCING)
    sgp_say(ctx, "valla: inducing = %lld (the default %d is more than the %lld rows of x "
                 "available for k-means)", (long long)resolved.n_inducing, VALLA_DEFAULT_INDUCING,
            (long long)resolved.n_inducing);
  o = &resolved;
  sgp_valla_result *fit = (sgp_valla_result *)calloc(1, sizeof *fit);
  if (!fit) return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory");
  split_bufs sp;
  memset(&sp, 0, sizeof sp);
  if ((st = sgp_valla_net_copy(ctx, net, &fit->net))) goto fail;
  fit->likelihood = o->likelihood;
  fit->method = o->method;
  fit->D = X.cols;
  fit->C = net->width[net->n_layers];
  fit->n_class = o->likelihood == SGP_LIK_BERNOULLI ? 2 : fit->C;
  fit->alpha = o->alpha;
  fit->y_mean = 0.0;
  fit->y_sd = 1.0;
  if (o->layers) {
    fit->layers = (int *)malloc((size_t)net->n_layers * sizeof(int));
    if (!fit->layers) { st = sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory"); goto fail; }
    memcpy(fit->layers, o->layers, (size_t)net->n_layers * sizeof(int));
  }
  if (o->likelihood == SGP_LIK_GAUSSIAN && o->standardize_y) standardize_targets(fit, y);
  fit->log_sigma0 = 0.5 * log(o->prior_var);
  fit->log_noise = o->noise > 0 ? log(o->noise / (fit->y_sd * fit->y_sd)) : -5.0;

  /* training / validation split */
  sgp_cmat Xt = X, yt = y, Xv = X_val, yv = y_val;
  const int use_adam = o->method == SGP_VALLA_METHOD_VALLA && !o->closed_form && o->iterations > 0;
  if (use_adam && !X_val.data && o->val_frac > 0 &&
      (st = hold_out_validation(ctx, fit, X, y, o->val_frac, &sp, &Xt, &yt, &Xv, &yv)))
    goto fail;
  if (use_adam && Xv.data && o->val_max > 0 && Xv.rows > o->val_max &&
      (st = subsample_validation(ctx, fit, o->val_max, &sp, &Xv, &yv)))
    goto fail;
  fit->N = Xt.rows;

  if (o->method == SGP_VALLA_METHOD_LLA) {
    st = valla_lla_exact(ctx, fit, Xt);
  } else if (o->method == SGP_VALLA_METHOD_ELLA) {
    st = o->inducing.data ? init_inducing(ctx, fit, Xt, yt, o)
                          : valla_ella_pick(ctx, fit, Xt, o->n_inducing);
    if (!st) st = valla_ella(ctx, fit, Xt, o->ella_rank);
  } else {
    if ((st = init_inducing(ctx, fit, Xt, yt, o))) goto fail;
    fit->L = sgp_calloc(fit->M * fit->M);
    if (!fit->L) { st = sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory"); goto fail; }
    for (int64_t i = 0; i < fit->M; i++) fit->L[i + fit->M * i] = 1.0;
    if (o->closed_form) {
      st = valla_closed_form(ctx, fit, Xt, o->jitter);
    } else {
      if (o->init_A == SGP_VALLA_INIT_CLOSED_FORM) { /* warm start L = chol(A* + eps I) */
        if ((st = valla_closed_form(ctx, fit, Xt, o->jitter))) goto fail;
        free(fit->P2);
        fit->P2 = NULL;
        fit->closed_form = 0;
      }
      if (use_adam && (st = adam_loop(ctx, fit, Xt, yt, Xv, yv, o))) goto prior_fail;
      st = valla_fit_finalize(ctx, fit, Xt);
    }
  prior_fail:
    if (st == SGP_ENOTPD) { /* K_ZZ of rank <= #parameters, scaled past the rounding level */
      char why[96];
      snprintf(why, sizeof why, "%.95s", ctx->errmsg);
      st = sgp_fail(ctx, SGP_ENOTPD, "prior_var: %g makes I + L'K_ZZ L (M = %lld inducing points) "
                    "lose positive definiteness to rounding (%s); lower prior_var or inducing",
                    o->prior_var, (long long)fit->M, why);
    }
  }
  if (!st && Xv.data) st = valla_overfit_check(ctx, fit, Xt, yt, Xv, yv);
  if (st) goto fail;
  split_bufs_free(&sp);
  *out = fit;
  return SGP_OK;
fail:
  split_bufs_free(&sp);
  sgp_valla_fit_free(fit);
  return st;
}
