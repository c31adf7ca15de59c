/* ski_solve.h -- ski_gsgp internals: the solves with s2 I + K_G B (CG and
 * its control, preconditioners), the constant mean and the predictive
 * variances (core-internal). */
#ifndef SGP_SKI_SOLVE_H
#define SGP_SKI_SOLVE_H

#include "ski/ski_stats.h"

/* ------------------------------------------------------------ ski_solve.c */

typedef struct {
  double tol;        /* stop when ||r_k|| <= tol ||b||; default 0.01 */
  int64_t max_iter;  /* default 1000 */
  int64_t precond_rank; /* sgp_ski_mean_efcg only: rank q of the K_G
                           preconditioner (ski_precond.c); 0 (default) = off */
  double quad_rtol;  /* sgp_ski_mean_efcg without preconditioner: > 0 also stops only
                        once the bound on y'A^{-1}y's error is at most quad_rtol of it
                        (the data fit, ski_loglik.c); 0 (default) = off */
} sgp_ski_solve_opts;

typedef struct {
  int64_t iterations;  /* CG iterations run */
  int converged;       /* 1 when the true relative residual met tol */
  double rel_residual; /* ||b - A x|| / ||b|| of the returned x (recomputed) */
  sgp_ski_stop stop;   /* why it stopped (TOL when converged) */
  double quad, quad_err; /* sgp_ski_mean_efcg without preconditioner (else NaN):
                            y'A^{-1}y ~ y'x + x'r of the returned x, short by at
                            most quad_err (||r||^2 / noise and rounding) */
} sgp_ski_solve_info;

void sgp_ski_solve_opts_default(sgp_ski_solve_opts *o);

/* ------------------------------------------------------------ ski_cg.c */

/* A conjugate-gradient solve for sgp_ski_cg_run: callbacks on its state.
 *  step:    delta = p'Ap and the step a = gamma / delta (a unused if delta <= 0);
 *  advance: x += a p, r -= a A p; *g2 = ||r||^2 of the recursion;
 *  verify:  *g2 = ||b - A x||^2 of the iterate (an upper bound: rounding
 *           allowance included) without touching the recursion's vectors;
 *           replace: r becomes that true residual;
 *  direct:  p = r + b p (b from the new g2, CG's or PCG's; b = 0 when
 *           restart, after a replacement), returns b;
 *  target:  (may be NULL) the relative residual the iterate of the last
 *           verify needs for the quantity the solve is for (<= 0: none
 *           reachable); the solve's tolerance becomes min(tol, target).
 * what names the solve in messages ("mean", "variance"). */
typedef struct {
  void *state;
  const char *what;
  int (*step)(void *state, sgp_ctx *ctx, double *delta, double *a);
  int (*advance)(void *state, sgp_ctx *ctx, double a, double *g2);
  int (*verify)(void *state, sgp_ctx *ctx, int replace, double *g2);
  double (*direct)(void *state, double g2, int restart);
  double (*target)(void *state);
} sgp_ski_cg;

/* Runs cg from ||r0||^2 = g2 (relative to nb = ||b||) until the true relative
 * residual meets o->tol, max_iter iterations, the attainable accuracy (the
 * recursion drifted again and the true residual did not halve since it was
 * last replaced) or a breakdown (ski_cg.c explains); info as
 * sgp_ski_solve_info says, history (max_iter + 1)
 * relative residuals (the recursion's; the true one where verified, always the
 * last), alpha / beta the coefficients (iterations resp. iterations - 1 of
 * them when it stopped before max_iter). The returned iterate is always
 * verified last (verify with replace = 0 when needed). A non-finite value is
 * SGP_EINVAL naming outputscale; SGP_EINTERRUPT from the hook (polled every
 * iteration). */
int sgp_ski_cg_run(sgp_ctx *ctx, const sgp_ski_cg *cg, double g2, double nb,
                   const sgp_ski_solve_opts *o, sgp_ski_solve_info *info, double *history,
                   double *alpha, double *beta);
/* a'b and c'd in one pass (each summed in index order, as a plain loop). */
void sgp_ski_dot2(int64_t n, const double *a, const double *b, const double *c,
                  const double *d, double *ab, double *cd);
/* a[k]'b[k], k = 0..3, in one pass. */
void sgp_ski_dot4(int64_t n, const double *const a[4], const double *const b[4],
                  double out[4]);
/* ||W rh + c y||^2 = rh'u + 2 c rh'u0 + c^2 rho0 (u = B rh, u0 = W'y or NULL)
 * plus an allowance for the rounding of the sums ((2 + sqrt(m)) eps times the
 * magnitudes of the terms): at least 0 and not below the true value but by
 * rounding beyond the allowance. */
double sgp_ski_fnorm2(int64_t m, const double *rh, const double *u, const double *u0, double c,
                      double rho0);

/* Posterior mean, SKI baseline: CG on
 * (W K_G W' + noise I) x = y from x0 = 0 with the operator of sgp_ski_op_ski;
 * weights (m) = K_G W' x, the mean cache a: mu(x*) = w(x*)' a.
 * Optional outputs (NULL to skip): x (n), history (max_iter + 1 relative
 * residuals, history[0] = 1; iterations + 1 are written), alpha and beta
 * (max_iter each: the CG coefficients; iterations resp. iterations - 1 of them
 * are written when converged, iterations otherwise). Errors name `y`, `op`,
 * `tol`, `max_iter`; SGP_EINTERRUPT from the interrupt hook (polled every
 * iteration). */
int sgp_ski_mean_cg(sgp_ctx *ctx, const sgp_op *ski, sgp_cmat y, const sgp_ski_solve_opts *o,
                    double *weights, double *x, sgp_ski_solve_info *info, double *history,
                    double *alpha, double *beta);

/* Checks the model every SKI solve shares: statistics present, K_G operator of
 * the grid's order, noise a positive finite variance (errors name them). */
int sgp_ski_check_model(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise);

/* The factorized operator (v, u) = Bop(r): u = B r and
 * v = K_G u + noise r (m values each) -- the one B and one K_G product of a
 * factorized CG iteration (ski_solve.c, ski_precond.c). */
int sgp_ski_bop_pair(sgp_ctx *ctx, const sgp_op *B, const sgp_op *kg, double noise, int64_t m,
                     const double *r, double *u, double *v);

/* The true residual r = y - A x of x = W xh + cx y in factorized form:
 * t = B xh + cx u_y, weights = K_G t (the mean cache of x),
 * r = W rh + cr y with rh = -(weights + noise xh), cr = 1 - noise cx;
 * uh = B rh and *g2 = ||r||^2 (sgp_ski_fnorm2's bound). t, weights, rh, uh: m. */
int sgp_ski_efcg_residual(sgp_ctx *ctx, const sgp_op *B, const sgp_op *kg, double noise,
                          const sgp_ski_stats *st, const double *xh, double cx, double *t,
                          double *weights, double *rh, double *cr, double *uh, double *g2);

/* Posterior mean by efficiently factorized CG (x0 = 0,
 * r0 = y): the same iterates as sgp_ski_mean_cg in exact
 * arithmetic, with only grid-size work per iteration (one K_G and one B
 * product). Needs only the statistics st, the K_G operator kg and the noise
 * variance. weights (m) = K_G W'x = K_G (B xhat + c_x u_y). Optional: xhat (m) and cx with
 * x = W xhat + c_x y, and history / alpha / beta as for sgp_ski_mean_cg.
 * Errors name `stats`, `kg`, `noise`, `tol`, `max_iter`. */
int sgp_ski_mean_efcg(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                      const sgp_ski_solve_opts *o, double *weights, double *xhat, double *cx,
                      sgp_ski_solve_info *info, double *history, double *alpha,
                      double *beta);

/* Simplified EFCG for A x = b from x0 when the initial
 * residual r0 = b - A x0 = W rhat0 lies in span(W) (e.g. x0 = 0, b = W rhat0:
 * the exact covariance columns of the exact variances; or the mean with x0 = y/noise).
 * Only B and K_G products. nb = ||b|| for the relative stopping rule
 * ||r_k|| <= tol nb (nb <= 0: nb = ||r0|| = sqrt(rhat0' B rhat0), the x0 = 0
 * case). Returns xd (m) = W'(x - x0) and optionally xhat (m) with
 * x - x0 = W xhat; info, history (history[0] = ||r0||/nb), alpha, beta as for
 * sgp_ski_mean_cg. Errors name `stats`, `kg`, `noise`, `rhat0`, `tol`,
 * `max_iter`. */
int sgp_ski_sefcg(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                  const double *rhat0, double nb, const sgp_ski_solve_opts *o, double *xd,
                  double *xhat, sgp_ski_solve_info *info, double *history, double *alpha,
                  double *beta);
/* An exact variance v = prior - k'A^{-1}k, k = W rhat0, and its a-posteriori
 * bound (ski_var.c derives it): in, prior = w*'K_G w* and rtol, the relative
 * accuracy wanted; out, var (the estimate) and err with |var - v| <= err. */
typedef struct {
  double prior, rtol;
  double var, err;
} sgp_ski_var_bound;
/* sgp_ski_sefcg from x0 = 0 (nb = ||W rhat0||) for the variance of vb: the
 * solve also stops only once err <= rtol (var - err) (tol then shrinks as
 * sgp_ski_cg's target says; info->converged: both met). xd as there. */
int sgp_ski_sefcg_var(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                      const double *rhat0, const sgp_ski_solve_opts *o, double *xd,
                      sgp_ski_var_bound *vb, sgp_ski_solve_info *info);
/* Posterior mean by sEFCG from x0 = y/noise (the start of
 * Yadav, Sheldon and Musco's paper and code): rhat0 = -K_G u_y/noise, nb = ||y||,
 * W'x = xd + u_y/noise, weights = K_G W'x. history[0] may exceed 1. */
int sgp_ski_mean_sefcg(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                       const sgp_ski_solve_opts *o, double *weights, sgp_ski_solve_info *info,
                       double *history, double *alpha, double *beta);

/* Predictive mean mu(x*) = w(x*)' a at the rows of Xs (errors name `x`). */
int sgp_ski_predict_mean(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                         sgp_ski_bounds_policy policy, sgp_cmat Xs, const double *weights,
                         double *mean);

/* ------------------------------------------------------------ ski_mean.c */

/* *out: st with the targets y - mu 1 (W'y - mu W'1, their sum and squares);
 * shares st's arrays except uy, which is uy_buf (m). Never free *out. */
void sgp_ski_stats_centred(const sgp_ski_stats *st, double mu, double *uy_buf,
                           sgp_ski_stats *out);
/* GLS estimate of the constant prior mean, mu = 1'A^-1 y / 1'A^-1 1, from the
 * statistics: one EFCG solve of A x = 1 (so's tolerance, relative to ||1||),
 * x = W xh + c 1, so 1'x and y'x are sums over the grid. work: 2 m. 0 when
 * n = 0. info: that solve's. */
int sgp_ski_gls_mean(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                     const sgp_ski_solve_opts *so, double *work, double *mu,
                     sgp_ski_solve_info *info);
/* The same by CG on the n data (method "ski"; ski from sgp_ski_op_ski), y the
 * targets. work: 2 n + m. */
int sgp_ski_gls_mean_cg(sgp_ctx *ctx, const sgp_op *ski, sgp_cmat y, const sgp_ski_solve_opts *so,
                        double *work, double *mu, sgp_ski_solve_info *info);
/* The error of a GLS mean whose 1'A^-1 1 (den) is not positive and finite. */
int sgp_ski_gls_fail(sgp_ctx *ctx, double den);

/* ------------------------------------------------------------ ski_precond.c */

/* Top-q eigenpairs of K_G by block subspace iteration with
 * Rayleigh-Ritz on q + oversampling columns from a Gaussian start drawn from
 * ctx->rng, using only kg products (any kernel the grid operator supports).
 * Stops when every kept pair has ||K_G v - lam v|| <= tol lam_1 or after
 * max_iter iterations. V (m-by-q, orthonormal columns), lam (q, descending).
 * iters / resid (may be NULL): iterations run and the largest
 * ||K_G v - lam v|| / lam_1 of the kept pairs. Errors name `precond_rank`. */
int sgp_ski_kg_eig(sgp_ctx *ctx, const sgp_op *kg, int64_t q, double tol, int64_t max_iter,
                   double *V, double *lam, int64_t *iters, double *resid);

/* Preconditioned EFCG for the posterior mean: P = noise I +
 * W V L V' W' with V L V' the top-q eigenpairs of K_G (q = o->precond_rank),
 * applied by Woodbury in factorized form with V'BV formed once. One B and one
 * K_G product per iteration plus O(m q); stops on the unpreconditioned
 * ||r_k|| <= tol ||y||. Same outputs as sgp_ski_mean_efcg (alpha / beta are
 * the preconditioned CG coefficients), which calls it when precond_rank > 0. */
int sgp_ski_mean_pefcg(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                       const sgp_ski_solve_opts *o, double *weights, double *xhat, double *cx,
                       sgp_ski_solve_info *info, double *history, double *alpha,
                       double *beta);

/* ------------------------------------------------------------ ski_var.c */

/* Prior SKI variance w(x)' K_G w(x) at the rows of Xs: a table of
 * K_G's first column (one K_G product) and the tap pairs of each point, so
 * O(taps^2) per point. kg is the operator of sgp_ski_grid_op for the grid g
 * (stationary kernels are even in each coordinate). Errors name `xtest`. */
int sgp_ski_prior_var(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                      sgp_ski_bounds_policy policy, const sgp_op *kg, sgp_cmat Xs,
                      double *prior);

/* The relative accuracy of what ski_gsgp reads from its solves beyond their
 * residual: an exact variance (its solve runs until the bound on its error is
 * at most this fraction of it; ski_var.c derives the bound), the data fit of
 * the log-likelihood (ski_loglik.c), and what the LOVE check must show for the
 * lanczos variances to count as resolved (ski_love_check.c). */
#define SGP_SKI_RTOL 1e-4

/* What the variances of a set of test points met: solve (iterations = the most
 * any point needed, converged = every point met its tolerance, rel_residual and
 * stop the worst), rel_error = the largest bound on a variance's relative error
 * (Inf: one not resolved from 0), clamped = estimates below 0 set to 0. */
typedef struct {
  sgp_ski_solve_info solve;
  double rel_error;
  int64_t clamped;
} sgp_ski_var_info;
void sgp_ski_var_info_init(sgp_ski_var_info *info);

/* Exact posterior variances at the rows of Xs:
 * var(x*) = w*' K_G w* - rhat' W'A^{-1}W rhat with rhat = K_G w(x*), one sEFCG
 * solve (Alg. A4, x0 = 0, relative to ||W rhat|| = sqrt(rhat' B rhat)) per
 * test point (sgp_ski_sefcg_var: to tol and to a relative error bound of
 * SGP_SKI_RTOL); only grid-size work. var (t) receives the latent
 * (noise-free) variance in [0, prior], a negative estimate set to 0 and
 * counted; pvar (t, may be NULL) the predictive variance var + noise. info
 * (may be NULL) as sgp_ski_var_info says. Errors name `stats`, `kg`, `noise`,
 * `xtest`, `tol`, `max_iter`. */
int sgp_ski_var_exact(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                      sgp_ski_bounds_policy policy, sgp_cmat Xs, const sgp_ski_solve_opts *o,
                      double *var, double *pvar, sgp_ski_var_info *info);

/* LOVE-style low-rank cache: k steps of
 * span-W efficiently factorized Lanczos (Alg. A6', full reorthogonalization
 * by CGS2, start bhat = K_G 1/m) give Q = W Qhat, T; with R = K_G B Qhat and
 * T = C C' (bidiagonal Cholesky), F = R C^{-T} (m-by-k) so that
 * K_G W' Q T^{-1} Q' W K_G = F F'. Stored transposed (k-by-m) so a test point
 * costs O(k taps) (+ O(taps^2) for the prior). */
typedef struct sgp_ski_love {
  sgp_ski_grid grid;
  sgp_ski_interpolation interp;
  int64_t m;
  int64_t rank;        /* Lanczos steps kept (<= requested: invariant subspace) */
  double *Ft;          /* rank-by-m: Ft[j + g rank] = F[g, j] */
  double *c0;          /* m: K_G e_0 (prior table) */
  double error;        /* sgp_ski_love_check's bound (NaN: not checked) */
} sgp_ski_love;

/* Check points of the LOVE cache (ski_love_check.c). */
#define SGP_SKI_LOVE_CHECKS 8
/* The Lanczos basis a LOVE cache was made of: Qhat, Phat = B Qhat (m-by-k,
 * leading dimension m) and T = C C' (cc: k, ee: k - 1); c0 = K_G e_0. */
typedef struct {
  int64_t k;
  const double *Qh, *Ph, *cc, *ee, *c0;
} sgp_ski_love_basis;
/* *rel_error: the largest bound on the relative error of the LOVE variance at
 * the check points (ski_love_check.c derives it; Inf: one not resolved from 0;
 * 0 without data). B is the operator of st (sgp_ski_stats_op). */
int sgp_ski_love_check(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, const sgp_op *B,
                       double noise, const sgp_ski_love_basis *lb, double *rel_error);

/* rank: 0 = the default min(m, 256); values above m are reduced to m;
 * negative is SGP_EINVAL naming `rank`. Errors also name `stats`, `kg`,
 * `noise`. Free with sgp_ski_love_free. */
int sgp_ski_love_build(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                       int64_t rank, sgp_ski_love **out);
void sgp_ski_love_free(sgp_ski_love *lv);
/* Low-rank variances at the rows of Xs: var = max(0, prior - ||F' w(x)||^2)
 * (never negative; never above the prior); pvar (may be NULL) = var + noise;
 * clamped (may be NULL): how many estimates fell below 0 and were set to 0.
 * Errors name `xtest`. */
int sgp_ski_love_var(sgp_ctx *ctx, const sgp_ski_love *lv, sgp_ski_bounds_policy policy,
                     sgp_cmat Xs, double noise, double *var, double *pvar, int64_t *clamped);

#endif
