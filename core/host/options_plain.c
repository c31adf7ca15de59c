/* options_plain.c -- a verb's option table and the build information as plain
 * data (sgp_options_plain, sgp_info_plain; sgp_options.h), written once for
 * R's scalegp_options() / scalegp_info() and Octave's __sgp_call__ ("options")
 * / ("info"). */
#include "host/value_out.h"

#include <stdlib.h>

/* One column of the table: the i-th option's string for each row. */
static sgp_value column(const sgp_verb_table *t, int which, sgp_value_arena *a)
{
  const char **s = (const char **)sgp_vo_alloc(a, (size_t)(t->n > 0 ? t->n : 1) * sizeof(char *));
  if (!s) return sgp_vo_null();
  for (int i = 0; i < t->n; i++) {
    const sgp_opt_spec *o = &t->opts[i];
    s[i] = which == 0 ? o->name : which == 1 ? sgp_opt_kind_name(o->kind)
                      : which == 2 ? o->def : o->doc;
  }
  sgp_value v = sgp_vo_strings(a, t->n, s);
  v.cols = 1; /* Octave: a column cellstr */
  return v;
}

sgp_value sgp_options_plain(const sgp_verb_table *t, sgp_value_arena *a)
{
  const char *names[] = {"name", "kind", "default", "doc", "context"};
  const sgp_value v[] = {column(t, 0, a), column(t, 1, a), column(t, 2, a), column(t, 3, a),
                         sgp_vo_flag(a, !t->no_context)};
  return sgp_vo_list(a, 5, names, v);
}

/* gp_laplace's likelihoods, how each codes class labels (sgp_lik_label_coding)
 * and what valla's and mlp_fit's fronts decide by: columns name, classes (0/1),
 * n_classes, first_class, noise (0/1: real targets with a noise variance) and
 * valla (0/1: valla and mlp_fit offer it). */
static sgp_value likelihoods(sgp_value_arena *a)
{
  int64_t n = 0;
  while (sgp_lik_names[n]) n++;
  int64_t *col = (int64_t *)sgp_vo_alloc(a, (size_t)(5 * (n > 0 ? n : 1)) * sizeof(int64_t));
  if (!col) return sgp_vo_null();
  for (int64_t k = 0; k < n; k++) {
    int classes = 0, count = 0, first = 0;
    sgp_lik_label_coding((sgp_likelihood)k, &classes, &count, &first);
    col[k] = classes; col[n + k] = count; col[2 * n + k] = first;
    col[3 * n + k] = sgp_lik_has_noise((sgp_likelihood)k);
    col[4 * n + k] = sgp_lik_valla((sgp_likelihood)k);
  }
  const char *names[] = {"name", "classes", "n_classes", "first_class", "noise", "valla"};
  sgp_value v[] = {sgp_vo_strings(a, n, sgp_lik_names), sgp_vo_int(a, n, col),
                   sgp_vo_int(a, n, col + n),           sgp_vo_int(a, n, col + 2 * n),
                   sgp_vo_int(a, n, col + 3 * n),       sgp_vo_int(a, n, col + 4 * n)};
  v[0].cols = 1; /* Octave: a column cellstr */
  return sgp_vo_list(a, 6, names, v);
}

sgp_value sgp_info_plain(sgp_value_arena *a)
{
  sgp_build_info info;
  sgp_info(&info);
  const int64_t threads = info.max_threads, devices = info.cuda_devices;
  const char *names[] = {"version", "fftw", "openmp", "max_threads", "cuda_built",
                         "cuda_devices", "likelihoods"};
  const sgp_value v[] = {sgp_vo_string(a, info.version),
                         sgp_vo_string(a, info.fftw ? info.fftw : "unknown"),
                         sgp_vo_flag(a, info.openmp != 0), sgp_vo_int(a, 1, &threads),
                         sgp_vo_flag(a, info.cuda_built != 0), sgp_vo_int(a, 1, &devices),
                         likelihoods(a)};
  return sgp_vo_list(a, 7, names, v);
}
