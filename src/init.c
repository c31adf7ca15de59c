/* init.c -- the R package's .Call entries (R build only), one per verb, named
 * as Octave's __sgp_call__ verbs: R calls .Call(C_<verb>, ...) through
 * sgp_call() (R/checks.R); R checks the number of arguments against this table.
 * Each entry is in bindings_r/r_<method>.c. */
#define R_NO_REMAP
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>

SEXP sgp_kernel_matrix_r(SEXP, SEXP, SEXP);
SEXP sgp_kernel_apply_r(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sgp_info_r(void);
SEXP sgp_check_threads_r(SEXP, SEXP);
SEXP sgp_ski_grid_r(SEXP, SEXP, SEXP);
SEXP sgp_ski_grid_check_r(SEXP, SEXP, SEXP);
SEXP sgp_ski_stats_r(SEXP, SEXP, SEXP, SEXP);
SEXP sgp_ski_gsgp_r(SEXP, SEXP, SEXP, SEXP);
SEXP sgp_ski_laplace_r(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sgp_ski_laplace_predict_r(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sgp_ski_predict_r(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sgp_ski_shape_r(SEXP, SEXP, SEXP, SEXP);
SEXP sgp_ski_stats_merge_r(SEXP, SEXP, SEXP, SEXP);
SEXP sgp_ski_outside_r(SEXP, SEXP, SEXP, SEXP);
SEXP sgp_ski_acc_new_r(SEXP, SEXP);
SEXP sgp_ski_acc_add_r(SEXP, SEXP, SEXP, SEXP);
SEXP sgp_ski_acc_stats_r(SEXP, SEXP, SEXP);
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

static const R_CallMethodDef call_methods[] = {
  {"kernel_matrix", (DL_FUNC)&sgp_kernel_matrix_r, 3},
  {"kernel_apply", (DL_FUNC)&sgp_kernel_apply_r, 10},
  {"info", (DL_FUNC)&sgp_info_r, 0},
  {"check_threads", (DL_FUNC)&sgp_check_threads_r, 2},
  {"ski_grid", (DL_FUNC)&sgp_ski_grid_r, 3},
  {"ski_grid_check", (DL_FUNC)&sgp_ski_grid_check_r, 3},
  {"ski_stats", (DL_FUNC)&sgp_ski_stats_r, 4},
  {"ski_gsgp", (DL_FUNC)&sgp_ski_gsgp_r, 4},
  {"ski_laplace", (DL_FUNC)&sgp_ski_laplace_r, 8},
  {"ski_laplace_predict", (DL_FUNC)&sgp_ski_laplace_predict_r, 5},
  {"ski_predict", (DL_FUNC)&sgp_ski_predict_r, 6},
  {"ski_shape", (DL_FUNC)&sgp_ski_shape_r, 4},
  {"ski_stats_merge", (DL_FUNC)&sgp_ski_stats_merge_r, 4},
  {"ski_outside", (DL_FUNC)&sgp_ski_outside_r, 4},
  {"ski_acc_new", (DL_FUNC)&sgp_ski_acc_new_r, 2},
  {"ski_acc_add", (DL_FUNC)&sgp_ski_acc_add_r, 4},
  {"ski_acc_stats", (DL_FUNC)&sgp_ski_acc_stats_r, 3},
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
  {NULL, NULL, 0}
};

void R_init_scalegp(DllInfo *dll)
{
  R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
}
