/* bench_valla_util.c -- timing, RSS, load and small helpers of the benchmark. */
#define _POSIX_C_SOURCE 200809L
#include "bench_valla.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

int bv_quick = 0;

double bv_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double bv_cpu(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double bv_rss_mb(void)
{
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_maxrss / 1024.0; /* Linux: kB */
}

const char *bv_load(void)
{
  static char buf[64];
  double a = 0, b = 0, c = 0;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf %lf %lf", &a, &b, &c) != 3) a = b = c = -1;
    fclose(f);
  }
  snprintf(buf, sizeof buf, "load=%.2f,%.2f,%.2f", a, b, c);
  return buf;
}

void bv_check(int st, const sgp_ctx *ctx, const char *what)
{
  if (st == SGP_OK) return;
  fprintf(stderr, "bench-valla: %s failed (%d): %s\n", what, st, ctx->errmsg);
  exit(1);
}

sgp_ctx bv_ctx(uint64_t seed)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, seed);
  ctx.nthreads = 2;
  return ctx;
}

double *bv_alloc(int64_t n)
{
  double *p = (double *)calloc((size_t)(n > 0 ? n : 1), sizeof(double));
  if (!p) { fprintf(stderr, "bench-valla: out of memory\n"); exit(1); }
  return p;
}

void bv_mlp(sgp_ctx *ctx, int L, const int64_t *width, sgp_valla_net *net)
{
  sgp_cmat W[16], b[16];
  double *buf[32];
  for (int l = 0; l < L; l++) {
    buf[2 * l] = bv_alloc(width[l] * width[l + 1]);
    buf[2 * l + 1] = bv_alloc(width[l + 1]);
    W[l] = sgp_cmat_of(buf[2 * l], width[l], width[l + 1]);
    b[l] = sgp_cmat_of(buf[2 * l + 1], width[l + 1], 1);
  }
  sgp_valla_mlp m;
  memset(&m, 0, sizeof m);
  m.n_layers = L;
  m.width = width;
  m.W = W;
  m.b = b;
  m.activation = SGP_ACT_TANH;
  m.output = SGP_ACT_IDENTITY;
  bv_check(sgp_valla_net_from_mlp(ctx, &m, net), ctx, "network");
  bv_check(sgp_valla_net_init_random(ctx, net), ctx, "network init");
  for (int l = 0; l < 2 * L; l++) free(buf[l]);
}

bv_reg bv_reg_metrics(int64_t n, const double *y, const double *mu, const double *var)
{
  bv_reg r;
  r.nll = sgp_valla_gauss_nll(n, y, mu, var);
  r.crps = sgp_valla_crps(n, y, mu, var);
  r.cqm = sgp_valla_cqm(n, y, mu, var, 0);
  return r;
}
