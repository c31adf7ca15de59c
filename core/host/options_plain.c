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

sgp_value sgp_info_plain(sgp_value_arena *a)
{
  sgp_build_info info;
  sgp_info(&info);
  const int64_t threads = info.max_threads, devices = info.cuda_devices;
  const char *names[] = {"version", "fftw", "openmp", "max_threads", "cuda_built",
                         "cuda_devices"};
  const sgp_value v[] = {sgp_vo_string(a, info.version),
                         sgp_vo_string(a, info.fftw ? info.fftw : "unknown"),
                         sgp_vo_flag(a, info.openmp != 0), sgp_vo_int(a, 1, &threads),
                         sgp_vo_flag(a, info.cuda_built != 0), sgp_vo_int(a, 1, &devices)};
  return sgp_vo_list(a, 6, names, v);
}
