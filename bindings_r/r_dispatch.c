/* r_dispatch.c -- the one .Call entry of the R package (issue 12: one gateway per
 * host): sgp_call_r(verb, args) runs the entry of that name with the elements of
 * the list args as its arguments; R's fronts call it through sgp_call(). */
#include "r_shim.h"

#include <R_ext/Rdynload.h>
#include <string.h>

SEXP sgp_kernel_matrix_r(SEXP, SEXP, SEXP);
SEXP sgp_kernel_apply_r(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sgp_info_r(void);
SEXP sgp_check_threads_r(SEXP, SEXP);
SEXP sgp_ski_grid_r(SEXP, SEXP, SEXP);
SEXP sgp_ski_grid_check_r(SEXP, SEXP, SEXP);
SEXP sgp_ski_stats_r(SEXP, SEXP, SEXP, SEXP);
SEXP sgp_ski_gsgp_r(SEXP, SEXP, SEXP, SEXP);
SEXP sgp_ski_predict_r(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sgp_ski_shape_r(SEXP, SEXP, SEXP, SEXP);
SEXP sgp_ski_stats_merge_r(SEXP, SEXP, SEXP, SEXP);
SEXP sgp_ski_outside_r(SEXP, SEXP, SEXP, SEXP);
SEXP sgp_laplace_fit_r(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sgp_options_r(SEXP);
SEXP sgp_laplace_predict_r(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sgp_valla_fit_r(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sgp_option_check_r(SEXP, SEXP, SEXP);
SEXP sgp_valla_predict_r(SEXP, SEXP, SEXP);
SEXP sgp_valla_fit_check_r(SEXP, SEXP, SEXP);
SEXP sgp_valla_net_check_r(SEXP, SEXP, SEXP);
SEXP sgp_valla_forward_r(SEXP, SEXP, SEXP);
SEXP sgp_mlp_fit_r(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sgp_valla_metrics_r(SEXP, SEXP, SEXP, SEXP);

typedef struct {
  const char *verb;
  DL_FUNC fn;
  int nargs;
} sgp_r_entry;

static const sgp_r_entry entries[] = {
  {"kernel_matrix", (DL_FUNC)&sgp_kernel_matrix_r, 3},
  {"kernel_apply", (DL_FUNC)&sgp_kernel_apply_r, 10},
  {"info", (DL_FUNC)&sgp_info_r, 0},
  {"check_threads", (DL_FUNC)&sgp_check_threads_r, 2},
  {"ski_grid", (DL_FUNC)&sgp_ski_grid_r, 3},
  {"ski_grid_check", (DL_FUNC)&sgp_ski_grid_check_r, 3},
  {"ski_stats", (DL_FUNC)&sgp_ski_stats_r, 4},
  {"ski_gsgp", (DL_FUNC)&sgp_ski_gsgp_r, 4},
  {"ski_predict", (DL_FUNC)&sgp_ski_predict_r, 6},
  {"ski_shape", (DL_FUNC)&sgp_ski_shape_r, 4},
  {"ski_stats_merge", (DL_FUNC)&sgp_ski_stats_merge_r, 4},
  {"ski_outside", (DL_FUNC)&sgp_ski_outside_r, 4},
  {"laplace_fit", (DL_FUNC)&sgp_laplace_fit_r, 6},
  {"options", (DL_FUNC)&sgp_options_r, 1},
  {"laplace_predict", (DL_FUNC)&sgp_laplace_predict_r, 5},
  {"valla_fit", (DL_FUNC)&sgp_valla_fit_r, 12},
  {"option_check", (DL_FUNC)&sgp_option_check_r, 3},
  {"valla_predict", (DL_FUNC)&sgp_valla_predict_r, 3},
  {"valla_fit_check", (DL_FUNC)&sgp_valla_fit_check_r, 3},
  {"valla_net_check", (DL_FUNC)&sgp_valla_net_check_r, 3},
  {"valla_forward", (DL_FUNC)&sgp_valla_forward_r, 3},
  {"mlp_fit", (DL_FUNC)&sgp_mlp_fit_r, 5},
  {"valla_metrics", (DL_FUNC)&sgp_valla_metrics_r, 4},
};

static SEXP call_with(DL_FUNC f, int k, SEXP args)
{
#define A(i) VECTOR_ELT(args, i)
  switch (k) {
  case 0: return ((SEXP(*)(void))f)();
  case 1: return ((SEXP(*)(SEXP))f)(A(0));
  case 2: return ((SEXP(*)(SEXP, SEXP))f)(A(0), A(1));
  case 3: return ((SEXP(*)(SEXP, SEXP, SEXP))f)(A(0), A(1), A(2));
  case 4: return ((SEXP(*)(SEXP, SEXP, SEXP, SEXP))f)(A(0), A(1), A(2), A(3));
  case 5: return ((SEXP(*)(SEXP, SEXP, SEXP, SEXP, SEXP))f)(A(0), A(1), A(2), A(3), A(4));
  case 6: return ((SEXP(*)(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP))f)(A(0), A(1), A(2), A(3), A(4), A(5));
  case 7: return ((SEXP(*)(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP))f)(A(0), A(1), A(2), A(3), A(4), A(5), A(6));
  case 8: return ((SEXP(*)(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP))f)(A(0), A(1), A(2), A(3), A(4), A(5), A(6), A(7));
  case 9: return ((SEXP(*)(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP))f)(A(0), A(1), A(2), A(3), A(4), A(5), A(6), A(7), A(8));
  case 10: return ((SEXP(*)(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP))f)(A(0), A(1), A(2), A(3), A(4), A(5), A(6), A(7), A(8), A(9));
  case 11: return ((SEXP(*)(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP))f)(A(0), A(1), A(2), A(3), A(4), A(5), A(6), A(7), A(8), A(9), A(10));
  case 12: return ((SEXP(*)(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP))f)(A(0), A(1), A(2), A(3), A(4), A(5), A(6), A(7), A(8), A(9), A(10), A(11));
  }
#undef A
  Rf_error("internal: %d arguments", k);
  return R_NilValue;
}

SEXP sgp_call_r(SEXP verb, SEXP args)
{
  if (!Rf_isString(verb) || XLENGTH(verb) != 1 || TYPEOF(args) != VECSXP)
    Rf_error("internal: sgp_call(verb, ...)");
  const char *v = CHAR(STRING_ELT(verb, 0));
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
    if (!strcmp(entries[i].verb, v)) {
      if (XLENGTH(args) != entries[i].nargs)
        Rf_error("internal: %s takes %d arguments (got %d)", v, entries[i].nargs,
                 (int)XLENGTH(args));
      return call_with(entries[i].fn, entries[i].nargs, args);
    }
  Rf_error("internal: no entry '%s'", v);
  return R_NilValue;
}
