/* bench_valla.c -- VaLLA benchmarks against the experiments of Ortega et al.,
 * Variational Linearized Laplace Approximation for Bayesian Deep Learning:
 *   bench_valla toy | fmnist | reg      one case per process (own peak RSS)
 * VALLA_BENCH_QUICK=1 shrinks every case to a smoke run. Each case prints a
 * readable table with the paper's numbers beside ours and one BENCH line per
 * figure. 2 threads. */
#include "bench_valla.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
  const char *q = getenv("VALLA_BENCH_QUICK");
  bv_quick = q && strcmp(q, "0") != 0 && q[0] != '\0';
  if (argc != 2) {
    fprintf(stderr, "usage: bench_valla toy|fmnist|reg\n");
    return 2;
  }
  if (!strcmp(argv[1], "toy")) return bv_toy();
  if (!strcmp(argv[1], "fmnist")) return bv_fmnist();
  if (!strcmp(argv[1], "reg")) return bv_reg_speed();
  fprintf(stderr, "bench_valla: unknown case '%s' (toy, fmnist, reg)\n", argv[1]);
  return 2;
}
