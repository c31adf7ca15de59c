/* init.c -- registration of the one .Call entry (R build only): sgp_call_r
 * dispatches by name (bindings_r/r_dispatch.c). */
#define R_NO_REMAP
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>

SEXP sgp_call_r(SEXP, SEXP);

static const R_CallMethodDef call_methods[] = {
  {"sgp_call_r", (DL_FUNC)&sgp_call_r, 2},
  {NULL, NULL, 0}
};

void R_init_scalegp(DllInfo *dll)
{
  R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
}
