/* skl.h -- ski_laplace internals (core-internal): the problem on the grid, the
 * Newton iteration in grid space, the evidence and its gradient, the learning.
 *
 * Notation (docs/ski_laplace.md): u = mu 1 + K alpha are the latent values at
 * the m grid points (K the grid kernel matrix, never inverted); the n observed
 * cells O carry the likelihood; g, d, t3 are the likelihood's gradient,
 * curvature and third derivative there; sw = d^1/2; B = I + sw K_OO sw (SPD,
 * eigenvalues >= 1). Vectors over the grid have m entries, vectors over the
 * observed cells n. The scattered layout's "observed cells" are its n
 * observations, with the interpolation matrix W (n x m, T taps a row) in the
 * place of the selection P: B = I + sw W K W' sw, f = mean + W K alpha. */
#ifndef SGP_SKL_H
#define SGP_SKL_H

#include "api/sgp_ski_laplace.h"
#include "ski/ski.h"
#include "laplace/lik_table.h"
#include "laplace/evidence.h"

/* The data on the grid. */
typedef struct {
  sgp_ski_grid grid;     /* made from bounds, as a fit's grid read back is */
  double bounds[2 * SGP_SKI_MAX_D]; /* d x 2: the grid's as the fit writes them */
  int64_t m, n;
  int64_t *obs;          /* n grid indices of the observed cells, ascending */
  double *y, *off, *trials; /* n each (trials NULL unless binomial) */
  double *xo;            /* n x d coordinates of the observed cells */
  sgp_lik lik;           /* over the observed cells */
  double noise;          /* gaussian: the noise variance lik.noise points to */
  double ll_shift;       /* added to the likelihood's log p (points: the terms that
                            make it the Cox process's log-likelihood) */
  int points;            /* the point-pattern layout */
  sgp_skl_layout layout; /* resolved */
  sgp_ski_interpolation interp; /* resolved */
  int64_t n_data;        /* points or observations given */
  /* scattered (widx NULL otherwise, and obs NULL then): row i of W */
  int64_t T;             /* taps per observation */
  int64_t *widx;         /* n x T grid indices (-1: no tap) */
  double *ww;            /* n x T weights */
  double wnorm2;         /* a bound on ||W||_2^2 (1 for the observed cells) */
  sgp_ski_bounds_policy policy; /* scattered: how x outside the grid was treated */
  int64_t dropped;       /* scattered: rows of x dropped (bounds_policy "drop") */
} skl_problem;

/* (W G)_i: G at observed cell i, or interpolated at observation i. */
static inline double skl_at(const skl_problem *p, const double *G, int64_t i)
{
  if (!p->widx) return G[p->obs[i]];
  const int64_t *ix = p->widx + i * p->T;
  const double *w = p->ww + i * p->T;
  double v = 0.0;
  for (int64_t t = 0; t < p->T; t++)
    if (ix[t] >= 0) v += w[t] * G[ix[t]];
  return v;
}

/* The interpolation of a layout (o's, or "auto": cubic for scattered). */
sgp_ski_interpolation skl_interp_of(const sgp_ski_laplace_opts *o, sgp_skl_layout layout);
/* Scattered: W from the n x d locations X on p's grid (p->interp, policy),
 * dropping rows under DROP (keep[i] = 0; keep may be NULL otherwise), and p->xo
 * the rows kept; sets n, T, widx, ww, wnorm2, dropped. Errors name "x". */
int skl_scattered_weights(sgp_ctx *ctx, skl_problem *p, sgp_cmat X, sgp_ski_bounds_policy policy,
                          unsigned char *keep);
/* Scattered: the layout's data (y, offset, trials per observation) into p. */
int skl_scattered_make(sgp_ctx *ctx, const sgp_ski_laplace_opts *o, const sgp_ski_laplace_data *dt,
                       skl_problem *p);

void skl_problem_free(skl_problem *p);
/* The likelihood over the n observed cells of p (y, off, trials set): kind, the
 * gaussian noise and the dispersion. */
void skl_problem_lik(skl_problem *p, sgp_likelihood kind, double noise, double dispersion);
/* p->grid made from d x 2 bounds (p->bounds keeps them) and the sizes of g0, so
 * that the fit and its grid read back (sgp_ski_grid_read) use one grid. */
int skl_problem_grid(sgp_ctx *ctx, const sgp_ski_grid *g0, const double *bounds, skl_problem *p);
/* Builds p from the data and options (skl_data.c); errors name the argument. */
int skl_problem_make(sgp_ctx *ctx, const sgp_ski_laplace_opts *o, const sgp_ski_laplace_data *dt,
                     skl_problem *p);

/* The prior at one set of hyperparameters. */
typedef struct {
  sgp_kernel kernel;     /* lengthscale points into ls */
  double ls[SGP_SKI_MAX_D];
  double mean;
  sgp_op K;              /* K_G */
  double lmax;           /* an upper bound on K's largest eigenvalue (max row sum) */
} skl_prior;

int skl_prior_make(sgp_ctx *ctx, const skl_problem *p, const sgp_kernel *k, double mean,
                   skl_prior *pr);
/* The prior of the kernel kind and alpha of base with nl lengthscales ls, the
 * outputscale os and the mean (a fit's hyper). */
int skl_prior_of(sgp_ctx *ctx, const skl_problem *p, const sgp_kernel *base, const double *ls,
                 int64_t nl, double os, double mean, skl_prior *pr);
void skl_prior_free(skl_prior *pr);

/* Y = K X for b grid vectors (m x b, ld m). */
int skl_apply_k(sgp_ctx *ctx, const sgp_op *K, int64_t m, int64_t b, const double *X, double *Y);
/* Scattered: the n x n matrix W op W' (op: K or a derivative), column blocks of
 * op products; symmetrized. */
int skl_wkw_dense(sgp_ctx *ctx, const skl_problem *p, const sgp_op *op, double *out);
/* Scattered: diag(W K W') (n) from the kernel at the taps. */
int skl_wkw_diag(sgp_ctx *ctx, const skl_problem *p, const sgp_kernel *k, double *out);
/* The lengthscale derivative operators of the grid: one per ARD lengthscale,
 * or one for all (nl of them). */
int skl_deriv_ops(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr, int64_t nl, sgp_op *dK);

/* Conjugate gradients on B = I + sw K_OO sw for b right-hand sides Z (n x b),
 * from X = 0, to a relative residual rtol or max_iter steps per column; the CG
 * coefficients go to ca, cb (max_iter x b each, may be NULL) for the Lanczos
 * quadrature, the steps of column j to steps[j] (may be NULL). *all_conv: every
 * column met rtol (true residual). */
typedef struct {
  const skl_problem *p;
  const sgp_op *K;
  const double *sw;      /* n */
} skl_bop;
int skl_cg(sgp_ctx *ctx, const skl_bop *B, int64_t b, const double *Z, double *X, double rtol,
           int64_t max_iter, double *ca, double *cb, int64_t *steps, int *all_conv,
           int64_t *total_steps);
/* Y = B X for b columns (n x b). */
int skl_bop_apply(sgp_ctx *ctx, const skl_bop *B, int64_t b, const double *X, double *Y);
/* out (m) = P'(sw o v) (sw NULL: 1): v onto the observed cells, 0 elsewhere;
 * scattered: W'(sw o v) */
void skl_scatter(const skl_problem *p, const double *sw, const double *v, double *out);

/* The Newton iteration's state; alpha and kappa carry over (warm starts). */
typedef struct {
  double *alpha, *kappa;    /* m: representer weights and K alpha */
  double *v;                /* m: the whitened latent of the eigen path (u = mean + F v) */
  double *f, *g, *w, *d3, *sw; /* n: latent at O, gradient, curvature d, t3, sqrt d */
  double logp, psi, mode_error;
  int64_t newton_steps, cg_steps;
  int converged;
  const char *stop;         /* "converged", "max_newton", "time_limit", "diverged" */
  int warm;
  /* history, one row per Newton step (cap rows) */
  int64_t rows, cap;
  double *h_psi, *h_err, *h_step, *h_cg, *h_res, *h_sec;
  double *work;             /* 6 m + 3 n scratch */
} skl_state;

int skl_state_init(sgp_ctx *ctx, skl_state *s, int64_t m, int64_t n, int64_t cap);
void skl_state_free(skl_state *s);
/* Newton to the mode at the prior pr from the state's warm start (or 0). */
int skl_newton(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr,
               const sgp_ski_laplace_opts *o, double deadline, skl_state *s);
/* f = mean + kappa at the observed cells, then skl_lik_at. */
double skl_lik_of(const skl_problem *p, const skl_prior *pr, const double *kappa, skl_state *s);
/* One row of the Newton history (Psi, mode bound, step, CG steps, residual, seconds since t0). */
void skl_history_row(skl_state *s, double psi, double err, double t, int64_t cg, double res,
                     double t0);
/* log p and its derivatives at f (n) into s (g, w, d3, sw); returns log p. */
double skl_lik_at(const skl_problem *p, skl_state *s);

/* The Laplace evidence at the mode in s (converged), and its gradient over theta =
 * (log lengthscale(s), log outputscale, mean) when grad is not NULL: exact
 * (dense on the observed cells) or estimated (probes; *se its standard error). */
int skl_evidence_exact(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr,
                       const skl_state *s, double *loglik, double *grad);
/* The probes' log-determinant estimates: Gamma_j = scale e1'log(T_j)e1 from the
 * CG coefficients of c probes (ca, cb: km x c; steps: c), summed; a probe whose
 * tridiagonal has a non-positive Ritz value (or no step) is discarded and
 * counted. qw: 3 km + km^2 scratch. */
typedef struct { double sum, sum2; int64_t used, discarded; } skl_slq_sums;
int skl_slq_quadrature(sgp_ctx *ctx, int64_t c, const int64_t *steps, const double *ca,
                       const double *cb, int64_t km, double scale, double *qw, skl_slq_sums *q);
/* Their mean and the standard error of the mean (SGP_ENOTPD with fewer than 2). */
int skl_slq_mean(sgp_ctx *ctx, const skl_slq_sums *q, double *mean, double *se);
/* With map (may be NULL), the same probes also estimate the posterior variance
 * diag(Sigma_u) at every grid point (map->var, m) with its standard error
 * (map->se, m): the stochastic variance map. */
typedef struct { double *var, *se, *fvar; } skl_varmap; /* fvar: scattered, n (may be NULL) */
int skl_evidence_slq(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr,
                     const skl_state *s, const sgp_ski_laplace_opts *o, uint64_t seed,
                     double *loglik, double *se, double *grad, skl_varmap *map);

/* Latent mean and variance at xtest (ns x d) from the latent mode u (m) and sw
 * at the observed cells (n), with o's interpolation, inner_rtol and max_iter;
 * var may be NULL. */
int skl_predict(sgp_ctx *ctx, const skl_problem *p, const sgp_op *K, const double *u,
                const double *sw, const sgp_ski_laplace_opts *o, sgp_cmat Xs, double *mean,
                double *var);
/* The latent variances of c <= 16 points given by their taps (idx, w: c x T
 * each, T = p->T or the interpolation's): the core of skl_predict. */
int skl_predict_var_taps(sgp_ctx *ctx, const skl_problem *p, const sgp_op *K, const double *sw,
                         const sgp_ski_laplace_opts *o, int64_t c, int64_t T,
                         const int64_t *idx, const double *w, double *var);
/* The response's mean and variance (rm, rv) at ns points from the latent mean and
 * variance (var NULL: 0) and log exposures off (NULL: 0), by the likelihood kind. */
void skl_response(sgp_likelihood kind, double noise, int64_t ns, const double *mean,
                  const double *var, const double *off, double *rm, double *rv);

/* A ski_laplace fit given back as plain data, read and checked (skl_fit_read.c):
 * the problem on its grid (observed cells, counts, offsets, trials, likelihood),
 * the model (o: likelihood, interpolation, kernel, noise, dispersion, inner_rtol,
 * max_iter) and views on its weights (m) and f (n). */
typedef struct {
  skl_problem p;
  sgp_ski_laplace_opts o;
  double ls[SGP_SKI_MAX_D];
  double mean;
  const double *weights, *f;
} skl_fit;
/* Errors name the field as the host's user writes it (arg, sep) with "(the fit
 * is damaged; refit it)". */
int skl_fit_read(sgp_ctx *ctx, const sgp_value *fit, const char *arg, const char *sep,
                 skl_fit *out);
void skl_fit_free(skl_fit *f);

#endif
