/* bench_ski_learn.c -- ski_gsgp's hyperparameter learning at scale: the cost
 * per optimizer step does not depend on n. 3-D data, uniform on the unit cube, y = sin(4 x1) cos(3 x2) + x3 +
 * N(0, 0.1^2), streamed in chunks of 10^6 rows: the statistics of each chunk
 * (sgp_ski_stats_compute, with 30 probe sketches keyed by the global row) are
 * merged into one (sgp_ski_stats_merge; the sketches add). Then, on a
 * 64 x 64 x 32 = 128K-point cubic grid:
 *  - step: the time of one optimizer step, i.e. one sgp_ski_loglik_grad_eig
 *    evaluation with the learning tolerances, at the data-based start values
 *    (median of 3);
 *  - learn: the whole model selection after the statistics pass
 *    (sgp_ski_fit_learn: start values, L-BFGS, the fit at the learned values).
 * Targets: step(1e6) and step(1e8) within 20% of each other;
 * learn <= 60 s at m = 128K. Usage: bench_ski_learn [n ...] (default 1e6 1e8).
 * Environment: BENCH_REPS (step repetitions, default 3), BENCH_STEP_ONLY (skip
 * the whole learning), BENCH_PAD (the grid's pad cells, default 2: grid_pad),
 * BENCH_PROBES (the eigenbasis path's probes), BENCH_PLAIN (time the plain SLQ
 * step), BENCH_DENSITY (the step with the density preconditioner), BENCH_BALL
 * (data uniform in the inscribed ball), BENCH_SLAB (x3 = (x1 + x2)/2 +
 * N(0, 0.05^2), clipped to [0, 1]). Progress on stderr.
 * Built and run by `make bench-ski-learn` (part of `make bench`). Output: one
 * `BENCH ski_learn n=.. m=.. pass=..s step=..s learn=..s evals=.. ...` line
 * per n.
 *
 * Measured 2026-11-25 on the 2-core development machine, shared with other
 * jobs (load average 2.5-8 during the runs, so timings vary by 2x with the
 * load; BENCH_REPS=1 BENCH_STEP_ONLY=1), after the block stencil product:
 *   n = 1e6: pass   6.7 s, step 216 s (300 Krylov steps, the cap)
 *   n = 1e7: pass  64.7 s, step 192 s (300)
 *   n = 1e8: pass 489.9 s, step 129 s (300)
 * Every step does the same work (the probe solves run to the LEARN_KRYLOV cap
 * at the start values; nothing in a step depends on n), so the spread is the
 * machine's load, not n. Measured again 2026-11-27 on the idle machine (same
 * settings): n = 1e6: pass 3.3 s, step 119.6 s; n = 1e8: pass 307.6 s, step
 * 120.5 s (both at the cap): within 1%, because both stop at the cap.
 * Those steps were the plain SLQ (sgp_ski_loglik_grad; BENCH_PLAIN=1 times it
 * instead). The learning of a separable kernel now runs in the kernel's
 * eigenbasis (sgp_ski_loglik_grad_eig, preconditioned; 10 probes to 1e-3,
 * ski_select.c), and so does the step timed here. 2026-11-27, idle machine,
 * `bench_ski_learn 1e6 1e8`, with its first preconditioner (diagonal in the
 * eigenbasis, from the data density; BENCH_DENSITY):
 *   n = 1e6: pass   3.0 s, step 1.65 s (13 Krylov steps), learn 45.3 s,
 *            23 evaluations, ell 0.6487, s 1.753, noise 0.0100
 *   n = 1e8: pass 310.7 s, step 3.32 s (32), learn 74.3 s, 20 evaluations,
 *            ell 0.6504, s 2.069, noise 0.0100
 * (the data's noise variance is 0.01): not within 20%, since the diagonal
 * missed more of B's coupling of modes as n grew, most of it from the grid's
 * pad (the outer cells hold no datum). With the marginal preconditioner (the
 * default since: B replaced by the Kronecker product of its marginals, B's
 * expectation for this product density), 2026-11-27 (later), idle machine:
 *   n = 1e6: pass   3.2 s, step 0.497 s (1 Krylov step), learn 19.6 s,
 *            24 evaluations, ell 0.6349, s 1.516, noise 0.0100
 *   n = 1e8: pass 337.9 s, step 0.488 s (1), learn 31.2 s, 33 evaluations,
 *            ell 0.7001, s 4.117, noise 0.0100
 * Step within 2%, learning within 60 s at both n. With the lengthscale
 * traces' control variate (same day; the lengthscale derivative's standard
 * error 0.183 against 12.7 at n = 1e6, 0.083 against 24.7 at 1e8):
 *   n = 1e6: step 0.528 s (1), learn 16.7 s, 20 evaluations, ell 0.6359,
 *            s 1.513, noise 0.0100
 *   n = 1e8: pass 321.0 s, step 0.518 s (1), learn 30.5 s, 30 evaluations,
 *            ell 0.7058, s 4.369, noise 0.0100
 * The fit at the learned values after it (EFCG, `fit_its`) took 300
 * iterations at n = 1e6 and ran to max_iter 1000 at 1e8. With B's marginals
 * made once per learning (and here once for the steps), same day:
 *   n = 1e6: step 0.456 s (1), learn 15.3 s, 20 evaluations (same values)
 *   n = 1e8: pass 323.3 s, step 0.444 s (1), learn 27.5 s, 30 evaluations Other data, n = 1e6, step:
 *   BENCH_BALL: 1.95 s (18 Krylov steps), BENCH_DENSITY 11.95 s (147);
 *   BENCH_SLAB: 22.9 s (300, the cap), BENCH_DENSITY 25.2 s (300).
 * Earlier, with the density preconditioner, BENCH_PAD=1 (grid_pad = 1):
 *   n = 1e6: step 0.98 s (6 Krylov steps), learn 29.9 s, 24 evaluations
 *   n = 1e7: step 1.14 s (8)
 *   n = 1e8: step 1.44 s (11), learn 68.4 s, 21 evaluations
 * (ell 0.748, s 5.03, noise 0.0100 at 1e8: another grid, another model). */
#define _GNU_SOURCE
#include "ski/ski.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK 1000000
#define PROBES 30 /* the sketches'; the eigenbasis path's: BENCH_PROBES, default sgp_ski_probes */

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void check(sgp_ctx *ctx, int code, const char *what)
{
  if (code) {
    fprintf(stderr, "bench_ski_learn: %s: %s\n", what, ctx->errmsg);
    exit(1);
  }
}

static void run(int64_t n)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.nthreads = 2;
  ctx.seed = 1;
  const int64_t size[3] = {64, 64, 32};
  const double range[6] = {0, 0, 0, 1, 1, 1};
  sgp_ski_grid g;
  const int pad = getenv("BENCH_PAD") ? atoi(getenv("BENCH_PAD")) : -1; /* -1: 2 cells */
  check(&ctx, sgp_ski_grid_auto(&ctx, sgp_cmat_of(range, 3, 2), size, SGP_SKI_CUBIC, pad, &g),
        "grid");
  sgp_ski_opts o;
  sgp_ski_opts_default(&o);
  o.probes = PROBES; /* the sketches' */
  o.seed = 1;
  int64_t m = 0;
  check(&ctx, sgp_ski_stats_shape(&ctx, &g, SGP_SKI_CUBIC, &m, NULL), "shape");
  double *X = malloc(sizeof(double) * 3 * CHUNK), *y = malloc(sizeof(double) * CHUNK);
  double *uz = calloc((size_t)(m * PROBES), sizeof(double));
  double *uzc = malloc(sizeof(double) * (size_t)(m * PROBES));
  if (!X || !y || !uz || !uzc) { fprintf(stderr, "bench_ski_learn: out of memory\n"); exit(1); }
  sgp_ski_stats *total = NULL;
  double rhoz = 0.0;
  sgp_rng rng;
  sgp_rng_seed(&rng, 42);
  const int ball = getenv("BENCH_BALL") != NULL, slab = getenv("BENCH_SLAB") != NULL;
  const double t0 = now();
  for (int64_t first = 0; first < n; first += CHUNK) {
    const int64_t nc = n - first < CHUNK ? n - first : CHUNK;
    for (int64_t i = 0; i < nc; i++) {
      double r2;
      do { /* BENCH_BALL: uniform in the ball inscribed in the cube */
        r2 = 0.0;
        for (int j = 0; j < 3; j++) {
          X[i + j * nc] = sgp_rng_uniform(&rng);
          r2 += (X[i + j * nc] - 0.5) * (X[i + j * nc] - 0.5);
        }
      } while (ball && r2 > 0.25);
      if (slab) /* BENCH_SLAB: near the plane x3 = (x1 + x2) / 2 */
        X[i + 2 * nc] = fmin(1.0, fmax(0.0, 0.5 * (X[i] + X[i + nc]) + 0.05 * sgp_rng_normal(&rng)));
      y[i] = sin(4 * X[i]) * cos(3 * X[i + nc]) + X[i + 2 * nc] + 0.1 * sgp_rng_normal(&rng);
    }
    sgp_ski_stats *st = NULL;
    double rz = 0.0;
    memset(uzc, 0, sizeof(double) * (size_t)(m * PROBES));
    check(&ctx, sgp_ski_stats_compute(&ctx, &g, &o, sgp_cmat_of(X, nc, 3), sgp_cmat_of(y, nc, 1),
                                      first, &st, uzc, &rz), "stats");
    for (int64_t k = 0; k < m * PROBES; k++) uz[k] += uzc[k];
    rhoz += rz;
    if (!total) {
      total = st;
    } else {
      check(&ctx, sgp_ski_stats_merge(&ctx, total, st), "merge");
      sgp_ski_stats_free(st);
    }
  }
  const double t_pass = now() - t0;
  fprintf(stderr, "bench_ski_learn: n=%.0e statistics pass %.1f s\n", (double)n, t_pass);
  sgp_ski_stats_data sd;
  check(&ctx, sgp_ski_stats_export(&ctx, total, &sd), "export");
  sd.probes = PROBES;
  sd.probe_seed = 1;
  sd.uz = uz;
  sd.rhoz = rhoz;
  /* one optimizer step at the start values the learning uses (var(y)/2,
   * var(y)/4, the lengthscale from the statistics), with its tolerances */
  const double mu = total->ysum / (double)n;
  const double v = (total->yy - (double)n * mu * mu) / (double)(n - 1);
  sgp_ski_loglik_opts lo;
  sgp_ski_loglik_opts_default(&lo);
  lo.tol = lo.mean_tol = 1e-6; /* ski_select.c: LEARN_TOL, LEARN_KRYLOV */
  /* the eigenbasis path's probes: ski_select.c's EIG_PROBE_TOL and sgp_ski_probes */
  sgp_ski_opts eo = o;
  eo.probes = getenv("BENCH_PROBES") ? atoi(getenv("BENCH_PROBES")) : 0;
  const int64_t eprobes = sgp_ski_probes(&eo, 1);
  const double ptol = getenv("BENCH_PLAIN") ? 1e-6 : 1e-3;
  lo.slq_max_iter = 300;
  if (getenv("BENCH_DENSITY")) lo.eig_precond = SGP_SKI_EIG_PRECOND_DENSITY;
  /* B's marginals made once, as the learning makes them (ski_select.c) */
  sgp_ski_marginals mg;
  check(&ctx, sgp_ski_marginals_make(&ctx, total, &mg), "marginals");
  lo.marginals = &mg;
  const double ell = 0.4;
  sgp_kernel k = {SGP_KERNEL_RBF, &ell, 1, v / 2};
  sgp_ski_loglik_grad_result r;
  double ts[3];
  lo.tol = ptol;
  const int reps = getenv("BENCH_REPS") ? atoi(getenv("BENCH_REPS")) : 3;
  for (int rep = 0; rep < reps; rep++) {
    const double t1 = now();
    if (getenv("BENCH_PLAIN"))
      check(&ctx, sgp_ski_loglik_grad(&ctx, total, &k, v / 4, NULL, uz, rhoz, PROBES, &lo, NULL,
                                      &r), "loglik_grad");
    else
      check(&ctx, sgp_ski_loglik_grad_eig(&ctx, total, &k, v / 4, NULL, eprobes, 1, &lo, NULL,
                                          &r), "loglik_grad_eig");
    fprintf(stderr, "bench_ski_learn: loglik %.6f (logdet %.4f se %.3g, datafit %.4f) mean its "
            "%lld grad %.4g %.4g %.4g (se %.3g %.3g %.3g)\n", r.value.loglik, r.value.logdet,
            r.value.logdet_se, r.value.datafit, (long long)r.value.mean_info.iterations,
            r.grad[0], r.grad[1], r.grad[2], r.grad_se[0], r.grad_se[1], r.grad_se[2]);
    ts[rep] = now() - t1;
    fprintf(stderr, "bench_ski_learn: step %.2f s (%lld Krylov steps)\n", ts[rep],
            (long long)r.value.slq_iterations);
  }
  for (int rep = reps; rep < 3; rep++) ts[rep] = ts[0];
  if (getenv("BENCH_STEP_ONLY")) {
    printf("BENCH ski_learn n=%.0e m=%lld pass=%.1fs step=%.3fs (krylov %lld)\n", (double)n,
           (long long)m, t_pass, ts[0], (long long)r.value.slq_iterations);
    sgp_ski_marginals_free(&mg);
    sgp_ski_stats_free(total);
    free(X); free(y); free(uz); free(uzc);
    return;
  }
  for (int a = 0; a < 3; a++)
    for (int b = a + 1; b < 3; b++)
      if (ts[b] < ts[a]) { const double t = ts[a]; ts[a] = ts[b]; ts[b] = t; }
  /* the whole learning after the pass */
  sgp_ski_opts ro;
  sgp_ski_selection sel;
  sgp_ski_result res;
  double *w = malloc(sizeof(double) * (size_t)m), *hist = malloc(sizeof(double) * 1001);
  memset(&res, 0, sizeof res);
  res.weights = w;
  res.history = hist;
  const double t2 = now();
  check(&ctx, sgp_ski_fit_learn(&ctx, &sd, &eo, sgp_cmat_of(NULL, 0, 0), sgp_cmat_of(NULL, 0, 0),
                                &ro, &sel, &res), "fit_learn");
  const double t_learn = now() - t2;
  const sgp_hyper *h = &sel.hyper;
  for (int64_t e = 0; e < h->n_eval; e++) /* the trace: (ell, s, mean, noise) */
    fprintf(stderr, "eval %2lld %7.1f s: loglik %.3f ell %.4f s %.4f mean %.4f noise %.5f\n",
            (long long)e, h->tr_seconds[e], h->tr_loglik[e], h->tr_theta[e],
            h->tr_theta[e + h->n_eval], h->tr_theta[e + 2 * h->n_eval],
            h->tr_theta[e + 3 * h->n_eval]);
  printf("BENCH ski_learn n=%.0e m=%lld pass=%.1fs step=%.3fs (krylov %lld) learn=%.1fs "
         "evals=%lld (last at %.1fs) fit_its=%lld converged=%d ell=%.4g s=%.4g noise=%.4g "
         "loglik=%.8g\n", (double)n, (long long)m, t_pass, ts[1],
         (long long)r.value.slq_iterations, t_learn, (long long)h->n_eval,
         h->n_eval > 0 ? h->tr_seconds[h->n_eval - 1] : 0.0, (long long)res.iterations,
         h->optim_converged, h->lengthscale[0], h->outputscale, h->noise, h->loglik);
  fflush(stdout);
  sgp_ski_selection_free(&sel);
  sgp_ski_marginals_free(&mg);
  sgp_ski_stats_free(total);
  free(X); free(y); free(uz); free(uzc); free(w); free(hist);
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    run(1000000);
    run(100000000);
  }
  for (int i = 1; i < argc; i++) run((int64_t)strtod(argv[i], NULL));
  return 0;
}
