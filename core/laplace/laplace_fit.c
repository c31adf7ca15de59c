/* laplace_fit.c -- gp_laplace (IterNCGP): the IterGP inner loop (spec 3.4, policies
 * 3.5, stopping 3.6, safeguards 3.7) and the Newton outer loop (3.2), outputs 4.1. */
#define _POSIX_C_SOURCE 200809L
#include "laplace/lik_table.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The scale the absolute tolerances (tol, inner_atol) are in units of: a
 * gaussian latent field is in y's units, so the prior's standard deviation
 * sqrt(outputscale) (a fit on c y with scales c^2 is then c times the fit on y,
 * the solver taking the same actions); the other likelihoods' link fixes the
 * latent scale (a logit or log rate), so 1. */
double sgp_laplace_latent_scale(sgp_likelihood lik, double outputscale)
{
  return sgp_lik_has_noise(lik) && outputscale > 0.0 ? sqrt(outputscale) : 1.0;
}

void sgp_laplace_opts_default(sgp_laplace_opts *o)
{
  memset(o, 0, sizeof *o);
  o->likelihood = SGP_LIK_BERNOULLI;
  sgp_lik_par_defaults(o);
  o->noise = sgp_cmat_of(NULL, 0, 0); /* gaussian: 1 */
  o->offset = sgp_cmat_of(NULL, 0, 0);
  o->kernel.kind = SGP_KERNEL_RBF;
  o->kernel.lengthscale = NULL;  /* not given: learned (model selection) */
  o->kernel.n_lengthscale = 1;  /* when a lengthscale pointer is set */
  o->kernel.outputscale = NAN;
  o->kernel.alpha = 1.0;
  o->policy = SGP_POLICY_CG;
  o->max_newton = 20;
  o->max_iter = 5;
  o->rank = -1;
  o->tol = 1e-6;
  o->n_class = 0; /* softmax: the largest label */
  o->recycle = 1;
  o->max_total_iter = -1;
  o->time_limit = -1.0;
  o->inner_atol = 1e-5;
  o->inner_rtol = 1e-5;
  o->eta_tol = 0.0;
  o->eig_rtol = 1e-12;
  o->kappa = 0.0;
  o->noise_max = 1e12;
  o->residual = SGP_RESIDUAL_RECURSIVE;
  o->damping = 1;
  o->random_order = 0;
  o->kernel_cache_bytes = (size_t)2 << 30;
  o->mean = NULL;
  o->n_mean = 0;
  o->learn = SGP_LEARN_AUTO; /* spec §6: what is not given is learned */
  o->optim_max_iter = 100;
  o->restarts = 0;
  o->evidence = SGP_EVIDENCE_AUTO;
  o->probes = 32;
  o->precond_rank = 0;
  o->class_actions = 1;
  o->history_trace = SGP_HISTORY_TRACE_AUTO;
  o->tile = SGP_DEFAULT_TILE;
}

const char *sgp_laplace_stop_name(int reason)
{
  switch (reason) {
  case SGP_STOP_RESID: return "residual";
  case SGP_STOP_MAXITER: return "max_iter";
  case SGP_STOP_BUDGET: return "budget";
  case SGP_STOP_BREAKDOWN: return "breakdown";
  case SGP_STOP_EXHAUSTED: return "exhausted";
  case SGP_STOP_CONVERGED: return "converged";
  case SGP_STOP_MAXNEWTON: return "max_newton";
  case SGP_STOP_DIVERGED: return "diverged";
  case SGP_STOP_TIME: return "time_limit";
  case SGP_STOP_STALLED: return "stalled";
  case SGP_STOP_STAGNATED: return "stagnated";
  default: return "none";
  }
}

static void history_free(sgp_laplace_history *h)
{
  free(h->it_newton); free(h->it_iter); free(h->it_total); free(h->it_buffer);
  free(h->it_rank); free(h->it_resid); free(h->it_rel_resid); free(h->it_alpha);
  free(h->it_eta); free(h->it_trace); free(h->it_time);
  free(h->st_psi); free(h->st_delta); free(h->st_mode_err); free(h->st_inner_stop); free(h->st_kprod);
  free(h->st_dropped); free(h->st_time);
  memset(h, 0, sizeof *h);
}

static int history_alloc(sgp_laplace_history *h, int64_t ni, int64_t ns)
{
  memset(h, 0, sizeof *h);
  if (ni < 1) ni = 1;
  if (ns < 1) ns = 1;
#define HA(p, n) ((p) = calloc((size_t)(n), sizeof *(p)))
  HA(h->it_newton, ni); HA(h->it_iter, ni); HA(h->it_total, ni); HA(h->it_buffer, ni);
  HA(h->it_rank, ni); HA(h->it_resid, ni); HA(h->it_rel_resid, ni); HA(h->it_alpha, ni);
  HA(h->it_eta, ni); HA(h->it_trace, ni); HA(h->it_time, ni);
  HA(h->st_psi, ns); HA(h->st_delta, ns); HA(h->st_mode_err, ns); HA(h->st_inner_stop, ns); HA(h->st_kprod, ns);
  HA(h->st_dropped, ns); HA(h->st_time, ns);
#undef HA
  if (!h->it_newton || !h->it_iter || !h->it_total || !h->it_buffer || !h->it_rank ||
      !h->it_resid || !h->it_rel_resid || !h->it_alpha || !h->it_eta || !h->it_trace ||
      !h->it_time || !h->st_psi || !h->st_delta || !h->st_mode_err || !h->st_inner_stop || !h->st_kprod ||
      !h->st_dropped || !h->st_time) {
    history_free(h);
    return -1;
  }
  return 0;
}

void sgp_laplace_fit_free(sgp_laplace_fit_t *fit)
{
  if (!fit) return;
  free(fit->lengthscale); free(fit->X); free(fit->m); free(fit->f); free(fit->var);
  free(fit->weights); free(fit->root); free(fit->flin); free(fit->noise_data);
  history_free(&fit->history);
  sgp_hyper_free(&fit->hyper);
  free(fit);
}

/* Iterations without halving the residual that end a cg solve as stagnated (a
 * benchmark counting unpreconditioned iterations to a tolerance raises it). */
#ifndef SGP_LAPLACE_STAGNATION
#define SGP_LAPLACE_STAGNATION 20
#endif

/* Everything the inner loop works with (allocated once per fit). */
typedef struct {
  const sgp_laplace_opts *o;
  const sgp_lik *lik;
  const sgp_op *op;
  sgp_kprep prep;           /* for unit-vector columns of K_x (cholesky policy, fill) */
  int64_t *perm;            /* unit policy point order */
  sgp_itergp it;
  double *res, *s, *t, *z, *d, *kd, *wr, *gw; /* NC x 6, cap x 2 */
  double *scratch;          /* NC */
  int64_t J, kappa, kprod, hist_cap, cap_max;
  double hist_scale, t0;
  double deadline;           /* sgp_clock() seconds of time_limit, 0: none */
  double tol, atol;         /* the mode's tol and inner_atol times the latent scale */
  double *zsur;             /* NC: the surrogate right-hand side (surrogate_begin) */
  sgp_rng rng_sur;          /* its random vectors: a stream keyed by the seed */
  int sur_plain;            /* a surrogate solve: actions without the preconditioner */
  double kx_rowsum;         /* max row sum of K_x (>= lambda_max), 0 until needed */
  int64_t sub_k;            /* > 0: truncated solves take the globalized step over at
                             * most sub_k of the last actions */
  /* owned by the fit's run (run_setup, run_free) */
  sgp_op op_own;
  sgp_lik lik_own;
  double *ycopy, *center, *vec;
  struct newton_vectors {
    double *fcur, *g, *grad, *delta, *nd, *b, *v, *Kv, *vprev, *ftry, *ndtry;
  } nv;                     /* the Newton loop's NC-vectors (in vec) */
  double forcing;           /* inexact Newton: residual bound for this solve, 0 = none */
  sgp_laplace_history *h;
  int newton;
  /* unit-vector blocks (laplace_block.c) */
  int64_t bmax;             /* actions per block; 0 = one at a time */
  int64_t *bidx;            /* bmax */
  double *bws, *bhist;      /* block workspace; 4 x bmax history values */
  sgp_laplace_precond *pc;  /* cg actions P^-1 r (precond_rank > 0), or NULL */
  /* class actions (option class_actions): per = C actions per solver iteration,
   * else 1; cls: the iteration's s and K s (NC each) they are cut from */
  int64_t per;
  double *cls;
} run_t;

static double nrm2(int64_t n, const double *x) { return sgp_nrm2(n, x); }

static void record(run_t *R, int64_t j, double rho, double bnorm, double alpha, double eta,
                   double trace_KQ)
{
  sgp_laplace_history *h = R->h;
  const int64_t row = h->n_iter;
  h->it_newton[row] = R->newton;
  h->it_iter[row] = (int)j;
  h->it_total[row] = R->J + 1;
  h->it_buffer[row] = R->it.B;
  h->it_rank[row] = R->it.r;
  h->it_resid[row] = rho;
  h->it_rel_resid[row] = bnorm > 0 ? rho / bnorm : rho;
  h->it_alpha[row] = alpha;
  h->it_eta[row] = eta;
  h->it_trace[row] = R->hist_scale - trace_KQ;
  h->it_time[row] = sgp_clock() - R->t0;
  h->n_iter++;
  R->J++;
}

/* No room for another action: the buffer, the history or max_total_iter is full. */
static int budget_spent(const run_t *R)
{
  const int64_t cap_total = R->o->max_total_iter;
  return R->it.B >= R->it.cap || R->J >= R->hist_cap || (cap_total >= 0 && R->J >= cap_total);
}

/* Unit-vector action number k (class-fastest over points) -> storage index. */
static int64_t unit_index(const run_t *R, int64_t k, int permuted)
{
  const int64_t C = R->it.C, p = permuted ? R->perm[k / C] : k / C;
  return p + R->it.n * (k % C);
}

/* All NC unit actions of an empty state at once (sgp_itergp_unit_direct), with one
 * history row per action as the blocked path records them (the trace NaN unless
 * history_trace = "always": it would cost a second O(NC^3/3) pass). *fallback = 1: a pivot
 * broke down, nothing was taken (the caller goes on block by block). */
static int direct_solve(sgp_ctx *ctx, run_t *R, const double *b, const double *nd, double *v,
                        double *Kv, double rtol, double bnorm, int64_t *j, int *fallback)
{
  sgp_itergp *it = &R->it;
  const int64_t NC = it->NC;
  const int recursive = R->o->residual == SGP_RESIDUAL_RECURSIVE;
  int st;
  int64_t *idx = (int64_t *)malloc((size_t)NC * sizeof(int64_t));
  double *hist = sgp_alloc(4 * NC);
  if (!idx || !hist) {
    free(idx); free(hist);
    return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  }
  for (int64_t q = 0; q < NC; q++) idx[q] = unit_index(R, q, 1);
  sgp_unit_block ub;
  memset(&ub, 0, sizeof ub);
  ub.lik = R->lik; ub.nd = nd; ub.kernel = &R->o->kernel; ub.prep = &R->prep; ub.rhs = b;
  ub.idx = idx; ub.b = NC; ub.rtol = rtol; ub.eta_rtol = R->o->eta_tol;
  ub.trace = R->o->history_trace == SGP_HISTORY_TRACE_ALWAYS;
  ub.v = v; ub.res = R->res; ub.Kv = recursive ? Kv : NULL;
  ub.rho = hist; ub.alpha = hist + NC; ub.eta = hist + 2 * NC; ub.trace_KQ = hist + 3 * NC;
  st = sgp_itergp_unit_direct(ctx, it, &ub, fallback);
  if (!st && !*fallback) {
    const int64_t acc = ub.accepted;
    it->B = it->r = 0; /* history rows show the buffer after each action */
    for (int64_t q = 0; q < acc; q++) {
      it->B++; it->r++;
      record(R, *j + q, ub.rho[q], bnorm, ub.alpha[q], ub.eta[q], ub.trace_KQ[q]);
    }
    *j += acc;
    R->kappa += acc;
  }
  free(idx);
  free(hist);
  return st;
}

/* Softmax: x <- P x, the per-point class mean removed. In exact arithmetic every
 * CG residual has zero per-point sums already (W^+ = P W^+ P and K commute with
 * P, spec 1.4); on the sums K^ = K is ill-conditioned, so rounding left there
 * makes actions nearly dependent (breakdowns, a stalled mode). */
static void center_classes(int64_t n, int64_t C, double *x)
{
  for (int64_t i = 0; i < n; i++) {
    double mu = 0.0;
    for (int64_t c = 0; c < C; c++) mu += x[i + c * n];
    mu /= (double)C;
    for (int64_t c = 0; c < C; c++) x[i + c * n] -= mu;
  }
}

/* Second Gram-Schmidt pass of the CG iteration (I12), taken when the first one
 * cancelled most of s: d = s - Q w is K^-orthogonal to span(Q) only up to
 * cond(K^) eps times that cancellation after one pass (classical Gram-Schmidt), and
 * softmax's K^ (W^+ up to 1/pi) is far from well conditioned: the lost
 * orthogonality showed as breakdowns and a mode that drifted. K^ d = z - K Q w
 * - W^{-1} (s - d) needs no K product; w2 = Q'K^ d, d -= Q w2, w += w2. kd is
 * scratch here (recomputed before its next use). */
static int reorthogonalize(sgp_ctx *ctx, run_t *R, const double *nd)
{
  sgp_itergp *it = &R->it;
  const int64_t NC = it->NC, r = it->r;
  int st;
  if ((st = sgp_itergp_kq(ctx, it))) return st;
  memset(R->kd, 0, (size_t)NC * sizeof(double));
  if ((st = sgp_itergp_kq_axpy(ctx, it, 1.0, R->wr, R->kd))) return st; /* K Q w */
  double *e = R->scratch;
  for (int64_t i = 0; i < NC; i++) e[i] = R->s[i] - R->d[i];       /* Q w */
  sgp_lik_winv_add(R->lik, nd, 1, e, R->kd);                        /* K^ Q w */
  for (int64_t i = 0; i < NC; i++) e[i] = R->z[i] - R->kd[i];       /* K^ d */
  if ((st = sgp_gemm(ctx, 'T', 'N', r, 1, NC, 1.0, it->Q, NC, e, NC, 0.0, R->gw, r)))
    return st;
  if ((st = sgp_gemm(ctx, 'N', 'N', NC, 1, r, -1.0, it->Q, NC, R->gw, r, 1.0, R->d, NC)))
    return st;
  for (int64_t l = 0; l < r; l++) R->wr[l] += R->gw[l];
  return SGP_OK;
}

/* The full budget's end (policy cg, max_iter >= NC): the exact state
 * (sgp_itergp_exact_state). *ok = 0: the state is unchanged and the caller
 * fills span(S) with unit vectors instead. */
static int full_exact(sgp_ctx *ctx, run_t *R, const double *b, const double *nd, double *v,
                      double *Kv, int *ok)
{
  const int64_t NC = R->it.NC;
  int64_t *idx = (int64_t *)malloc((size_t)NC * sizeof(int64_t));
  if (!idx) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  for (int64_t q = 0; q < NC; q++) idx[q] = q;
  sgp_unit_block cols;
  memset(&cols, 0, sizeof cols);
  cols.lik = R->lik; cols.nd = nd; cols.kernel = &R->o->kernel; cols.prep = &R->prep;
  cols.idx = idx; cols.b = NC;
  const int st = sgp_itergp_exact_state(ctx, &R->it, &cols, b, v, Kv, R->s, R->t, ok);
  free(idx);
  return st;
}

/* One IterGP solve of K^ v = b (spec 3.4), in phases that share solve_t. On exit
 * v, Kv = K v (u in recursive mode), *reason; *bad = 1 when a non-finite
 * quantity appeared.
 * Full budget [X]: with policy cg and max_iter >= NC, a converged residual (or a
 * breakdown of the residual actions) does not end the solve: the remaining
 * budget takes unit-vector actions outside span(S) ("fill"), so that span(S)
 * reaches R^{NC} and C_j = K^{-1} -- the exact Laplace variance, not only the
 * mean. Unit vectors already (numerically) in span(S) are skipped. */
typedef struct {
  const double *b, *nd;
  double *v, *Kv;
  int recursive, full, blocked;   /* the solve's mode */
  int filling, resid_met, v_changed, direct_tried, vzero;
  int surrogate, restart;         /* surrogate_begin: in its phase; the residual changed */
  int64_t j_draw;                 /* j when the surrogate right-hand side was drawn */
  const double *b_user;           /* the true right-hand side while S->b is the surrogate */
  int64_t kfill, since_best, j;   /* j: the next action's number (1-based) */
  int64_t iters;                  /* class actions: solver iterations taken */
  int64_t j_fresh;                /* recursive: j when K v was last computed explicitly */
  double rho_best, rtol, bnorm;
} solve_t;

/* I1 virtual run, room for this step's actions, I2 v = Q (Q'b) (recursive:
 * u = T G (Q'b)) and the residual tolerance. */
static int solve_begin(sgp_ctx *ctx, run_t *R, solve_t *S, int *bad)
{
  const sgp_laplace_opts *o = R->o;
  sgp_itergp *it = &R->it;
  const int64_t NC = it->NC;
  double *v = S->v, *Kv = S->Kv;
  const double *b = S->b;
  int st, finite;
  if ((st = sgp_itergp_virtual(ctx, it, R->lik, S->nd, o->recycle ? o->rank : 0, o->kappa,
                               o->eig_rtol, &finite)))
    return st;
  if (!finite) { *bad = 1; return SGP_OK; }
  /* the only place the buffers grow */
  if ((st = sgp_itergp_reserve(ctx, it, it->B + o->max_iter * R->per, R->cap_max))) return st;
  const int64_t ldg = it->cap;
  S->vzero = it->r == 0;
  if (S->vzero) {
    memset(v, 0, (size_t)NC * sizeof(double));
    memset(Kv, 0, (size_t)NC * sizeof(double));
  } else {
    if ((st = sgp_itergp_project(ctx, it, b, v, R->wr))) return st;
    if (S->recursive && it->root_lazy) { /* u = T v[I] */
      if ((st = sgp_gemm(ctx, 'N', 'N', NC, 1, it->B, 1.0, it->T, NC, R->wr, it->B, 0.0, Kv,
                         NC)))
        return st;
    } else if (S->recursive) {
      if ((st = sgp_gemm(ctx, 'T', 'N', it->r, 1, NC, 1.0, it->Q, NC, b, NC, 0.0, R->wr, it->r)))
        return st;
      if ((st = sgp_gemm(ctx, 'N', 'N', it->B, 1, it->r, 1.0, it->G, ldg, R->wr, it->r, 0.0,
                         R->gw, it->B)))
        return st;
      if ((st = sgp_gemm(ctx, 'N', 'N', NC, 1, it->B, 1.0, it->T, NC, R->gw, it->B, 0.0, Kv,
                         NC)))
        return st;
    }
  }
  if (R->pc && (st = sgp_laplace_precond_update(ctx, R->pc, S->nd))) return st;
  S->bnorm = nrm2(NC, b);
  S->rtol = R->atol > o->inner_rtol * S->bnorm ? R->atol : o->inner_rtol * S->bnorm;
  if (!S->full && R->forcing > 0.0 && R->forcing < S->rtol) S->rtol = R->forcing; /* full: exact */
  return SGP_OK;
}

/* I4 Kv and I5 res = b - Kv - W^{-1} v, *rho = |res|. Explicit mode: Kv = K v
 * every iteration (a second kernel product beside K s). Recursive mode (the
 * default): Kv += (alpha/eta) K d with K d = t - T (G w) from the action's own
 * product, so one product per iteration. Each update adds a rounding error of
 * at most ~ c eps ||K|| ||step d|| (backward-stable products, c a small multiple
 * of the terms summed), so after j updates |Kv - K v| grows like j eps ||K||
 * max ||step d||, the residual gap of recursive CG (Greenbaum 1997). Replacing
 * Kv by K v every SGP_LAPLACE_REFRESH updates keeps j <= 32: the gap stays below
 * ~32 c eps ||K|| ||v|| (1e-13 relative for c <= 10), far below the solver
 * tolerances (1e-5) and the mode's tol (1e-6), at 1/32 product per iteration. */
static int solve_residual(sgp_ctx *ctx, run_t *R, solve_t *S, double *rho)
{
  const int64_t n = R->it.n, C = R->it.C, NC = R->it.NC;
  int st;
  const int refresh = S->recursive && S->j - S->j_fresh >= SGP_LAPLACE_REFRESH;
  if ((!S->recursive || refresh) && !S->vzero && S->v_changed) {
    if ((st = R->op->apply(R->op, sgp_cmat_of(S->v, n, C), sgp_mat_of(S->Kv, n, C), ctx)))
      return st;
    R->kprod++;
    S->j_fresh = S->j;
  }
  S->v_changed = 0;
  sgp_lik_winv(R->lik, S->nd, 1, S->v, R->res);
  for (int64_t i = 0; i < NC; i++) R->res[i] = S->b[i] - S->Kv[i] - R->res[i];
  *rho = nrm2(NC, R->res);
  return SGP_OK;
}

/* A solve whose right-hand side meets the tolerance before any action (b = 0:
 * a gaussian y that equals the prior mean; or |b| below inner_atol) would end
 * with the prior as its posterior, though the budget could buy variance. Any
 * actions S give a valid IterGP posterior (mean C b, covariance K - K C K with
 * C = S (S'K^S)^{-1} S' <= K^{-1}: its variance is never below the exact one),
 * so the budget is spent on actions chosen without b, and the mean stays C b =
 * Q Q'b (surrogate_end), the Galerkin solution of the true system.
 * cg: the CG actions of a surrogate system K^ x = z with z = K xi, xi a seeded
 * standard normal vector (centred per point for softmax, as every cg action).
 * The variance reduction along an eigenvector u of K is lambda^2 / (lambda +
 * W^{-1}): it lies in K's top eigenspace, and CG's Krylov space from z finds
 * it faster when z is already weighted by lambda (the randomized range
 * finder's sample K xi, Halko et al. 2011), at one kernel product; xi alone
 * puts the budget's first action on the flat directions, and so would a
 * preconditioner P ~ K^ (P^-1 K xi ~ xi): the surrogate's actions are plain
 * residuals. A surrogate solved before the budget is spent is followed by
 * another (surrogate_draw).
 * cholesky: the policy's unit actions do not depend on b; they go on (in the
 * policy's order) without the residual stop, v staying their Galerkin solution.
 * The solve then ends as converged (SGP_STOP_RESID): the true system's residual
 * is met; the history rows of a cg surrogate show its residual, relative to |z|. */
static int surrogate_draw(sgp_ctx *ctx, run_t *R, solve_t *S);

static int surrogate_begin(sgp_ctx *ctx, run_t *R, solve_t *S)
{
  S->surrogate = 1;
  S->b_user = S->b;
  sgp_rng_seed(&R->rng_sur, ctx->seed ^ (0x5ec0a7e5b1d5ull + (uint64_t)R->newton));
  if (R->o->policy != SGP_POLICY_CG) { S->restart = 1; return SGP_OK; }
  R->sur_plain = 1;
  return surrogate_draw(ctx, R, S);
}

/* cg: a (next) surrogate z = K xi, its solve started at the Galerkin solution
 * v = Q Q'z on the actions so far (none at first), K v. A surrogate solved
 * before the budget is spent (Krylov spaces of a strong preconditioner are
 * small) draws another: its residual is a new direction of K's range. */
static int surrogate_draw(sgp_ctx *ctx, run_t *R, solve_t *S)
{
  const int64_t n = R->it.n, C = R->it.C, NC = R->it.NC;
  double *xi = R->s;
  int st;
  for (int64_t q = 0; q < NC; q++) xi[q] = sgp_rng_normal(&R->rng_sur);
  if (sgp_lik_multiclass(R->lik->kind)) center_classes(n, C, xi);
  if ((st = R->op->apply(R->op, sgp_cmat_of(xi, n, C), sgp_mat_of(R->zsur, n, C), ctx)))
    return st;
  R->kprod++;
  S->b = R->zsur;
  S->bnorm = nrm2(NC, R->zsur);
  S->rtol = R->o->inner_rtol * S->bnorm;
  S->rho_best = INFINITY;
  S->since_best = 0;
  S->restart = 1;
  S->j_draw = S->j;
  S->v_changed = 1;
  S->vzero = R->it.r == 0;
  if (S->vzero) return SGP_OK; /* v = K v = 0 */
  if ((st = sgp_itergp_root(ctx, &R->it))) return st;
  if ((st = sgp_itergp_project(ctx, &R->it, S->b, S->v, R->wr))) return st;
  if ((st = R->op->apply(R->op, sgp_cmat_of(S->v, n, C), sgp_mat_of(S->Kv, n, C), ctx)))
    return st;
  R->kprod++;
  S->j_fresh = S->j;
  S->v_changed = 0;
  return SGP_OK;
}

/* The end of a surrogate phase: the solve is converged on the true system, and
 * (cg) v = Q Q'b with K v for the true b (0 when b is). */
static int surrogate_end(sgp_ctx *ctx, run_t *R, solve_t *S, int *reason)
{
  sgp_itergp *it = &R->it;
  const int64_t n = it->n, C = it->C, NC = it->NC;
  int st;
  *reason = SGP_STOP_RESID;
  R->sur_plain = 0;
  if (S->b == S->b_user) return SGP_OK; /* cholesky: v is already that */
  S->b = S->b_user;
  S->bnorm = nrm2(NC, S->b);
  if (S->bnorm == 0.0 || it->r == 0) {
    memset(S->v, 0, (size_t)NC * sizeof(double));
    memset(S->Kv, 0, (size_t)NC * sizeof(double));
    S->vzero = 1;
    return SGP_OK;
  }
  if ((st = sgp_itergp_root(ctx, it))) return st;
  if ((st = sgp_itergp_project(ctx, it, S->b, S->v, R->wr))) return st;
  if ((st = R->op->apply(R->op, sgp_cmat_of(S->v, n, C), sgp_mat_of(S->Kv, n, C), ctx)))
    return st;
  R->kprod++;
  return SGP_OK;
}

/* I6, I7 and the other ends of a solve: *stop = 1 with *reason. A converged
 * residual at a full budget goes on filling span(S) unless the exact state
 * (full_exact) is available. */
static int solve_stop(sgp_ctx *ctx, run_t *R, solve_t *S, double rho, int *reason, int *stop)
{
  const sgp_laplace_opts *o = R->o;
  const sgp_itergp *it = &R->it;
  const int64_t NC = it->NC;
  int st;
  *stop = 1;
  if (!S->filling && !S->surrogate && (rho < S->rtol || rho == 0.0)) {
    if (!S->full && it->r == 0 && !budget_spent(R)) { /* nothing bought yet */
      *stop = 0;
      return surrogate_begin(ctx, R, S);
    }
    if (!S->full) { *reason = SGP_STOP_RESID; return SGP_OK; }
    int ok = 0;
    if ((st = full_exact(ctx, R, S->b, S->nd, S->v, S->Kv, &ok))) return st;
    if (ok) { *reason = SGP_STOP_RESID; return SGP_OK; }
    S->filling = S->resid_met = 1;
    S->kfill = 0;
  }
  if (S->surrogate && o->policy == SGP_POLICY_CG && rho < S->rtol) {
    if (S->j > S->j_draw && (R->per > 1 ? S->iters : S->j - 1) < o->max_iter &&
        !budget_spent(R)) {
      *stop = 0;
      return surrogate_draw(ctx, R, S);
    }
    *reason = SGP_STOP_RESID; /* the true system's residual is met */
    return SGP_OK;
  }
  if (S->filling && (S->kfill >= NC || it->B >= NC)) {
    *reason = S->resid_met ? SGP_STOP_RESID : SGP_STOP_EXHAUSTED;
    return SGP_OK;
  }
  /* a residual that has not halved in 20 iterations is at the accuracy that
   * cond(K^) eps allows (the forcing term can ask for less) */
  if (rho < 0.5 * S->rho_best) { S->rho_best = rho; S->since_best = 0; }
  else if (++S->since_best >= SGP_LAPLACE_STAGNATION && !S->filling &&
           o->policy == SGP_POLICY_CG) {
    *reason = SGP_STOP_STAGNATED;
    return SGP_OK;
  }
  if ((R->per > 1 ? S->iters : S->j - 1) >= o->max_iter) {
    int ok = 0;
    if (S->full && !S->filling && (st = full_exact(ctx, R, S->b, S->nd, S->v, S->Kv, &ok)))
      return st;
    *reason = SGP_STOP_MAXITER;
    return SGP_OK;
  }
  if (o->policy == SGP_POLICY_CHOLESKY && R->kappa >= NC) {
    *reason = SGP_STOP_EXHAUSTED;
    return SGP_OK;
  }
  if (budget_spent(R)) {
    *reason = SGP_STOP_BUDGET;
    return SGP_OK;
  }
  *stop = 0;
  return sgp_poll_interrupt(ctx);
}

/* The exact mode's first solve is possible: every action at once. */
static int solve_direct_fits(const run_t *R, const solve_t *S)
{
  const sgp_laplace_opts *o = R->o;
  const sgp_itergp *it = &R->it;
  const int64_t NC = it->NC;
  return S->blocked && !S->filling && !S->direct_tried && it->B == 0 && R->kappa == 0 &&
         it->C == 1 && (int64_t)o->max_iter - S->j + 1 >= NC && it->cap >= NC &&
         R->hist_cap - R->J >= NC && (o->max_total_iter < 0 || o->max_total_iter - R->J >= NC);
}

/* A block of unit-vector actions (spec 2.2): one BLAS-3 sweep; *stop = 1 (with
 * *reason) when a pivot broke down outside a fill. */
static int solve_block(sgp_ctx *ctx, run_t *R, solve_t *S, int *reason, int *stop)
{
  const sgp_laplace_opts *o = R->o;
  sgp_itergp *it = &R->it;
  const int64_t n = it->n, C = it->C, NC = it->NC;
  int st;
  int64_t bb = R->bmax, left = (int64_t)o->max_iter - S->j + 1;
  const int64_t next = S->filling ? S->kfill : R->kappa;
  if (left < bb) bb = left;
  if (it->cap - it->B < bb) bb = it->cap - it->B;
  if (R->hist_cap - R->J < bb) bb = R->hist_cap - R->J;
  if (o->max_total_iter >= 0 && o->max_total_iter - R->J < bb) bb = o->max_total_iter - R->J;
  if (NC - next < bb) bb = NC - next;
  for (int64_t q = 0; q < bb; q++) R->bidx[q] = unit_index(R, next + q, !S->filling);
  sgp_unit_block ub;
  memset(&ub, 0, sizeof ub);
  ub.lik = R->lik; ub.nd = S->nd; ub.kernel = &o->kernel; ub.prep = &R->prep; ub.rhs = S->b;
  ub.idx = R->bidx; ub.b = bb;
  ub.rtol = S->filling || S->surrogate ? 0.0 : S->rtol;
  /* fill: skip directions that are numerically in span(S) (relative pivot) */
  ub.eta_rtol = S->filling ? 1e-10 : o->eta_tol;
  ub.ws = R->bws; ub.v = S->v; ub.res = R->res; ub.Kv = S->recursive ? S->Kv : NULL;
  ub.rho = R->bhist; ub.alpha = R->bhist + R->bmax; ub.eta = R->bhist + 2 * R->bmax;
  ub.trace_KQ = R->bhist + 3 * R->bmax;
  const int64_t B0 = it->B;
  if ((st = sgp_itergp_unit_block(ctx, it, &ub))) return st;
  const int64_t acc = ub.accepted;
  it->B = B0; it->r = B0; /* history rows show the buffer after each action */
  for (int64_t q = 0; q < acc; q++) {
    it->B++; it->r++;
    record(R, S->j + q, ub.rho[q], S->bnorm, ub.alpha[q], ub.eta[q], ub.trace_KQ[q]);
  }
  S->j += acc;
  if (acc > 0) { S->vzero = 0; S->v_changed = 1; }
  const int rejected = ub.reason == SGP_STOP_BREAKDOWN;
  if (S->filling) S->kfill += acc + rejected;
  else R->kappa += acc + rejected;
  *stop = 0;
  if (rejected && !S->filling) {
    if (!S->recursive && acc > 0) { /* Kv for the returned v (O7) */
      if ((st = R->op->apply(R->op, sgp_cmat_of(S->v, n, C), sgp_mat_of(S->Kv, n, C), ctx)))
        return st;
      R->kprod++;
    }
    *reason = SGP_STOP_BREAKDOWN;
    *stop = 1;
  }
  return SGP_OK;
}

/* I8 policy, I9 alpha, I10 t = K s: the next action in R->s, R->t; *uidx its
 * unit index (cholesky policy) or -1. */
static int action_choose(sgp_ctx *ctx, run_t *R, double *alpha, int64_t *uidx)
{
  const sgp_laplace_opts *o = R->o;
  const int64_t n = R->it.n, C = R->it.C, NC = R->it.NC;
  int st;
  *uidx = -1;
  if (o->policy == SGP_POLICY_CHOLESKY) {
    const int64_t p = R->perm[R->kappa / C], c = R->kappa % C;
    *uidx = p + n * c;
    R->kappa++;
    memset(R->s, 0, (size_t)NC * sizeof(double));
    R->s[*uidx] = 1.0;
    *alpha = R->res[*uidx];
    memset(R->t, 0, (size_t)NC * sizeof(double));
    sgp_kernel_tile(ctx, &o->kernel, &R->prep, 0, n, &R->prep, p, 1, R->t + n * c, n);
    return SGP_OK;
  }
  if (R->pc && !R->sur_plain) { /* preconditioned actions (laplace_precond.c) */
    if ((st = sgp_laplace_precond_apply(ctx, R->pc, R->res, R->s))) return st;
  } else {
    memcpy(R->s, R->res, (size_t)NC * sizeof(double));
  }
  if (sgp_lik_multiclass(R->lik->kind)) center_classes(n, C, R->s);
  *alpha = sgp_dot(NC, R->s, R->res);
  if ((st = R->op->apply(R->op, sgp_cmat_of(R->s, n, C), sgp_mat_of(R->t, n, C), ctx)))
    return st;
  R->kprod++;
  return SGP_OK;
}

/* I11 z = t + W^{-1} s; I12 w = Q'z, d = s - Q w (a second pass when the first
 * cancelled); I13 eta = z'd. *taken = 0 when I14 rejects the action (less
 * than eta_tol, after two passes 1e-10, of its K^-norm outside span(Q)). */
static int action_orthogonalize(sgp_ctx *ctx, run_t *R, const double *nd, double *alpha,
                                double *eta, int *taken)
{
  const sgp_laplace_opts *o = R->o;
  sgp_itergp *it = &R->it;
  const int64_t NC = it->NC;
  int st;
  memcpy(R->z, R->t, (size_t)NC * sizeof(double));
  sgp_lik_winv_add(R->lik, nd, 1, R->s, R->z);
  memcpy(R->d, R->s, (size_t)NC * sizeof(double));
  if (it->r > 0) {
    if ((st = sgp_gemm(ctx, 'T', 'N', it->r, 1, NC, 1.0, it->Q, NC, R->z, NC, 0.0, R->wr,
                       it->r)))
      return st;
    if ((st = sgp_gemm(ctx, 'N', 'N', NC, 1, it->r, -1.0, it->Q, NC, R->wr, it->r, 1.0, R->d,
                       NC)))
      return st;
  }
  *eta = sgp_dot(NC, R->z, R->d);
  const double sz = sgp_dot(NC, R->s, R->z);
  int twice = 0;
  if (it->r > 0 && *eta < 0.5 * sz) { /* most of s was in span(Q) */
    if ((st = reorthogonalize(ctx, R, nd))) return st;
    *eta = sgp_dot(NC, R->z, R->d);
    *alpha = sgp_dot(NC, R->d, R->res); /* = s'res when S'res = 0 holds exactly */
    twice = 1;
  }
  const double eta_rel = twice && o->eta_tol < 1e-10 ? 1e-10 : o->eta_tol;
  *taken = !isfinite(*eta) || ((*eta > eta_rel * sz) && (*eta > 0.0));
  return SGP_OK;
}

/* K d = t - T (G w), I15-I16 appends (B == r always: see sgp_itergp_virtual),
 * I17 v += (alpha/eta) d, the trace and the history row. */
static int action_append(sgp_ctx *ctx, run_t *R, solve_t *S, double rho, double alpha,
                         double eta, int64_t uidx)
{
  sgp_itergp *it = &R->it;
  const int64_t NC = it->NC, ldg = it->cap;
  int st;
  memcpy(R->kd, R->t, (size_t)NC * sizeof(double));
  if (it->r > 0) {
    if ((st = sgp_gemm(ctx, 'N', 'N', it->B, 1, it->r, 1.0, it->G, ldg, R->wr, it->r, 0.0,
                       R->gw, it->B)))
      return st;
    if ((st = sgp_gemm(ctx, 'N', 'N', NC, 1, it->B, -1.0, it->T, NC, R->gw, it->B, 1.0, R->kd,
                       NC)))
      return st;
  }
  if ((st = sgp_itergp_kq(ctx, it))) return st; /* the trace (and K Q when stored) */
  const double se = sqrt(eta), step = alpha / eta;
  const int64_t B = it->B, r = it->r;
  memcpy(it->S + NC * B, R->s, (size_t)NC * sizeof(double));
  memcpy(it->T + NC * B, R->t, (size_t)NC * sizeof(double));
  for (int64_t i = 0; i < NC; i++) it->Q[i + NC * r] = R->d[i] / se;
  if (it->kq_stored)
    for (int64_t i = 0; i < NC; i++) it->work[i + NC * r] = R->kd[i] / se;
  for (int64_t l = 0; l < r; l++) it->G[B + l * ldg] = 0.0;
  for (int64_t i = 0; i < B; i++) it->G[i + r * ldg] = r > 0 ? -R->gw[i] / se : 0.0;
  it->G[B + r * ldg] = 1.0 / se;
  it->idx[B] = uidx;
  if (uidx < 0) it->unit = 0;
  it->B = B + 1;
  it->r = r + 1;
  for (int64_t i = 0; i < NC; i++) S->v[i] += step * R->d[i];
  if (S->recursive)
    for (int64_t i = 0; i < NC; i++) S->Kv[i] += step * R->kd[i];
  const double kd2 = sgp_dot(NC, R->kd, R->kd);
  it->trace_KQ += kd2 / eta;
  S->vzero = 0;
  S->v_changed = 1;
  record(R, S->j, rho, S->bnorm, alpha, eta, it->trace_KQ);
  S->j++;
  return SGP_OK;
}

/* x_c = P (x0[:, c] (x) e_c): class block c of an NC-vector, its per-point mean
 * removed. K = I_C (x) K_x commutes with both steps, so the block of K s is
 * K times the block of s. */
static void class_block(int64_t n, int64_t C, int64_t c, const double *x0, double *x)
{
  const double off = -1.0 / (double)C;
  for (int64_t k = 0; k < C; k++)
    for (int64_t i = 0; i < n; i++) x[i + k * n] = x0[i + c * n] * (k == c ? 1.0 + off : off);
}

/* Class actions (option class_actions): the iteration's centred residual s and
 * its product K s (action_choose) cut into the C actions s_c = P (s[:, c] (x) e_c),
 * each with K s_c from K s. They sum to s, so span(S) grows by span{s_c}, which
 * holds the cg action; the sum directions (K^ = K there, spec 1.4) stay outside
 * span(S), as with one action. IterGP takes them one after the other: v stays
 * the Galerkin solution on span(S) (spec 2.3), C = S (S'K^S)^-1 S'. alpha =
 * d'res with the residual before the iteration: d is K^-orthogonal to the
 * earlier blocks' directions, which are all v moved along since. A block in
 * span(S) (with two classes the blocks coincide) is skipped; *taken: the number
 * accepted. */
static int class_actions_take(sgp_ctx *ctx, run_t *R, solve_t *S, double rho, int64_t *taken,
                              int *bad)
{
  sgp_itergp *it = &R->it;
  const int64_t n = it->n, C = it->C, NC = it->NC;
  double *s0 = R->cls, *t0 = R->cls + NC, alpha, eta;
  int64_t uidx;
  int st, ok;
  *taken = 0;
  if ((st = action_choose(ctx, R, &alpha, &uidx))) return st;
  memcpy(s0, R->s, (size_t)NC * sizeof(double));
  memcpy(t0, R->t, (size_t)NC * sizeof(double));
  S->iters++;
  for (int64_t c = 0; c < C; c++) {
    if (budget_spent(R)) break;
    class_block(n, C, c, s0, R->s);
    class_block(n, C, c, t0, R->t);
    if ((st = action_orthogonalize(ctx, R, S->nd, &alpha, &eta, &ok))) return st;
    if (!isfinite(eta)) { *bad = 1; return SGP_OK; }
    if (!ok) continue;
    alpha = sgp_dot(NC, R->d, R->res);
    if ((st = action_append(ctx, R, S, rho, alpha, eta, -1))) return st;
    ++*taken;
  }
  return SGP_OK;
}

/* One action of the residual (cg) or unit (cholesky) policy, or one iteration's
 * class actions; *stop = 1 (with *reason) on a breakdown that ends the solve. */
static int solve_action(sgp_ctx *ctx, run_t *R, solve_t *S, double rho, int *reason, int *bad,
                        int *stop)
{
  int st, taken;
  double alpha, eta;
  int64_t uidx;
  *stop = 0;
  if ((st = sgp_itergp_root(ctx, &R->it))) return st;
  if (R->per > 1) {
    int64_t k;
    if ((st = class_actions_take(ctx, R, S, rho, &k, bad)) || *bad) return st;
    taken = k > 0;
    if (taken) return SGP_OK;
  } else {
    if ((st = action_choose(ctx, R, &alpha, &uidx))) return st;
    if ((st = action_orthogonalize(ctx, R, S->nd, &alpha, &eta, &taken))) return st;
    if (!isfinite(eta)) { *bad = 1; return SGP_OK; }
    if (taken) return action_append(ctx, R, S, rho, alpha, eta, uidx);
  }
  if (S->full && !S->filling) { /* CG ran out: the exact state, else fill */
    int ok = 0;
    if ((st = full_exact(ctx, R, S->b, S->nd, S->v, S->Kv, &ok))) return st;
    if (ok) { *reason = SGP_STOP_EXHAUSTED; *stop = 1; return SGP_OK; }
    S->filling = 1;
    S->kfill = 0;
    return SGP_OK;
  }
  *reason = SGP_STOP_BREAKDOWN;
  *stop = 1;
  return SGP_OK;
}

/* After the loop: recycled actions that span everything (B = NC) give C =
 * K^{-1}, and the dense state is exact where a root from NC raw CG residuals
 * (norms over many decades) is not; after a fill the one-pass Gram-Schmidt root
 * has lost some K^-orthogonality (unit vectors partly in the span of the CG
 * residuals), which diag(K - KQQ'K) feels first: two Cholesky-QR passes restore
 * Q'K^Q = I. */
static int solve_end(sgp_ctx *ctx, run_t *R, solve_t *S)
{
  sgp_itergp *it = &R->it;
  int st;
  if (!S->filling && !it->unit && it->B >= it->NC) {
    int ok = 0;
    if ((st = full_exact(ctx, R, S->b, S->nd, S->v, S->Kv, &ok))) return st;
  }
  if (S->filling)
    for (int pass = 0; pass < 2; pass++)
      if ((st = sgp_itergp_reorth(ctx, it, R->lik, S->nd, R->z))) return st;
  return SGP_OK;
}

static int inner(sgp_ctx *ctx, run_t *R, const double *b, const double *nd, double *v,
                 double *Kv, int *reason, int *bad)
{
  const sgp_laplace_opts *o = R->o;
  solve_t S;
  memset(&S, 0, sizeof S);
  S.b = b; S.nd = nd; S.v = v; S.Kv = Kv;
  S.recursive = o->residual == SGP_RESIDUAL_RECURSIVE;
  S.full = o->policy == SGP_POLICY_CG && (int64_t)o->max_iter >= R->it.NC;
  S.blocked = o->policy == SGP_POLICY_CHOLESKY && R->bmax > 1;
  S.v_changed = 1;
  S.rho_best = INFINITY;
  S.j = S.j_fresh = 1;
  R->sur_plain = 0;
  *bad = 0;
  *reason = SGP_STOP_NONE;
  int st, stop;
  if ((st = solve_begin(ctx, R, &S, bad)) || *bad) return st;
  for (;;) {
    double rho;
    if ((st = solve_residual(ctx, R, &S, &rho))) return st;
    if (!isfinite(rho)) { *bad = 1; return SGP_OK; }
    if ((st = solve_stop(ctx, R, &S, rho, reason, &stop))) return st;
    if (stop) break;
    if (S.restart) { S.restart = 0; continue; } /* the surrogate's residual */
    if (solve_direct_fits(R, &S)) { /* the exact mode's first solve (laplace_direct.c) */
      int fallback = 0;
      S.direct_tried = 1;
      if ((st = direct_solve(ctx, R, b, nd, v, Kv, S.surrogate ? 0.0 : S.rtol, S.bnorm, &S.j,
                             &fallback)))
        return st;
      if (!fallback) { S.vzero = 0; S.v_changed = 1; }
      continue;
    }
    if (S.filling || S.blocked) st = solve_block(ctx, R, &S, reason, &stop);
    else st = solve_action(ctx, R, &S, rho, reason, bad, &stop);
    if (st || *bad) return st;
    if (stop) break;
  }
  if (S.surrogate && (st = surrogate_end(ctx, R, &S, reason))) return st;
  return solve_end(ctx, R, &S);
}

/* lambda_max(K) <= the largest row sum of K_x (kernels are >= 0): one K product,
 * made once (R->kx_rowsum); before it, n s (|k| <= s). */
static int kx_rowsum(sgp_ctx *ctx, run_t *R, int compute, double *lam)
{
  const int64_t n = R->it.n;
  const double s = R->o->kernel.outputscale;
  if (R->kx_rowsum == 0 && compute) {
    double *ones = R->scratch, *rows = R->t;
    for (int64_t i = 0; i < n; i++) ones[i] = 1.0;
    int st = R->op->apply(R->op, sgp_cmat_of(ones, n, 1), sgp_mat_of(rows, n, 1), ctx);
    if (st) return st;
    R->kprod++;
    double mx = s;
    for (int64_t i = 0; i < n; i++) if (rows[i] > mx) mx = rows[i];
    R->kx_rowsum = mx;
  }
  *lam = R->kx_rowsum > 0 ? R->kx_rowsum : (double)n * s;
  return SGP_OK;
}

/* Bound on max_n |f_n - f_mode| at f (f - m = K v, given as kv). -Hess Psi =
 * K^{-1} + W(f) >= K^{-1} everywhere (log-concave likelihoods): Psi is strongly
 * concave in the K^{-1} norm, so with g = grad Psi = grad l - v
 *   ||f - f_mode||_2^2 <= lambda_max(K) ||f - f_mode||_{K^-1}^2 <= lambda_max(K) g'K g
 * and ||f - f_mode||_2 <= ||g||_2 / (1/lambda_max(K) + min W) (the W part holds
 * near f; diagonal W). The first needs a K product (when kprod and the cheap
 * bounds fail); the second none. Softmax: the likelihood ignores per-point
 * constants, and K^{-1} commutes with the centring P, so Psi splits into the
 * centred part (bounded as above with P g: on the sums v is rounding amplified
 * by K^{-1}) and the sums, where Psi = -1/2 (f - m)'K^{-1}(f - m) peaks at
 * (I - P)(f - m) = 0: their error is known exactly, ||(I - P) K v||, and adds
 * in squares (a sum left there is a fixed point of the W^+ iteration: the
 * centred gradient alone never sees it). Sets R->forcing for the next solve. */
static int mode_bound(sgp_ctx *ctx, run_t *R, const double *grad, const double *v,
                      const double *kv, const double *nd, int kprod, double *out)
{
  const int64_t n = R->it.n, NC = R->it.NC, C = R->it.C;
  const double s = R->o->kernel.outputscale, tol = R->tol;
  const int softmax = sgp_lik_multiclass(R->lik->kind);
  double *g = R->s, g2 = 0.0;
  if (!(tol > 0.0)) kprod = 0; /* nothing to verify: no product for it */
  for (int64_t q = 0; q < NC; q++) g[q] = grad[q] - v[q];
  if (softmax) center_classes(n, C, g);
  for (int64_t q = 0; q < NC; q++) g2 += g[q] * g[q];
  const double gn = sqrt(g2);
  double ndmax = 0.0, ndmin = INFINITY;
  for (int64_t q = 0; q < NC && !softmax; q++) {
    if (nd[q] > ndmax) ndmax = nd[q];
    if (nd[q] < ndmin) ndmin = nd[q];
  }
  const double wmin = ndmax > 0.0 ? 1.0 / ndmax : 0.0, wmax = softmax ? 1.0 : 1.0 / ndmin;
  double lam;
  int st;
  /* row sums once the gradient is small enough for them to decide */
  const int decide = tol > 0.0 && (gn / (1.0 / s + wmin) <= tol || (kprod && gn * s <= tol));
  if ((st = kx_rowsum(ctx, R, decide && gn / (1.0 / (n * s) + wmin) > tol, &lam))) return st;
  double bound = gn / (1.0 / lam + wmin);
  if (kprod && bound > tol && isfinite(bound)) {
    if ((st = kx_rowsum(ctx, R, 1, &lam))) return st;
    if ((st = R->op->apply(R->op, sgp_cmat_of(g, n, C), sgp_mat_of(R->t, n, C), ctx))) return st;
    R->kprod++;
    const double gkg = sgp_dot(NC, g, R->t), bk = sqrt(lam * (gkg > 0.0 ? gkg : 0.0));
    if (bk < bound) bound = bk;
  }
  if (softmax) { /* the sums of f - m, exactly */
    double e2 = 0.0;
    for (int64_t i = 0; i < n; i++) {
      double mu = 0.0;
      for (int64_t c = 0; c < C; c++) mu += kv[i + c * n];
      e2 += (double)C * (mu / (double)C) * (mu / (double)C);
    }
    bound = sqrt(bound * bound + e2);
  }
  *out = isfinite(bound) ? bound : INFINITY;
  /* inexact Newton (with damping): the next solve's residual r leaves grad Psi
   * ~ W r at the new iterate, so ||r|| <= 0.1 ||grad Psi|| / max W keeps the
   * convergence going below what the fixed inner tolerances allow (softmax:
   * W <= 1) */
  R->forcing = R->o->damping && isfinite(gn) && wmax > 0.0 ? 0.1 * gn / wmax : 0.0;
  return SGP_OK;
}

/* O8 damping (spec 3.8): f(t) = f_i + t (f_{i+1} - f_i), v(t) likewise, for the
 * first t = 1, 1/2, ..., 2^-40 (each try is O(NC); exp-type links can need t far below
 * 2^-10 far from the mode) with finite Psi(f(t)) >= Psi(f_i); t = 0 (no
 * step; two in a row end the run as stalled) when none is. g = f_i - m; v, Kv
 * (= K v) are replaced by v(t), K v(t). */
static void damped_step(const sgp_lik *lik, int64_t NC, const double *m, const double *g,
                       const double *vprev, double psi, double *v, double *Kv, double *ftry,
                       double *ndtry)
{
  /* Psi is a sum of NC terms: differences below its rounding are ties */
  const double slack = 4.0 * (double)NC * DBL_EPSILON * (fabs(psi) + 1.0);
  double t = 1.0;
  for (int k = 0; k <= 40; k++, t *= 0.5) {
    double llt, quad = 0.0;
    for (int64_t q = 0; q < NC; q++) {
      const double gq = g[q] + t * (Kv[q] - g[q]);
      ftry[q] = gq + m[q];
      quad += (vprev[q] + t * (v[q] - vprev[q])) * gq;
    }
    sgp_lik_eval(lik, ftry, &llt, NULL, NULL, ndtry);
    const double psit = llt - 0.5 * quad;
    if (isfinite(psit) && psit >= psi - slack) break;
    if (k == 40) { t = 0.0; break; } /* not an ascent direction: no step */
  }
  if (t < 1.0)
    for (int64_t q = 0; q < NC; q++) {
      Kv[q] = g[q] + t * (Kv[q] - g[q]);
      v[q] = vprev[q] + t * (v[q] - vprev[q]);
    }
}

/* The globalized step of a truncated solve (laplace_subspace.c) over this step's
 * actions (the last of the buffer; at most SUBSPACE_ACTIONS, so that an iteration's
 * O(NC k^2) stays within the solver's own O(NC B) per action), v_prev and the
 * solver's v; g = K v_prev. The whole buffer was tried: no better on the mlbench
 * sets at small budgets, and slower. */
#define SUBSPACE_ACTIONS 62

static int subspace_step(sgp_ctx *ctx, run_t *R, const double *m, const double *g,
                         const double *vprev, double psi, double *v, double *Kv)
{
  sgp_itergp *it = &R->it;
  const int64_t NC = it->NC, B = it->B;
  const int64_t kb = B < R->sub_k ? B : R->sub_k, k = kb + 2, l0 = B - kb;
  /* U = S[:, l0..B+1], K U = T[:, l0..B+1]: the buffers' spare columns B, B+1
   * (SGP_ITERGP_SPARE) take v_prev and v, so the basis is not copied */
  double *U = it->S + l0 * NC, *KU = it->T + l0 * NC;
  if (it->unit) /* S = P_I may be implied by idx only: write it */
    for (int64_t l = 0; l < kb; l++) {
      memset(U + l * NC, 0, (size_t)NC * sizeof(double));
      U[l * NC + it->idx[l0 + l]] = 1.0;
    }
  memcpy(U + kb * NC, vprev, (size_t)NC * sizeof(double));
  memcpy(KU + kb * NC, g, (size_t)NC * sizeof(double));
  memcpy(U + (kb + 1) * NC, v, (size_t)NC * sizeof(double));
  memcpy(KU + (kb + 1) * NC, Kv, (size_t)NC * sizeof(double));
  int iters = 0, took_solver = 0;
  const int st = sgp_laplace_subspace_step(ctx, R->lik, m, k, U, KU, kb, kb + 1, v, Kv, &iters,
                                           &took_solver);
  if (!st && took_solver < 0) /* no ascent found in the basis: backtrack along the step */
    damped_step(R->lik, NC, m, g, vprev, psi, v, Kv, R->nv.ftry, R->nv.ndtry);
  return st;
}

static int all_finite(int64_t n, const double *x)
{
  for (int64_t i = 0; i < n; i++) if (!isfinite(x[i])) return 0;
  return 1;
}

int sgp_laplace_fit(sgp_ctx *ctx, sgp_cmat X, sgp_cmat y, sgp_cmat prior_mean,
                    const sgp_laplace_opts *o, sgp_laplace_fit_t **out)
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
  if ((st = sgp_kernel_check(ctx, &k, d))) return st;
  if (!sgp_lik_ops_of(o->likelihood))
    return sgp_fail(ctx, SGP_EINVAL, "likelihood: unknown value %d", (int)o->likelihood);
  if (o->policy != SGP_POLICY_CG && o->policy != SGP_POLICY_CHOLESKY)
    return sgp_fail(ctx, SGP_EINVAL, "policy: unknown value %d", (int)o->policy);
  if (o->residual != SGP_RESIDUAL_EXPLICIT && o->residual != SGP_RESIDUAL_RECURSIVE)
    return sgp_fail(ctx, SGP_EINVAL, "residual: unknown value %d", (int)o->residual);
  if (o->history_trace != SGP_HISTORY_TRACE_AUTO && o->history_trace != SGP_HISTORY_TRACE_ALWAYS)
    return sgp_fail(ctx, SGP_EINVAL, "history_trace: unknown value %d", o->history_trace);
  if (o->max_newton < 1)
    return sgp_fail(ctx, SGP_EINVAL, "max_newton: must be at least 1 (got %d)", o->max_newton);
  if (o->max_iter < 1)
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

/* Buffer capacity (spec 2.3): the actions a run can keep (per of them per
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
  /* start small and grow geometrically between Newton steps (spec 2.3) */
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
                   sgp_laplace_fit_t **out)
{
  const sgp_laplace_opts *o = R->o;
  const int64_t C = R->it.C, NC = n * C;
  sgp_laplace_fit_t *fit = *out = (sgp_laplace_fit_t *)calloc(1, sizeof *fit);
  if (!fit) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  fit->n = n; fit->d = d; fit->C = C; fit->likelihood = o->likelihood;
  fit->kernel = o->kernel;
  fit->lengthscale = sgp_alloc(o->kernel.n_lengthscale);
  fit->m = sgp_calloc(NC); fit->f = sgp_alloc(NC); fit->var = sgp_alloc(NC);
  fit->weights = sgp_alloc(NC); fit->flin = sgp_alloc(NC); fit->noise_data = sgp_alloc(NC);
  if (!fit->lengthscale || !fit->m || !fit->f || !fit->var || !fit->weights ||
      !fit->flin || !fit->noise_data ||
      history_alloc(&fit->history, R->hist_cap, o->max_newton))
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
static void step_record(sgp_ctx *ctx, run_t *R, sgp_laplace_fit_t *fit, int i, double psi,
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
static double take_step(run_t *R, sgp_laplace_fit_t *fit, const double *m)
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
  center_classes(R->it.n, R->it.C, v);
  center_classes(R->it.n, R->it.C, Kv);
}

/* One Newton step i (O3-O11): *stop is set when the run ends here (converged,
 * diverged, stalled, budget, time); *have = 1 once a step was taken. */
static int newton_step(sgp_ctx *ctx, run_t *R, sgp_laplace_fit_t *fit, int i, int *stop,
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
  if ((st = mode_bound(ctx, R, N->grad, N->v, N->g, N->nd, *prev_delta <= 1e-3, &err_i)))
    return st;
  /* O5 */
  if (!o->recycle || o->rank == 0) { R->it.B = R->it.r = 0; R->kappa = 0; }
  /* O6 */
  int bad = 0;
  memcpy(N->vprev, N->v, (size_t)NC * sizeof(double));
  if ((st = inner(ctx, R, N->b, N->nd, N->v, N->Kv, inner_reason, &bad))) return st;
  if (bad || !all_finite(NC, N->v) || !all_finite(NC, N->Kv)) {
    /* keep the last finite state: weights of the previous step, no root */
    memcpy(N->v, N->vprev, (size_t)NC * sizeof(double));
    R->it.B = R->it.r = 0;
    *stop = SGP_STOP_DIVERGED;
    return SGP_OK;
  }
  sums_step(R, N->v, N->Kv);
  /* O8 damping (spec 3.8); a truncated solve: the best step in its subspace */
  if (R->sub_k > 0 && *inner_reason != SGP_STOP_RESID) {
    if ((st = subspace_step(ctx, R, m, N->g, N->vprev, psi, N->v, N->Kv))) return st;
    sums_step(R, N->v, N->Kv); /* the basis holds uncentred actions */
  } else if (o->damping) {
    damped_step(R->lik, NC, m, N->g, N->vprev, psi, N->v, N->Kv, N->ftry, N->ndtry);
  }
  const double delta_i = take_step(R, fit, m);
  *have = 1;
  if (err_i <= R->tol) { /* the posterior's linearization point is verified: f_{i+1}? */
    sgp_lik_eval(R->lik, N->fcur, NULL, N->grad, NULL, N->ndtry);
    if ((st = mode_bound(ctx, R, N->grad, N->v, N->g, N->ndtry, 1, &err_next))) return st;
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

/* Outputs (spec 4.1): f, weights, the root Q and var = s - rowsums((K Q)^2) (K Q
 * in the work buffer: kept current by the inner loop, else computed; in the
 * exact mode only its row sums, from the Cholesky factor of the last step's K^).
 * The operator (a cached K) goes first, so that the copy of X for predictions
 * never coexists with it (peak memory). */
static int fit_finish(sgp_ctx *ctx, run_t *R, sgp_laplace_fit_t *fit, sgp_cmat X, int stop,
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
                            sgp_laplace_fit_t **out)
{
  if (!out) return sgp_fail(ctx, SGP_EINVAL, "out: must not be NULL");
  *out = NULL;
  if (!o) return sgp_fail(ctx, SGP_EINVAL, "opts: must not be NULL");
  int64_t C = 1;
  int st = check_fit_args(ctx, X, y, prior_mean, o, &C);
  if (st) return st;
  sgp_laplace_fit_t *fit = NULL;
  run_t R;
  memset(&R, 0, sizeof R);
  R.o = o;
  sgp_laplace_opts ro;
  sgp_laplace_hyper hyper;
  memset(&hyper, 0, sizeof hyper);
  if ((st = lik_setup(ctx, &R, y, C))) goto cleanup;
  /* time_limit bounds the whole call: the learning and the Newton loop */
  R.deadline = o->time_limit >= 0 ? sgp_clock() + fmax(o->time_limit, 1e-9) : 0.0;
  if ((st = sgp_laplace_select(ctx, X, &R.lik_own, o, R.deadline, &ro, &hyper))) goto cleanup;
  R.o = o = &ro;
  if ((st = sgp_kernel_check(ctx, &o->kernel, X.cols))) goto cleanup;
  if ((st = run_setup(ctx, &R, X, C, unit_block))) goto cleanup;
  if ((st = fit_new(ctx, &R, X.rows, X.cols, prior_mean, &fit))) goto cleanup;
  fit->hyper = hyper; /* the fit owns it now */
  memset(&hyper, 0, sizeof hyper);
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
  if ((st = fit_finish(ctx, &R, fit, X, stop ? stop : SGP_STOP_MAXNEWTON, inner_reason, have)))
    goto cleanup;
  *out = fit;
  fit = NULL;
cleanup:
  sgp_laplace_fit_free(fit);
  sgp_hyper_free(&hyper);
  run_free(&R);
  return st;
}
