/* bench_valla_reg.c -- cases c and d: regression on n = 1e6 synthetic points with a
 * 3x200 tanh MLP (MAP by mlp_fit), MAP(+noise) vs VaLLA M = 100; and the speed of
 * 20000 VaLLA iterations (batch 100, 2 threads) for n = 1e5 against n = 1e6. */
#include "bench_valla.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define D_IN 8

/* y = f(x) + heteroscedastic noise, x ~ N(0, I_8); y has mean ~0 and sd ~1. */
static void make_data(sgp_rng *rng, int64_t n, double *X, double *y)
{
  for (int64_t j = 0; j < D_IN; j++)
    for (int64_t i = 0; i < n; i++) X[i + n * j] = sgp_rng_normal(rng);
  for (int64_t i = 0; i < n; i++) {
    const double *x = X + i;
    const double f = sin(2 * x[0]) + 0.5 * x[n] * x[2 * n] + 0.6 * cos(x[3 * n]) +
                     0.3 * x[4 * n] * x[4 * n] - 0.4 * tanh(x[5 * n] + x[6 * n]) + 0.2 * x[7 * n];
    const double sd = 0.15 + 0.25 * fabs(sin(x[5 * n]));
    y[i] = f - 0.5 + sd * sgp_rng_normal(rng);
  }
}

/* One VaLLA fit on the first n rows of (X, y) (ld ldx); returns seconds. */
static double fit_valla(const sgp_valla_net *net, const double *X, int64_t ldx, const double *y,
                        int64_t n, const double *Xv, const double *yv, int64_t nv, int64_t iters,
                        int64_t val_max, double *cpu, sgp_valla_result **out)
{
  sgp_ctx ctx = bv_ctx(7);
  sgp_valla_opts o;
  sgp_valla_opts_default(&o);
  o.n_inducing = 100;
  o.iterations = iters;
  o.batch_size = 100;
  o.val_max = val_max;
  o.patience = iters; /* run every iteration (timing); the best state is restored */
  const sgp_cmat Xc = {X, n, D_IN, ldx};
  const double t0 = bv_now(), c0 = bv_cpu();
  bv_check(sgp_valla_fit(&ctx, net, Xc, sgp_cmat_of(y, n, 1), sgp_cmat_of(Xv, nv, D_IN),
                         sgp_cmat_of(yv, nv, 1), &o, out),
           &ctx, "valla fit");
  *cpu = bv_cpu() - c0;
  return bv_now() - t0;
}

int bv_reg_speed(void)
{
  const int64_t n = bv_quick ? 100000 : 1000000, n_small = n / 10;
  const int64_t nv = bv_quick ? 2000 : 10000, nt = bv_quick ? 2000 : 10000;
  const int64_t map_iters = bv_quick ? 300 : 10000, iters = bv_quick ? 300 : 20000;
  const int64_t val_max = 1000;
  sgp_rng rng;
  sgp_rng_seed(&rng, 2024);
  double *X = bv_alloc(n * D_IN), *y = bv_alloc(n), *Xv = bv_alloc(nv * D_IN), *yv = bv_alloc(nv),
         *Xt = bv_alloc(nt * D_IN), *yt = bv_alloc(nt);
  make_data(&rng, n, X, y);
  make_data(&rng, nv, Xv, yv);
  make_data(&rng, nt, Xt, yt);

  /* MAP network: paper's settings (Adam lr 1e-2, weight decay 1e-2, batch 100) */
  sgp_ctx ctx = bv_ctx(11);
  const int64_t width[4 + 1] = {D_IN, 200, 200, 200, 1};
  sgp_valla_net net;
  bv_mlp(&ctx, 4, width, &net);
  sgp_valla_mlp_fit_opts mo;
  sgp_valla_mlp_fit_opts_default(&mo);
  mo.iterations = map_iters;
  mo.batch_size = 100;
  mo.lr = 1e-2;
  mo.weight_decay = 1e-2;
  double t0 = bv_now();
  bv_check(sgp_valla_mlp_fit(&ctx, &net, sgp_cmat_of(X, n, D_IN), sgp_cmat_of(y, n, 1), &mo, NULL),
           &ctx, "mlp_fit");
  const double t_map = bv_now() - t0;
  /* MAP + noise: the noise variance is the validation mean squared residual */
  double *mu = bv_alloc(nt), *var = bv_alloc(nt), *gv = bv_alloc(nv);
  bv_check(sgp_valla_forward(&ctx, &net, sgp_cmat_of(Xv, nv, D_IN), sgp_mat_of(gv, nv, 1)), &ctx, "forward");
  double s2 = 0;
  for (int64_t i = 0; i < nv; i++) s2 += (yv[i] - gv[i]) * (yv[i] - gv[i]);
  s2 /= (double)nv;
  bv_check(sgp_valla_forward(&ctx, &net, sgp_cmat_of(Xt, nt, D_IN), sgp_mat_of(mu, nt, 1)), &ctx, "forward");
  for (int64_t i = 0; i < nt; i++) var[i] = s2;
  const bv_reg r_map = bv_reg_metrics(nt, yt, mu, var);

  /* speed: the small n first (its fit is only timed), then the full n */
  sgp_valla_result *fs = NULL, *fl = NULL;
  double c_small = 0, c_large = 0;
  const double t_small = fit_valla(&net, X, n, y, n_small, Xv, yv, nv, iters, val_max, &c_small, &fs);
  const double t_large = fit_valla(&net, X, n, y, n, Xv, yv, nv, iters, val_max, &c_large, &fl);
  double *mu2 = bv_alloc(nt);
  bv_check(sgp_valla_predict(&ctx, fl, sgp_cmat_of(Xt, nt, D_IN), sgp_mat_of(mu2, nt, 1),
                             sgp_mat_of(var, nt, 1), (sgp_mat){0}, (sgp_mat){0}, (sgp_mat){0}),
           &ctx, "valla predict");
  const bv_reg r_va = bv_reg_metrics(nt, yt, mu2, var);
  const double diff = fabs(t_large - t_small) / t_small;

  printf("\n== c. regression, n = %lld synthetic points (D = %d), 3x200 tanh MAP by mlp_fit "
         "(%lld iterations, Adam lr 1e-2, wd 1e-2, batch 100: %.1f s), test n = %lld\n",
         (long long)n, D_IN, (long long)map_iters, t_map, (long long)nt);
  printf("   VaLLA M = 100: %lld iterations, batch 100, lr 1e-3, validation %lld points "
         "(val_max %lld), best iteration %lld, prior_var %.4g, noise %.4g (MAP noise %.4g)\n",
         (long long)iters, (long long)nv, (long long)val_max, (long long)fl->best_iteration,
         exp(2 * fl->log_sigma0), exp(fl->log_noise) * fl->y_sd * fl->y_sd, s2);
  printf("   %-12s %9s %9s %9s   | paper, Year (for scale; other data): NLL / CRPS / CQM\n",
         "model", "NLL", "CRPS", "CQM");
  printf("   %-12s %9.4f %9.4f %9.4f   | 3.674 / 5.056 / 0.164 (CQM +0.05 in the paper)\n", "MAP+noise",
         r_map.nll, r_map.crps, r_map.cqm);
  printf("   %-12s %9.4f %9.4f %9.4f   | 3.527 / 5.071 / 0.084\n", "VaLLA 100", r_va.nll, r_va.crps,
         r_va.cqm);
  printf("   paper's claim: VaLLA better in NLL and CQM, worse in CRPS -> here NLL %s, CQM %s, CRPS %s\n",
         r_va.nll < r_map.nll ? "better" : "worse", r_va.cqm < r_map.cqm ? "better" : "worse",
         r_va.crps < r_map.crps ? "better" : "worse");
  printf("BENCH valla_reg n=%lld model=map nll=%.4f crps=%.4f cqm=%.4f time_map=%.1fs threads=2\n",
         (long long)n, r_map.nll, r_map.crps, r_map.cqm, t_map);
  printf("BENCH valla_reg n=%lld model=valla m=100 nll=%.4f crps=%.4f cqm=%.4f threads=2\n",
         (long long)n, r_va.nll, r_va.crps, r_va.cqm);

  printf("\n== d. speed: 3x200 tanh, M = 100, batch 100, %lld iterations, 2 threads, "
         "validation every 100 on %lld points, %s\n", (long long)iters, (long long)val_max, bv_load());
  printf("   %-10s %10s %12s %10s   target\n", "n", "time", "per iter", "CPU time");
  printf("   %-10lld %9.1fs %10.2fms %9.1fs\n", (long long)n_small, t_small,
         1e3 * t_small / (double)iters, c_small);
  printf("   %-10lld %9.1fs %10.2fms %9.1fs   <= 300 s for 20000 iterations\n", (long long)n, t_large,
         1e3 * t_large / (double)iters, c_large);
  printf("   |t(%lld) - t(%lld)| / t(%lld) = %.1f%%   target <= 20%%\n", (long long)n,
         (long long)n_small, (long long)n_small, 100 * diff);
  const int pass_t = bv_quick || t_large <= 300.0 * (double)iters / 20000.0, pass_r = diff <= 0.2;
  printf("BENCH valla_speed n=%lld m=100 batch=100 iters=%lld time=%.1fs cpu=%.1fs threads=2 %s\n",
         (long long)n_small, (long long)iters, t_small, c_small, bv_load());
  printf("BENCH valla_speed n=%lld m=100 batch=100 iters=%lld time=%.1fs cpu=%.1fs target=300s pass=%d threads=2 %s\n",
         (long long)n, (long long)iters, t_large, c_large, pass_t, bv_load());
  printf("BENCH valla_speed_ratio n1=%lld n2=%lld rel_diff=%.3f target=0.2 pass=%d rss=%.0fMB\n",
         (long long)n_small, (long long)n, diff, pass_r, bv_rss_mb());
  sgp_valla_fit_free(fs);
  sgp_valla_fit_free(fl);
  sgp_valla_net_free(&net);
  free(X); free(y); free(Xv); free(yv); free(Xt); free(yt); free(mu); free(var); free(gv); free(mu2);
  return 0;
}
