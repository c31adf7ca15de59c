/* r_info.c -- scalegp_info(): what was built and what this machine offers, as
 * the core writes it (sgp_info_plain). */
#include "r_shim.h"

static sgp_value build_info(const void *what, sgp_value_arena *a)
{
  (void)what;
  return sgp_info_plain(a);
}

SEXP sgp_info_r(void)
{
  return sgp_r_build(build_info, NULL);
}
