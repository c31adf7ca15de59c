/* bench_valla.h -- shared helpers of the VaLLA benchmark driver (make bench-valla):
 * timing, peak RSS, BENCH lines, networks and synthetic data. Not part of the
 * package: built from the core sources with the flags of tests/core. */
#ifndef BENCH_VALLA_H
#define BENCH_VALLA_H

#include "valla/valla.h"

#include <stdint.h>

/* 1 when VALLA_BENCH_QUICK=1 (smoke sizes, < 1 min for all cases). */
extern int bv_quick;

double bv_now(void);          /* wall clock, seconds */
double bv_cpu(void);          /* CPU time of this process (all threads), seconds */
double bv_rss_mb(void);       /* peak resident set of this process, MB */
const char *bv_load(void);    /* "load=a,b,c" from /proc/loadavg */
/* Prints msg and exits 1 when st != SGP_OK (the driver is not the core). */
void bv_check(int st, const sgp_ctx *ctx, const char *what);
sgp_ctx bv_ctx(uint64_t seed);

/* Owned MLP with widths[0..L] (Glorot init from ctx's RNG), hidden tanh, output
 * identity. */
void bv_mlp(sgp_ctx *ctx, int L, const int64_t *width, sgp_valla_net *net);
double *bv_alloc(int64_t n);

/* Regression metrics on the original scale (var: predictive variance). */
typedef struct { double nll, crps, cqm; } bv_reg;
bv_reg bv_reg_metrics(int64_t n, const double *y, const double *mu, const double *var);

/* The three cases (each one process so that the peak RSS is its own). */
int bv_toy(void);
int bv_fmnist(void);
int bv_reg_speed(void);

#endif
