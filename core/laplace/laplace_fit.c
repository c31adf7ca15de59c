/* laplace_fit.c -- gp_laplace (IterNCGP): the Newton loop around the inner
 * IterGP solve (laplace_inner.c), from the checks of its arguments to the fit's
 * outputs; each step is made safe by laplace_damping.c. docs/gp_laplace.md. */
#define _POSIX_C_SOURCE 200809L
#include "laplace/laplace_run.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static int all_finite(int64_t n, const double *x)
{
  for (int64_t i = 0; i < n; i++) if (!isfinite(x[i])) return 0;
  return 1;
}

int sgp_laplace_fit(sgp_ctx *ctx, sgp_cmat X, sgp_cmat y, sgp_cmat prior_mean,
                    const sgp_laplace_opts *o, sgp_laplace_result **out)
{
  return sgp_laplace_fit_blocked(ctx, X, y, prior_mean, o, SGP_LAPLACE_UNIT_BLOCK, out);
}

/* ------------------------------------------------------------ the fit, in phases */

typedef struct newton_vectors newton_t;

/* C: n_class, or for softmax with n_class = 0 the largest label (labels whole
 * numbers >= 1, at most n). */
static int n_classes(sgp_ctx *ctx, sgp_cmat y, const sgp_laplace_opts *o, int64_t *Cout)
{
  const int64_t n = y.rows;
  int64_t C = 1;
  if (sgp_lik_multiclass(o->likelihood)) {
    C = o->n_class;
    if (C == 0) {
      double ymax = 0.0;
      for (int64_t i = 0; i < n; i++) {
        if (!(y.data[i] >= 1.0) || y.data[i] != floor(y.data[i]))
          return sgp_fail(ctx, SGP_EINVAL, isfinite(y.data[i])
                          ? "y: softmax labels must be integers in 1..C (element %lld is %g)"
                          : "y: contains NaN or Inf (element %lld is %g)",
                          (long long)(i + 1), y.data[i]);
        if (y.data[i] > ymax) ymax = y.data[i];
      }
      if (ymax > (double)n)
        return sgp_fail(ctx, SGP_EINVAL, "y: has labels up to %g but only n = %lld points; "
                        "softmax labels are 1..C with C <= n", ymax, (long long)n);
      C = (int64_t)ymax;
    }
    if (C < 2 && o->n_class)
      return sgp_fail(ctx, SGP_EINVAL, "n_class: softmax needs at least 2 classes (got %lld)",
                      (long long)C);
    if (C < 2)
      return sgp_fail(ctx, SGP_EINVAL, "y: has C = %lld class; softmax needs labels 1..C, C >= 2",
                      (long long)C);
  }
  *Cout = C;
  return SGP_OK;
}

/* Arguments the table cannot check (shapes, codes set from C) and C, the
 * number of latent functions. */
static int check_fit_args(sgp_ctx *ctx, sgp_cmat X, sgp_cmat y, sgp_cmat prior_mean,
                          const sgp_laplace_opts *o, int64_t *Cout)
{
  int st;
  const int64_t n = X.rows, d = X.cols;
  if ((st = sgp_check_finite(ctx, "x", X))) return st;
  if (y.rows != n || y.cols != 1)
    return sgp_fail(ctx, SGP_EDIM, "y: is %lld x %lld; need %lld x 1", (long long)y.rows,
                    (long long)y.cols, (long long)n);
  /* a kernel not given is resolved by model selection, and checked after it */
  sgp_kernel k = o->kernel;
  static const double one = 1.0;
  if (!k.lengthscale) { k.lengthscale = &one; k.n_lengthscale = 1; }
  if (isnan(k.outputscale)) k.outputscale = 1.0;
  if (isnan(k.alpha)) k.alpha = 1.0;
  if ((st = sgp_kernel_check(ctx, &k, d))) return st;
  if (!sgp_lik_ops_of(o->likelihood))
    return sgp_fail(ctx, SGP_EINVAL, "likelihood: unknown value %d", (int)o->likelihood);
  if (o->policy != SGP_POLICY_CG && o->policy != SGP_POLICY_CHOLESKY &&
      o->policy != SGP_POLICY_AUTO)
    return sgp_fail(ctx, SGP_EINVAL, "policy: unknown value %d", (int)o->policy);
  if (o->residual != SGP_RESIDUAL_EXPLICIT && o->residual != SGP_RESIDUAL_RECURSIVE)
    return sgp_fail(ctx, SGP_EINVAL, "residual: unknown value %d", (int)o->residual);
  if (o->history_trace != SGP_HISTORY_TRACE_AUTO && o->history_trace != SGP_HISTORY_TRACE_ALWAYS)
    return sgp_fail(ctx, SGP_EINVAL, "history_trace: unknown value %d", o->history_trace);
  if (o->max_newton < 1)
    return sgp_fail(ctx, SGP_EINVAL, "max_newton: must be at least 1 (got %d)", o->max_newton);
  if (o->max_iter < 0) /* 0: not given (sgp_laplace_auto_policy) */
    return sgp_fail(ctx, SGP_EINVAL, "max_iter: must be at least 1 (got %d)", o->max_iter);
  if (o->rank < -1)
    return sgp_fail(ctx, SGP_EINVAL, "rank: must be >= 0 or Inf (got %lld)", (long long)o->rank);
  if (!(o->tol >= 0.0) || !isfinite(o->tol))
    return sgp_fail(ctx, SGP_EINVAL, "tol: must be non-negative and finite (got %g)", o->tol);
  if (!(o->inner_atol >= 0.0) || !(o->inner_rtol >= 0.0))
    return sgp_fail(ctx, SGP_EINVAL, "inner_atol: inner_atol and inner_rtol must be >= 0");
  if (!(o->eig_rtol >= 0.0) || !(o->kappa >= 0.0) || !(o->eta_tol >= 0.0))
    return sgp_fail(ctx, SGP_EINVAL, "eig_rtol: eig_rtol, kappa and eta_tol must be >= 0");
  if (o->tile < 0) return sgp_fail(ctx, SGP_EINVAL, "tile: must be positive (got %d)", o->tile);
  if (o->precond_rank < 0)
    return sgp_fail(ctx, SGP_EINVAL, "precond_rank: must be >= 0 (got %d)", o->precond_rank);
  if (o->precond_rank > 0 && sgp_lik_multiclass(o->likelihood))
    return sgp_fail(ctx, SGP_EINVAL,
                    "precond_rank: is only used with a diagonal W (not likelihood = \"softmax\")");
  if ((st = n_classes(ctx, y, o, Cout))) return st;
  const int64_t C = *Cout;
  if (prior_mean.data && (prior_mean.rows != n || prior_mean.cols != C))
    return sgp_fail(ctx, SGP_EDIM, "prior_mean: is %lld x %lld; need %lld x %lld",
                    (long long)prior_mean.rows, (long long)prior_mean.cols, (long long)n,
                    (long long)C);
  if (prior_mean.data && (st = sgp_check_finite(ctx, "prior_mean", prior_mean))) return st;
  if (o->offset.data && (o->offset.rows != n || o->offset.cols != 1))
    return sgp_fail(ctx, SGP_EDIM, "offset: is %lld x %lld; need %lld x 1",
                    (long long)o->offset.rows, (long long)o->offset.cols, (long long)n);
  char list[160];
  if (o->offset.data && !sgp_lik_ops_of(o->likelihood)->takes_offset)
    return sgp_fail(ctx, SGP_EINVAL, "offset: is only used with likelihood = %s",
                    sgp_lik_list(SGP_LIK_FACT_OFFSET, 1, list, sizeof list));
  if (o->trials.data && !sgp_lik_ops_of(o->likelihood)->takes_trials)
    return sgp_fail(ctx, SGP_EINVAL, "trials: is only used with likelihood = %s",
                    sgp_lik_list(SGP_LIK_FACT_TRIALS, 1, list, sizeof list));
  if (o->noise.data && !sgp_lik_has_noise(o->likelihood))
    return sgp_fail(ctx, SGP_EINVAL, "noise: is only used with likelihood = %s (got \"%s\")",
                    sgp_lik_list(SGP_LIK_FACT_NOISE, 1, list, sizeof list),
                    sgp_lik_names[o->likelihood]);
  return SGP_OK;
}

/* The likelihood on contiguous copies of y, offset and noise (R->ycopy). */
static int lik_setup(sgp_ctx *ctx, run_t *R, sgp_cmat y, int64_t C)
{
  const sgp_laplace_opts *o = R->o;
  const int64_t n = y.rows;
  double *ycopy = R->ycopy = sgp_alloc(3 * n);
  if (!ycopy) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  for (int64_t i = 0; i < n; i++) ycopy[i] = y.data[i];
  sgp_lik *lik = &R->lik_own;
  memset(lik, 0, sizeof *lik);
  lik->kind = o->likelihood;
  lik->n = n;
  lik->C = C;
  lik->y = ycopy;
  lik->noise_max = o->noise_max;
  lik->par = sgp_lik_par_of(o);
  lik->trials = o->trials.data; /* the options outlive the run */
  lik->n_trials = o->trials.rows * o->trials.cols;
  if (o->offset.data) {
    for (int64_t i = 0; i < n; i++) ycopy[n + i] = o->offset.data[i];
    lik->offset = ycopy + n;
  }
  if (sgp_lik_has_noise(o->likelihood)) {
    const int64_t nn = o->noise.data ? o->noise.rows * o->noise.cols : 1;
    if (o->noise.data && (o->noise.cols != 1 || (nn != 1 && nn != n)))
      return sgp_fail(ctx, SGP_EDIM, "noise: needs 1 or %lld values", (long long)n);
    for (int64_t i = 0; i < nn; i++) ycopy[2 * n + i] = o->noise.data ? o->noise.data[i] : 1.0;
    lik->noise = ycopy + 2 * n;
    lik->n_noise = nn;
  }
  R->lik = lik;
  return sgp_lik_check(ctx, lik);
}

/* Buffer capacity: the actions a run can keep (per of them per
 * solver iteration). */
static int64_t buffer_cap(const sgp_laplace_opts *o, int64_t NC, int64_t per)
{
  const int64_t step = (int64_t)o->max_iter * per, steps_iter = (int64_t)o->max_newton * step;
  int64_t cap;
  if (!o->recycle || o->rank == 0) cap = step;
  else if (o->rank > 0) cap = o->rank + step;
  else cap = steps_iter;
  if (cap > steps_iter) cap = steps_iter;
  if (o->max_total_iter >= 0 && cap > o->max_total_iter) cap = o->max_total_iter;
  if (cap > NC) cap = NC;
  return cap < 1 ? 1 : cap;
}

/* Class actions: C > 2 (with two classes both centred blocks are the action),
 * while their C times wider solver buffers (S, T, Q, and K Q where it is stored:
 * at most 4 NC cap doubles) fit in a quarter of mem bytes (0: unknown, no limit); larger problems take one
 * action per iteration (n = 2e4, C = 10 at the defaults would need 6.4 GB). */
int64_t sgp_laplace_actions_per_iteration(const sgp_laplace_opts *o, int64_t C, int64_t NC,
                                          double mem)
{
  if (!(o->class_actions && o->policy == SGP_POLICY_CG && sgp_lik_multiclass(o->likelihood) &&
        C > 2))
    return 1;
  if (mem > 0.0 && 32.0 * (double)NC * (double)buffer_cap(o, NC, C) > 0.25 * mem) return 1;
  return C;
}

/* Unit-vector actions (cholesky policy, or the cg fill): blocks of kernel
 * columns, the prepared inputs and the point order. */
static int units_setup(sgp_ctx *ctx, run_t *R, sgp_cmat X, int unit_block, int64_t cap)
{
  const sgp_laplace_opts *o = R->o;
  const int64_t n = X.rows, NC = R->it.NC;
  int st;
  int64_t bmax = unit_block < 1 ? 1 : unit_block;
  const int64_t mem_cols = (int64_t)8000000 / NC; /* block scratch <= ~128 MB */
  if (bmax > mem_cols) bmax = mem_cols > 1 ? mem_cols : 1;
  if (bmax > cap) bmax = cap;
  if (o->policy == SGP_POLICY_CHOLESKY && unit_block <= 1) bmax = 1; /* reference path */
  R->bmax = bmax;
  R->bidx = (int64_t *)malloc((size_t)bmax * sizeof(int64_t));
  R->bhist = sgp_alloc(4 * bmax);
  R->bws = sgp_laplace_big_alloc(sgp_unit_block_ws(NC, bmax, cap));
  if (!R->bidx || !R->bhist || !R->bws) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  if ((st = sgp_column_means(ctx, X, &R->center))) return st;
  if ((st = sgp_kprep_init(ctx, &o->kernel, X, R->center, &R->prep, "x"))) return st;
  R->perm = (int64_t *)malloc((size_t)n * sizeof(int64_t));
  if (!R->perm) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  for (int64_t i = 0; i < n; i++) R->perm[i] = i;
  if (o->random_order)
    for (int64_t i = n - 1; i > 0; i--) {
      const int64_t j = (int64_t)(sgp_rng_next(&ctx->rng) % (uint64_t)(i + 1));
      const int64_t tmp = R->perm[i]; R->perm[i] = R->perm[j]; R->perm[j] = tmp;
    }
  return SGP_OK;
}

/* The operator, the solver state and every work vector of the run. */
static int run_setup(sgp_ctx *ctx, run_t *R, sgp_cmat X, int64_t C, int unit_block)
{
  const sgp_laplace_opts *o = R->o;
  const int64_t n = X.rows, NC = n * C;
  int st;
  /* operator on X (shared kernel: K V = K_x V for an N x C block) */
  sgp_dense_op_opts dopts;
  sgp_dense_op_opts_default(&dopts);
  dopts.tile = o->tile;
  dopts.cache_bytes = o->kernel_cache_bytes;
  if ((st = sgp_op_dense_kernel(ctx, &o->kernel, X, &dopts, &R->op_own, NULL))) return st;
  R->op = &R->op_own;
  R->per = sgp_laplace_actions_per_iteration(o, C, NC, sgp_phys_mem_bytes());
  const int64_t step = (int64_t)o->max_iter * R->per, cap = buffer_cap(o, NC, R->per);
  const int64_t steps_iter = (int64_t)o->max_newton * step;
  R->hist_cap = steps_iter;
  if (o->max_total_iter >= 0 && R->hist_cap > o->max_total_iter) R->hist_cap = o->max_total_iter;
  R->hist_scale = (double)NC * o->kernel.outputscale;
  R->cap_max = cap;
  /* start small and grow geometrically between Newton steps */
  if ((st = sgp_itergp_init(ctx, &R->it, n, C, cap < step ? cap : step))) return st;
  if (R->per > 1 && !(R->cls = sgp_alloc(2 * NC)))
    return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  double *vec = R->vec = sgp_alloc(6 * NC + 2 * cap + 13 * NC);
  if (!vec) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  R->res = vec; R->s = vec + NC; R->t = vec + 2 * NC; R->z = vec + 3 * NC; R->d = vec + 4 * NC;
  R->kd = vec + 5 * NC; R->wr = vec + 6 * NC; R->gw = R->wr + cap;
  newton_t *N = &R->nv;
  N->fcur = R->gw + cap; N->g = N->fcur + NC; N->grad = N->g + NC; N->delta = N->grad + NC;
  N->nd = N->delta + NC; N->b = N->nd + NC; N->v = N->b + NC; N->Kv = N->v + NC;
  N->vprev = N->Kv + NC; N->ftry = N->vprev + NC; N->ndtry = N->ftry + NC;
  R->scratch = N->ndtry + NC;
  R->zsur = R->scratch + NC;
  const double fs = sgp_laplace_latent_scale(o->likelihood, o->kernel.outputscale);
  R->tol = o->tol * fs;
  R->atol = o->inner_atol * fs;
  /* truncated solves of a non-Gaussian likelihood: globalized steps (a Gaussian
   * one's Newton steps continue one IterGP run, whose posterior is the answer) */
  if (o->damping && (int64_t)o->max_iter < NC && !sgp_lik_has_noise(o->likelihood))
    R->sub_k = step < SUBSPACE_ACTIONS ? step : SUBSPACE_ACTIONS;
  if (o->policy == SGP_POLICY_CG && o->precond_rank > 0 &&
      (st = sgp_laplace_precond_new(ctx, &o->kernel, X, o->precond_rank, &R->pc)))
    return st;
  /* cap >= NC: recycled actions can span everything, and solve_end then
   * rebuilds the exact state from kernel columns (R->prep) */
  if (o->policy == SGP_POLICY_CHOLESKY || (int64_t)o->max_iter >= NC || cap >= NC)
    return units_setup(ctx, R, X, unit_block, cap);
  return sgp_itergp_kq_implicit(ctx, &R->it); /* K Q = T G: one NC x cap buffer less */
}

static void run_free(run_t *R)
{
  sgp_op_destroy(&R->op_own);
  sgp_itergp_free(&R->it);
  sgp_kprep_free(&R->prep);
  free(R->perm);
  free(R->bidx);
  free(R->bhist);
  free(R->bws);
  free(R->center);
  free(R->vec);
  free(R->ycopy);
  free(R->cls);
  sgp_laplace_precond_free(R->pc);
}

/* Softmax: the first class in 1..C that no label names (0: every class has
 * points); its latent keeps the prior, and a user with gaps in the labels should
 * hear of it. */
static int64_t empty_class(const sgp_lik *lik)
{
  if (!sgp_lik_multiclass(lik->kind)) return 0;
  unsigned char *seen = (unsigned char *)calloc((size_t)lik->C, 1);
  if (!seen) return 0;
  for (int64_t i = 0; i < lik->n; i++) seen[(int64_t)lik->y[i] - 1] = 1;
  int64_t first = 0;
  for (int64_t c = 0; c < lik->C && !first; c++) if (!seen[c]) first = c + 1;
  free(seen);
  return first;
}

/* A fit with its arrays allocated, the kernel copied and the prior mean set. */
static int fit_new(sgp_ctx *ctx, const run_t *R, int64_t n, int64_t d, sgp_cmat prior_mean,
                   sgp_laplace_result **out)
{
  const sgp_laplace_opts *o = R->o;
  const int64_t C = R->it.C, NC = n * C;
  sgp_laplace_result *fit = *out = (sgp_laplace_result *)calloc(1, sizeof *fit);
  if (!fit) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  fit->n = n; fit->d = d; fit->C = C; fit->likelihood = o->likelihood;
  fit->kernel = o->kernel;
  fit->lengthscale = sgp_alloc(o->kernel.n_lengthscale);
  fit->m = sgp_calloc(NC); fit->f = sgp_alloc(NC); fit->var = sgp_alloc(NC);
  fit->weights = sgp_alloc(NC); fit->flin = sgp_alloc(NC); fit->noise_data = sgp_alloc(NC);
  if (!fit->lengthscale || !fit->m || !fit->f || !fit->var || !fit->weights ||
      !fit->flin || !fit->noise_data ||
      sgp_laplace_history_alloc(&fit->history, R->hist_cap, o->max_newton))
    return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  memcpy(fit->lengthscale, o->kernel.lengthscale,
         (size_t)o->kernel.n_lengthscale * sizeof(double));
  fit->kernel.lengthscale = fit->lengthscale;
  fit->noise = sgp_lik_has_noise(o->likelihood) ? R->lik->noise[0] : 0.0;
  for (int64_t c = 0; c < C; c++) /* the given prior mean plus the constant one */
    for (int64_t i = 0; i < n; i++)
      fit->m[i + c * n] = (prior_mean.data ? prior_mean.data[i + c * prior_mean.ld] : 0.0) +
                          (o->mean ? o->mean[o->n_mean == 1 ? 0 : c] : 0.0);
  return SGP_OK;
}

/* O10: the history row of Newton step i, and the progress report. */
static void step_record(sgp_ctx *ctx, run_t *R, sgp_laplace_result *fit, int i, double psi,
                        double delta_i, double err_i, int inner_reason, int64_t kp0)
{
  sgp_laplace_history *h = &fit->history;
  h->st_psi[i] = psi;
  h->st_delta[i] = delta_i;
  h->st_mode_err[i] = err_i;
  h->st_inner_stop[i] = inner_reason;
  h->st_kprod[i] = R->kprod - kp0;
  h->st_dropped[i] = R->it.dropped;
  h->st_time[i] = sgp_clock() - R->t0;
  h->n_step = i + 1;
  fit->newton_steps = i + 1;
  sgp_say(ctx, "gp_laplace: Newton step %d: %lld iterations (%s), delta %.3g, mode error <= %.3g",
          i + 1, (long long)R->J, sgp_laplace_stop_name(inner_reason), delta_i, err_i);
  sgp_progress(ctx, "gp_laplace", (double)(i + 1) / (double)R->o->max_newton);
}

/* O7, O9: the relative step |g_{i+1} - g_i| / |g_{i+1}|; then the new iterate
 * f_{i+1} = m + K v becomes the current one (g = K v). */
static double take_step(run_t *R, sgp_laplace_result *fit, const double *m)
{
  newton_t *N = &R->nv;
  const int64_t NC = R->it.NC;
  double dn = 0.0, gn = 0.0;
  for (int64_t q = 0; q < NC; q++) {
    const double dq = N->Kv[q] - N->g[q];
    dn += dq * dq;
    gn += N->Kv[q] * N->Kv[q];
  }
  memcpy(fit->flin, N->fcur, (size_t)NC * sizeof(double));
  memcpy(fit->noise_data, N->nd, (size_t)NC * sizeof(double));
  memcpy(N->g, N->Kv, (size_t)NC * sizeof(double));
  for (int64_t q = 0; q < NC; q++) N->fcur[q] = N->Kv[q] + m[q];
  return gn > 0 ? sqrt(dn / gn) : (dn > 0 ? INFINITY : 0.0);
}

/* Softmax: the Newton step on the per-point sums, v, K v <- P v, P K v (P the
 * centring; K commutes with it). There Psi = -1/2 (f - m)'K^{-1}(f - m) (the
 * likelihood ignores per-point constants), whose Newton step lands on its peak,
 * (I - P)(f - m) = 0; the W^+ iteration instead keeps the sums of K v (K^ = K
 * on them: v = K^{-1} b leaves them as they were), so what unit actions (not
 * centred: the cholesky policy) or rounding in an ill-conditioned K put there
 * would stay. Psi(P v) >= Psi(v) (the quadratic term splits, the likelihood is
 * unchanged), the probabilities are unchanged, and the cg policy's centred
 * actions keep v centred up to rounding. */
static void sums_step(const run_t *R, double *v, double *Kv)
{
  if (!sgp_lik_multiclass(R->lik->kind)) return;
  sgp_laplace_center_classes(R->it.n, R->it.C, v);
  sgp_laplace_center_classes(R->it.n, R->it.C, Kv);
}

/* One Newton step i (O3-O11): *stop is set when the run ends here (converged,
 * diverged, stalled, budget, time); *have = 1 once a step was taken. */
static int newton_step(sgp_ctx *ctx, run_t *R, sgp_laplace_result *fit, int i, int *stop,
                       int *inner_reason, int *have, int *still, double *prev_delta)
{
  const sgp_laplace_opts *o = R->o;
  newton_t *N = &R->nv;
  const int64_t NC = R->it.NC, kp0 = R->kprod, J0 = R->J;
  const double *m = fit->m;
  int st;
  R->newton = i;
  /* O3-O4 */
  double ll;
  sgp_lik_eval(R->lik, N->fcur, &ll, N->grad, N->delta, N->nd);
  const double psi = ll - 0.5 * sgp_dot(NC, N->v, N->g);
  for (int64_t q = 0; q < NC; q++) N->b[q] = N->g[q] + N->delta[q];
  if (!all_finite(NC, N->b) || !all_finite(NC, N->nd)) { *stop = SGP_STOP_DIVERGED; return SGP_OK; }
  double err_i, err_next = INFINITY;
  /* the K-norm bound costs a K product: near convergence only */
  if ((st = sgp_laplace_mode_bound(ctx, R, N->grad, N->v, N->g, N->nd, *prev_delta <= 1e-3, &err_i)))
    return st;
  /* O5 */
  if (!o->recycle || o->rank == 0) { R->it.B = R->it.r = 0; R->kappa = 0; }
  /* O6 */
  int bad = 0;
  memcpy(N->vprev, N->v, (size_t)NC * sizeof(double));
  if ((st = sgp_laplace_inner(ctx, R, N->b, N->nd, N->v, N->Kv, inner_reason, &bad))) return st;
  if (bad || !all_finite(NC, N->v) || !all_finite(NC, N->Kv)) {
    /* keep the last finite state: weights of the previous step, no root */
    memcpy(N->v, N->vprev, (size_t)NC * sizeof(double));
    R->it.B = R->it.r = 0;
    *stop = SGP_STOP_DIVERGED;
    return SGP_OK;
  }
  sums_step(R, N->v, N->Kv);
  /* O8 damping; a truncated solve: the best step in its subspace */
  if (R->sub_k > 0 && *inner_reason != SGP_STOP_RESID) {
    if ((st = sgp_laplace_damped_subspace(ctx, R, m, N->g, N->vprev, psi, N->v, N->Kv))) return st;
    sums_step(R, N->v, N->Kv); /* the basis holds uncentred actions */
  } else if (o->damping) {
    sgp_laplace_damped_step(R->lik, NC, m, N->g, N->vprev, psi, N->v, N->Kv, N->ftry, N->ndtry);
  }
  const double delta_i = take_step(R, fit, m);
  *have = 1;
  if (err_i <= R->tol) { /* the posterior's linearization point is verified: f_{i+1}? */
    sgp_lik_eval(R->lik, N->fcur, NULL, N->grad, NULL, N->ndtry);
    if ((st = sgp_laplace_mode_bound(ctx, R, N->grad, N->v, N->g, N->ndtry, 1, &err_next))) return st;
  }
  step_record(ctx, R, fit, i, psi, delta_i, err_i, *inner_reason, kp0);
  *prev_delta = delta_i;
  if ((st = sgp_poll_interrupt(ctx))) return st;
  /* O11 */
  if (sgp_lik_has_noise(o->likelihood) && *inner_reason == SGP_STOP_RESID)
    *stop = SGP_STOP_CONVERGED;
  /* converged: the linearization point f_i and the returned f_{i+1} both
   * within tol of the mode */
  else if (err_i <= R->tol && err_next <= R->tol) *stop = SGP_STOP_CONVERGED;
  if (*stop) return SGP_OK;
  /* stalled: no movement, twice, and nothing that would change the next solve
   * (actions kept for it by recycling) */
  const int kept = o->recycle && o->rank != 0 && R->J > J0;
  *still = delta_i <= 64.0 * DBL_EPSILON && !kept ? *still + 1 : 0;
  if (*still >= 2) *stop = SGP_STOP_STALLED;
  else if (o->max_total_iter >= 0 && R->J >= o->max_total_iter) *stop = SGP_STOP_BUDGET;
  else if (R->deadline > 0 && sgp_clock() >= R->deadline) *stop = SGP_STOP_TIME;
  return SGP_OK;
}

/* Outputs: f, weights, the root Q and var = s - rowsums((K Q)^2) (K Q
 * in the work buffer: kept current by the inner loop, else computed; in the
 * exact mode only its row sums, from the Cholesky factor of the last step's K^).
 * The operator (a cached K) goes first, so that the copy of X for predictions
 * never coexists with it (peak memory). */
static int fit_finish(sgp_ctx *ctx, run_t *R, sgp_laplace_result *fit, sgp_cmat X, int stop,
                      int inner_reason, int have)
{
  const sgp_laplace_opts *o = R->o;
  const int64_t n = X.rows, d = X.cols, NC = R->it.NC;
  int st;
  sgp_op_destroy(&R->op_own);
  fit->X = sgp_alloc(n * d);
  if (!fit->X) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  for (int64_t j = 0; j < d; j++)
    for (int64_t i = 0; i < n; i++) fit->X[i + j * n] = X.data[i + j * X.ld];
  fit->stop_reason = stop;
  fit->inner_stop_reason = inner_reason;
  fit->converged = stop == SGP_STOP_CONVERGED;
  fit->iterations = R->J;
  fit->kernel_products = R->kprod;
  if (!have) memset(fit->flin, 0, (size_t)NC * sizeof(double));
  memcpy(fit->f, R->nv.fcur, (size_t)NC * sizeof(double));
  memcpy(fit->weights, R->nv.v, (size_t)NC * sizeof(double));
  const int64_t r = have ? R->it.r : 0;
  fit->r = r;
  for (int64_t q = 0; q < NC; q++) fit->var[q] = o->kernel.outputscale;
  if (r > 0) {
    int done = 0;
    if ((st = sgp_itergp_kq_exact(ctx, &R->it, R->lik, fit->noise_data, R->z, &done))) return st;
    fit->root = R->it.Q; /* the solver's root buffer (NC x cap) becomes the fit's */
    R->it.Q = NULL;
    if (R->it.cap > r) { /* a failed shrink keeps the larger buffer */
      double *q = (double *)realloc(fit->root, (size_t)(NC * r) * sizeof(double));
      if (q) fit->root = q;
    }
    if (!done && (st = sgp_itergp_kq_rowsq(ctx, &R->it, R->z))) return st;
    for (int64_t q = 0; q < NC; q++) fit->var[q] -= R->z[q];
  } else {
    fit->root = sgp_alloc(1);
    if (!fit->root) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  }
  if ((st = sgp_laplace_check_fit_finite(ctx, fit))) return st;
  /* s - |K Q|^2 row by row: r + 1 terms of total size 2 s - var */
  const double s2 = o->kernel.outputscale;
  for (int64_t q = 0; q < NC; q++)
    fit->var[q] = sgp_variance_resolved(fit->var[q], 2.0 * s2 - fit->var[q], r,
                                        &fit->var_unresolved);
  return SGP_OK;
}

int sgp_laplace_fit_blocked(sgp_ctx *ctx, sgp_cmat X, sgp_cmat y, sgp_cmat prior_mean,
                            const sgp_laplace_opts *o, int unit_block,
                            sgp_laplace_result **out)
{
  if (!out) return sgp_fail(ctx, SGP_EINVAL, "out: must not be NULL");
  *out = NULL;
  if (!o) return sgp_fail(ctx, SGP_EINVAL, "opts: must not be NULL");
  int64_t C = 1;
  int st = check_fit_args(ctx, X, y, prior_mean, o, &C);
  if (st) return st;
  sgp_laplace_result *fit = NULL;
  run_t R;
  memset(&R, 0, sizeof R);
  R.o = o;
  sgp_laplace_opts ro;
  sgp_laplace_hyper hyper;
  memset(&hyper, 0, sizeof hyper);
  /* the inputs the kernel sees (option scale; laplace_scale.c): Z, or X itself */
  sgp_laplace_result scl;
  memset(&scl, 0, sizeof scl);
  double *Z = NULL;
  const sgp_cmat Xraw = X;
  if ((st = sgp_laplace_scale_setup(ctx, X, o, &scl)) ||
      (st = sgp_laplace_standardize(ctx, X, scl.centre, scl.scale, &Z)))
    goto cleanup;
  if (Z) X = sgp_cmat_of(Z, X.rows, X.cols);
  if ((st = lik_setup(ctx, &R, y, C))) goto cleanup;
  /* time_limit bounds the whole call: the learning and the Newton loop */
  R.deadline = o->time_limit >= 0 ? sgp_clock() + fmax(o->time_limit, 1e-9) : 0.0;
  if ((st = sgp_laplace_select(ctx, X, &R.lik_own, o, R.deadline, &ro, &hyper))) goto cleanup;
  /* the policy that runs: the exact evidence was evaluated where it has no standard error */
  int policy = 0, max_iter = 0;
  char reason[sizeof fit->policy_reason];
  sgp_laplace_auto_policy(o, X.rows, C, hyper.requested && isfinite(hyper.loglik) &&
                          hyper.loglik_se == 0.0, sgp_phys_mem_bytes(), &policy, &max_iter,
                          reason, sizeof reason);
  ro.policy = (sgp_policy)policy;
  ro.max_iter = max_iter;
  R.o = o = &ro;
  if ((st = sgp_kernel_check(ctx, &o->kernel, X.cols))) goto cleanup;
  if ((st = run_setup(ctx, &R, X, C, unit_block))) goto cleanup;
  if ((st = fit_new(ctx, &R, X.rows, X.cols, prior_mean, &fit))) goto cleanup;
  fit->policy = policy;
  fit->max_iter = max_iter;
  memcpy(fit->policy_reason, reason, sizeof reason);
  fit->hyper = hyper; /* the fit owns it now */
  memset(&hyper, 0, sizeof hyper);
  fit->centre = scl.centre; /* and the scaling */
  fit->scale = scl.scale;
  fit->scaled = scl.scaled;
  memcpy(fit->scale_note, scl.scale_note, sizeof scl.scale_note);
  scl.centre = scl.scale = NULL;
  sgp_laplace_scale_note_lengthscale(fit);
  fit->empty_class = empty_class(R.lik);
  R.h = &fit->history;
  R.t0 = sgp_clock();
  /* O1 */
  const int64_t NC = R.it.NC;
  memcpy(R.nv.fcur, fit->m, (size_t)NC * sizeof(double));
  memset(R.nv.g, 0, (size_t)NC * sizeof(double));
  memset(R.nv.v, 0, (size_t)NC * sizeof(double));
  int stop = 0, inner_reason = SGP_STOP_NONE, have = 0, still = 0;
  double prev_delta = INFINITY;
  for (int i = 0; i < o->max_newton && !stop; i++)
    if ((st = newton_step(ctx, &R, fit, i, &stop, &inner_reason, &have, &still, &prev_delta)))
      goto cleanup;
  /* the fit keeps the inputs as given: predict standardizes them with new ones */
  if ((st = fit_finish(ctx, &R, fit, Xraw, stop ? stop : SGP_STOP_MAXNEWTON, inner_reason, have)))
    goto cleanup;
  *out = fit;
  fit = NULL;
cleanup:
  sgp_laplace_fit_free(fit);
  sgp_hyper_free(&hyper);
  run_free(&R);
  free(scl.centre);
  free(scl.scale);
  free(Z);
  return st;
}
