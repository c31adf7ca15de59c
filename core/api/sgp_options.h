/* sgp_options.h -- options by name: one table per verb, owned by the core.
 *
 * Each user-facing option (its R/Octave argument name, kind, default, range,
 * choices and one line of doc) is defined once, in the verb's table. The hosts
 * coerce their values into an sgp_value and call sgp_opts_set by name; the core
 * validates, stores into the verb's options struct and words every error as
 * "'name' must be ..." (the shims prefix the function name). Adding an option
 * to a verb: a row in its table, the code that uses the field, and tests.
 * Fits given back as plain data: api/sgp_fit_check.h; results as plain data:
 * api/sgp_plain.h. */
#ifndef SGP_OPTIONS_H
#define SGP_OPTIONS_H

#include "api/sgp_laplace.h"
#include "api/sgp_ski.h"
#include "api/sgp_valla.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A host value: numbers (integers, doubles; NA as NaN), logicals (0/1, NA as
 * NaN), strings (an R character vector, an Octave string or cellstr), or nothing
 * (R NULL, Octave []). */
typedef enum {
  SGP_VAL_NULL, SGP_VAL_REAL, SGP_VAL_LOGICAL, SGP_VAL_STRING,
  SGP_VAL_OTHER, /* anything else (a cell, a function): always an error */
  SGP_VAL_LIST,  /* an R list / data frame or an Octave scalar struct: named elements
                    (a fit as plain data, its kernel, its history) */
  SGP_VAL_INT    /* results only (the hosts never give one): whole numbers in real,
                    R's integers (Octave: doubles) */
} sgp_value_type;
typedef struct sgp_value {
  sgp_value_type type;
  int64_t len;          /* REAL/LOGICAL: number of values; STRING: number of strings;
                           LIST: number of elements */
  const double *real;   /* REAL/LOGICAL values (host memory, valid during the call) */
  const char *str;      /* STRING: the first one */
  const char *const *strs; /* STRING: all len of them (NULL: only str, len <= 1);
                              LIST: the elements' names; REAL/LOGICAL: the values'
                              names when the host has them (R's named vectors), or NULL */
  int64_t rows, cols;   /* REAL/LOGICAL: the host's dimensions (0, 0: a plain vector,
                           read as len x 1; cols < 0: more than two dimensions) */
  const struct sgp_value *elts; /* LIST: the len elements */
} sgp_value;

typedef enum {
  SGP_OPT_FLAG,    /* one logical -> int 0/1 */
  SGP_OPT_COUNT,   /* one whole number in [lo, hi] -> int or int64 (store) */
  SGP_OPT_REAL,    /* one number in the range -> double */
  SGP_OPT_CHOICE,  /* one string out of choices -> int (its index) */
  SGP_OPT_POSITIVES, /* 1 or more positive finite numbers -> pointer + count (host memory) */
  SGP_OPT_VECTOR,  /* finite numbers or nothing -> sgp_cmat (len x 1, host memory);
                      with SGP_OPT_PTR: const double * + int64 count (count_offset) */
  SGP_OPT_SUBSET,  /* 0 or more strings out of choices (nothing: none) -> unsigned bitmask,
                      bit i for choices[i] */
  SGP_OPT_COUNTS   /* 1 to SGP_OPT_MAX_COUNTS whole numbers in [lo, hi] (one per dimension)
                      -> int64 array (copied) + int64 count (count_offset) */
} sgp_opt_kind;

#define SGP_OPT_MAX_COUNTS 8

typedef enum { SGP_STORE_INT, SGP_STORE_INT64, SGP_STORE_DOUBLE, SGP_STORE_SIZE } sgp_opt_store;

/* Range flags */
#define SGP_OPT_INF_NONE 1u /* Inf accepted, meaning "none": stored as -1 */
#define SGP_OPT_LO_OPEN  2u /* REAL: > lo instead of >= lo */
#define SGP_OPT_NULL_OK  4u /* nothing (NULL / []) accepted: the default is kept */
#define SGP_OPT_HI_OPEN  8u /* REAL: < hi instead of <= hi */
#define SGP_OPT_PTR     16u /* VECTOR: stored as a pointer and a count (see the kind) */

typedef struct {
  const char *name;   /* the argument name in R and Octave */
  sgp_opt_kind kind;
  const char *def;    /* the default as a user writes it ("5", "Inf", "\"cg\"", "TRUE") */
  double lo, hi;      /* COUNT / REAL range (inclusive unless LO_OPEN) */
  unsigned flags;
  const char *const *choices; /* CHOICE, SUBSET: NULL-terminated names, index = stored value
                                 (CHOICE: "" marks an index that is not offered) */
  size_t offset;      /* the field in the verb's options struct */
  sgp_opt_store store;/* COUNT / REAL: the field's type */
  size_t count_offset;/* POSITIVES, COUNTS, VECTOR with PTR: the int64 count field */
  const char *doc;    /* one line */
} sgp_opt_spec;

typedef struct {
  const char *verb;
  const sgp_opt_spec *opts;
  int n;
  int no_context;  /* 1: the verb reads none of the context options (ski_grid computes
                      a grid: no randomness, threads, backend or progress), so they are
                      not its options (an error, and absent from its docs) */
} sgp_verb_table;

/* The table of a verb ("gp_laplace", ...) or of the context options ("context":
 * backend, seed, verbose, threads); NULL when unknown. */
const sgp_verb_table *sgp_verb_options(const char *verb);
/* The context option `name` as verb t takes it (the hosts route it to the context):
 * NULL when t has its own row of that name (ski_stats' seed) or reads no context
 * option. */
const sgp_opt_spec *sgp_ctx_opt_find(const sgp_verb_table *t, const char *name);
/* The name of a kind ("flag", "count", ...) for the hosts' option listings. */
const char *sgp_opt_kind_name(sgp_opt_kind kind);
/* The spec of option `name` in t, or NULL. */
const sgp_opt_spec *sgp_opt_find(const sgp_verb_table *t, const char *name);
/* The hosts' names of a CHOICE option's stored values, from the table: the name of
 * value `index` of option `option` of `verb` ("" when there is none), and the value
 * of a name (-1 when it is not one of the choices). E.g. ("gp_laplace",
 * "likelihood", 1) -> "bernoulli". */
const char *sgp_opt_choice_name(const char *verb, const char *option, int index);
int sgp_opt_choice_index(const char *verb, const char *option, const char *name);
/* Validates v for option `name` of t and stores it into opts. Errors:
 * SGP_EINVAL "'name' must be ..." (or "unknown option 'name'"). */
int sgp_opts_set(sgp_ctx *ctx, const sgp_verb_table *t, void *opts, const char *name,
                 const sgp_value *v);
/* Stores options names[i] = values[i] (i < n) of verb t: the context's into ctx
 * (sgp_ctx_opt_find), the others into opts. The one rule of both hosts: a name
 * as the table writes it (another letter case is the unknown-option error,
 * naming the right one) and at most once ("'tol' is given twice"). */
int sgp_opts_apply(sgp_ctx *ctx, const sgp_verb_table *t, void *opts, int64_t n,
                   const char *const *names, const sgp_value *values);
/* The user's message for a failed call of verb fn, in the one form both hosts
 * show: "fn: 'arg' rest" from the core's "arg: rest" (or "'arg' rest"), else
 * "fn: message". */
void sgp_user_message(const char *fn, const sgp_ctx *ctx, int status, char *buf, size_t size);
/* The context options, stored into ctx: "backend" (auto, cpu, cuda), "seed" (whole
 * number 0..2^53), "verbose" (logical), "threads" (0..SGP_MAX_THREADS). */
int sgp_ctx_opt_set(sgp_ctx *ctx, const char *name, const sgp_value *v, int *verbose);

/* Kernel names by sgp_kernel_kind ("rbf", ...; NULL-terminated) and the kernel
 * option's doc (each name and formula), from the kernel table (kernel_table.c). */
extern const char *const sgp_kernel_names[];
extern const char sgp_kernel_doc[];
/* gp_laplace's likelihoods (core/laplace/lik_table.c): names, index = sgp_likelihood;
 * valla's choices (the names of those it offers, "" for the others); the doc */
extern const char *const sgp_lik_names[];
extern const char *const sgp_lik_valla_names[];
extern const char sgp_lik_doc[];
/* Facts of a likelihood (0 for a kind out of range): C latents per point with a
 * block W (softmax); offered by valla and mlp_fit (with their own arithmetic); a
 * noise variance (gaussian: real targets). */
int sgp_lik_multiclass(sgp_likelihood kind);
int sgp_lik_valla(sgp_likelihood kind);
int sgp_lik_has_noise(sgp_likelihood kind);

/* The four rows of a kernel (kernel, lengthscale, outputscale, alpha) for a table over
 * the options struct TYPE whose sgp_kernel is MEMBER: every verb with a kernel
 * uses these, so the kernel's options are written once. */
#define SGP_KERNEL_OPTION_ROWS(TYPE, MEMBER)                                              \
  SGP_KERNEL_OPTION_ROWS_AS(TYPE, MEMBER, "1", "1", 0, "")
/* The kernel rows with the defaults as written (LS_DEF, OS_DEF), extra flags on the
 * lengthscale and outputscale (SGP_OPT_NULL_OK where "not given" means learned) and a
 * doc suffix; alpha's default is 1. */
#define SGP_KERNEL_OPTION_ROWS_AS(TYPE, MEMBER, LS_DEF, OS_DEF, OS_FLAGS, DOC)              \
  SGP_KERNEL_OPTION_ROWS_ALPHA(TYPE, MEMBER, LS_DEF, OS_DEF, OS_FLAGS, DOC, "1", 0, "")
/* The same with alpha's default as written, its flags and its doc suffix (a verb
 * that learns alpha: "NULL", SGP_OPT_NULL_OK). */
#define SGP_KERNEL_OPTION_ROWS_ALPHA(TYPE, MEMBER, LS_DEF, OS_DEF, OS_FLAGS, DOC, AL_DEF,  \
                                     AL_FLAGS, AL_DOC)                                     \
  {"kernel", SGP_OPT_CHOICE, "\"rbf\"", 0, 0, 0, sgp_kernel_names,                        \
   offsetof(TYPE, MEMBER.kind), SGP_STORE_INT, 0, sgp_kernel_doc},                         \
  {"lengthscale", SGP_OPT_POSITIVES, LS_DEF, 0, 0, (OS_FLAGS), NULL,                      \
   offsetof(TYPE, MEMBER.lengthscale),                                                     \
   SGP_STORE_DOUBLE, offsetof(TYPE, MEMBER.n_lengthscale),                                 \
   "one lengthscale, or one per column of x (ARD)" DOC},                                   \
  {"outputscale", SGP_OPT_REAL, OS_DEF, 0, INFINITY, SGP_OPT_LO_OPEN | (OS_FLAGS), NULL,    \
   offsetof(TYPE, MEMBER.outputscale), SGP_STORE_DOUBLE, 0, "kernel variance" DOC},          \
  {"alpha", SGP_OPT_REAL, AL_DEF, 0, INFINITY, SGP_OPT_LO_OPEN | (AL_FLAGS), NULL,          \
   offsetof(TYPE, MEMBER.alpha), SGP_STORE_DOUBLE, 0,                                      \
   "shape parameter of the kernels whose formula has alpha (the others ignore it)" AL_DOC}

/* What a host returns from predict (the "type" of the predict tables). */
enum { SGP_PREDICT_LIST, SGP_PREDICT_RESPONSE, SGP_PREDICT_CLASS, SGP_PREDICT_LINK };


#ifdef __cplusplus
}
#endif
#endif
