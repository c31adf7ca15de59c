/* value_out.h -- building a result as plain data (an sgp_value tree, see
 * sgp_options.h "Results as plain data"): the builders of its values, whose
 * memory is the arena's. Core-internal; a builder that runs out of memory marks
 * the arena failed and returns a NULL value, so a result is built without a
 * check per field and the arena is checked once at the end. */
#ifndef SGP_VALUE_OUT_H
#define SGP_VALUE_OUT_H

#include "api/sgp_plain.h"

/* rows of a plain vector that Octave shows as a row (sgp_options.h). */
#define SGP_VO_ROW (-1)

/* R's NA_real_ (sgp_options.h). */
double sgp_vo_na(void);

/* n bytes that live as long as the arena (NULL, and the arena failed, when out of
 * memory). */
void *sgp_vo_alloc(sgp_value_arena *a, size_t n);
/* n doubles as a plain vector (rows = cols = 0) or a rows x cols matrix, copied;
 * x NULL: n NaN. */
sgp_value sgp_vo_real(sgp_value_arena *a, int64_t n, const double *x, int64_t rows,
                      int64_t cols);
sgp_value sgp_vo_scalar(sgp_value_arena *a, double x);
/* n whole numbers as an INT plain vector (R: integer). */
sgp_value sgp_vo_int(sgp_value_arena *a, int64_t n, const int64_t *x);
/* n ints plus add (0- to 1-based) as an INT plain vector. */
sgp_value sgp_vo_int32(sgp_value_arena *a, int64_t n, const int *x, int add);
/* n counts as a REAL plain vector. */
sgp_value sgp_vo_count(sgp_value_arena *a, int64_t n, const int64_t *x);
/* n doubles with their names (R: a named vector, Octave: a struct of scalars). */
sgp_value sgp_vo_named(sgp_value_arena *a, int64_t n, const double *x,
                       const char *const *names);
/* One logical (NaN: NA). */
sgp_value sgp_vo_flag(sgp_value_arena *a, double x);
/* One string, copied. */
sgp_value sgp_vo_string(sgp_value_arena *a, const char *s);
/* n strings, copied (a list of strings even when n is 0 or 1). */
sgp_value sgp_vo_strings(sgp_value_arena *a, int64_t n, const char *const *s);
/* A LIST of n named elements (names and elements copied). */
sgp_value sgp_vo_list(sgp_value_arena *a, int64_t n, const char *const *names,
                      const sgp_value *elts);
/* A LIST of n elements without names (R: an unnamed list, Octave: a 1 x n cell);
 * the elements are copied. */
sgp_value sgp_vo_cells(sgp_value_arena *a, int64_t n, const sgp_value *elts);
/* A rows x cols x k array of doubles, copied (x NULL: NaN). */
sgp_value sgp_vo_array3(sgp_value_arena *a, int64_t rows, int64_t cols, int64_t k,
                        const double *x);
/* Nothing (R NULL, Octave []). */
sgp_value sgp_vo_null(void);

#endif
