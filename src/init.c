/* init.c -- registration of the .Call entry points (R build only). */
#define R_NO_REMAP
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>

SEXP sgp_kernel_matrix_r(SEXP, SEXP, SEXP);
SEXP sgp_kernel_apply_r(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sgp_info_r(void);
SEXP sgp_check_threads_r(SEXP, SEXP);
SEXP sgp_ski_grid_r(SEXP, SEXP, SEXP);
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
SEXP sgp_valla_forward_r(SEXP, SEXP, SEXP);
SEXP sgp_mlp_fit_r(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP sgp_valla_metrics_r(SEXP, SEXP, SEXP, SEXP);

static const R_CallMethodDef call_methods[] = {
  {"sgp_kernel_matrix_r", (DL_FUNC)&sgp_kernel_matrix_r, 3},
  {"sgp_kernel_apply_r", (DL_FUNC)&sgp_kernel_apply_r, 10},
  {"sgp_info_r", (DL_FUNC)&sgp_info_r, 0},
  {"sgp_check_threads_r", (DL_FUNC)&sgp_check_threads_r, 2},
  {"sgp_ski_grid_r", (DL_FUNC)&sgp_ski_grid_r, 3},
  {"sgp_ski_stats_r", (DL_FUNC)&sgp_ski_stats_r, 4},
  {"sgp_ski_gsgp_r", (DL_FUNC)&sgp_ski_gsgp_r, 4},
  {"sgp_ski_predict_r", (DL_FUNC)&sgp_ski_predict_r, 6},
  {"sgp_ski_shape_r", (DL_FUNC)&sgp_ski_shape_r, 4},
  {"sgp_ski_stats_merge_r", (DL_FUNC)&sgp_ski_stats_merge_r, 4},
  {"sgp_ski_outside_r", (DL_FUNC)&sgp_ski_outside_r, 4},
  {"sgp_laplace_fit_r", (DL_FUNC)&sgp_laplace_fit_r, 6},
  {"sgp_options_r", (DL_FUNC)&sgp_options_r, 1},
  {"sgp_laplace_predict_r", (DL_FUNC)&sgp_laplace_predict_r, 5},
  {"sgp_valla_fit_r", (DL_FUNC)&sgp_valla_fit_r, 12},
  {"sgp_option_check_r", (DL_FUNC)&sgp_option_check_r, 3},
  {"sgp_valla_predict_r", (DL_FUNC)&sgp_valla_predict_r, 3},
  {"sgp_valla_fit_check_r", (DL_FUNC)&sgp_valla_fit_check_r, 3},
  {"sgp_valla_forward_r", (DL_FUNC)&sgp_valla_forward_r, 3},
  {"sgp_mlp_fit_r", (DL_FUNC)&sgp_mlp_fit_r, 5},
  {"sgp_valla_metrics_r", (DL_FUNC)&sgp_valla_metrics_r, 4},
  {NULL, NULL, 0}
};

void R_init_scalegp(DllInfo *dll)
{
  R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
}
