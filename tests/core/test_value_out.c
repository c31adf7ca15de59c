/* test_value_out.c -- results given back as plain data (sgp_options.h): the model
 * selection's fields, a SKI grid's, a gp_laplace fit's and a ski_gsgp fit's as the
 * core writes them for both hosts (sgp_hyper_plain, sgp_ski_grid_plain,
 * sgp_laplace_fit_plain, sgp_ski_fit_plain), in an arena freed once. */
#include "test_helpers.h"
#include "api/sgp_options.h"

#include <math.h>

static const sgp_value *elt(const sgp_value *list, const char *name)
{
  assert_int_equal(list->type, SGP_VAL_LIST);
  for (int64_t i = 0; i < list->len; i++)
    if (!strcmp(list->strs[i], name)) return &list->elts[i];
  fail_msg("no field '%s'", name);
  return NULL;
}

/* gp_laplace's hyperparameters (one lengthscale, a mean, no noise), two learned,
 * three evaluations. */
static void selection_fields(void **state)
{
  (void)state;
  double ls = 0.5, mean = -1, grad[3] = {0.1, 0.2, 0.3}, ll[3] = {-3, -2, -1},
         gn[3] = {1, 0.5, 0.1}, sec[3] = {0, 0, 0}, th[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  sgp_hyper h;
  memset(&h, 0, sizeof h);
  h.lengthscale = &ls; h.n_lengthscale = 1; h.outputscale = 2; h.mean = &mean; h.n_mean = 1;
  h.noise = NAN; h.learned = SGP_LEARN_LENGTHSCALE | SGP_LEARN_MEAN; h.n_theta = 3;
  h.loglik = -1; h.loglik_se = NAN; h.grad = grad; h.n_eval = 3; h.tr_loglik = ll;
  h.tr_gradnorm = gn; h.tr_seconds = sec; h.tr_theta = th; h.optim_converged = 1;
  strcpy(h.optim_message, "converged");
  sgp_value_arena *a = sgp_value_arena_new();
  const sgp_value v = sgp_hyper_plain(&h, a);
  assert_false(sgp_value_arena_failed(a));
  const char *names[] = {"hyper", "loglik", "loglik_se", "loglik_grad", "learned", "optim",
                         "optim_converged", "optim_message", "note"};
  assert_int_equal(v.len, 9);
  for (int i = 0; i < 9; i++) assert_string_equal(v.strs[i], names[i]);
  const sgp_value *hy = elt(&v, "hyper");
  assert_int_equal(hy->len, 4);  /* lengthscale, outputscale, mean, noise */
  assert_int_equal(elt(hy, "noise")->type, SGP_VAL_NULL);
  assert_true(elt(hy, "mean")->real[0] == -1);
  const sgp_value *g = elt(&v, "loglik_grad");
  assert_int_equal(g->len, 3);
  assert_string_equal(g->strs[1], "outputscale");
  assert_true(g->real[2] == 0.3);
  const sgp_value *learned = elt(&v, "learned");
  assert_int_equal(learned->len, 2);
  assert_non_null(learned->strs);
  assert_string_equal(learned->strs[1], "mean");
  const sgp_value *optim = elt(&v, "optim");
  assert_int_equal(optim->len, 7);
  assert_true(elt(optim, "evaluation")->real[2] == 3);
  assert_true(elt(optim, "mean")->real[0] == 7);
  const sgp_value *conv = elt(&v, "optim_converged");
  assert_int_equal(conv->type, SGP_VAL_LOGICAL);
  assert_true(conv->real[0] == 1);
  assert_null(elt(&v, "note")->strs);
  assert_string_equal(elt(&v, "optim_message")->str, "converged");
  sgp_value_arena_free(a);
}

/* Nothing learned: the verdict is NA, the gradient and the trace are empty. */
static void selection_unlearned(void **state)
{
  (void)state;
  double ls[2] = {1, 2};
  sgp_hyper h;
  memset(&h, 0, sizeof h);
  h.lengthscale = ls; h.n_lengthscale = 2; h.outputscale = 1; h.noise = 0.1;
  h.n_theta = 4; h.loglik = NAN; h.loglik_se = NAN;
  sgp_value_arena *a = sgp_value_arena_new();
  const sgp_value v = sgp_hyper_plain(&h, a);
  assert_false(sgp_value_arena_failed(a));
  assert_true(isnan(elt(&v, "optim_converged")->real[0]));
  assert_int_equal(elt(&v, "loglik_grad")->len, 0);
  assert_int_equal(elt(&v, "learned")->len, 0);
  assert_int_equal(elt(elt(&v, "optim"), "lengthscale2")->len, 0);
  const sgp_value *hy = elt(&v, "hyper");
  assert_int_equal(hy->len, 3);  /* no mean: lengthscale, outputscale, noise */
  assert_true(elt(hy, "noise")->real[0] == 0.1);
  sgp_value_arena_free(a);
  sgp_value_arena_free(NULL);
  assert_true(sgp_value_arena_failed(NULL));
}

/* Given bounds are kept exactly; the sizes are whole numbers Octave shows as a row. */
static void ski_grid_fields(void **state)
{
  (void)state;
  sgp_ski_grid g;
  memset(&g, 0, sizeof g);
  g.d = 2; g.m[0] = 11; g.m[1] = 1; g.lo[0] = 0; g.lo[1] = 3; g.h[0] = 0.1; g.h[1] = 1;
  const double ub[4] = {0, 3, 1, 3};
  sgp_value_arena *a = sgp_value_arena_new();
  const sgp_value v = sgp_ski_grid_plain(&g, SGP_SKI_LINEAR, ub, a);
  const sgp_value w = sgp_ski_grid_plain(&g, SGP_SKI_CUBIC, NULL, a);
  assert_false(sgp_value_arena_failed(a));
  const sgp_value *size = elt(&v, "size");
  assert_int_equal(size->type, SGP_VAL_INT);
  assert_int_equal(size->rows, -1);  /* a row in Octave, a plain vector in R */
  assert_true(size->real[0] == 11 && size->real[1] == 1);
  const sgp_value *b = elt(&v, "bounds");
  assert_int_equal(b->rows, 2);
  assert_int_equal(b->cols, 2);
  assert_true(b->real[2] == 1);  /* given, not 0 + 10 * 0.1 */
  assert_string_equal(elt(&v, "interpolation")->str, "linear");
  const sgp_value *bw = elt(&w, "bounds");
  assert_true(fabs(bw->real[2] - 1) < 1e-15 && bw->real[1] == 3 && bw->real[3] == 3);
  assert_string_equal(elt(&w, "interpolation")->str, "cubic");
  sgp_value_arena_free(a);
}

/* A small bernoulli fit: its fields, the history's counters as R's integers, the
 * inner stops as a column of names, the kernel's lengthscale as a row. */
static void laplace_fit_fields(void **state)
{
  (void)state;
  enum { N = 12 };
  double x[N], y[N];
  for (int i = 0; i < N; i++) {
    x[i] = -2 + 4.0 * i / (N - 1);
    y[i] = x[i] > 0;
  }
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_laplace_opts o;
  sgp_laplace_opts_default(&o);
  o.policy = SGP_POLICY_CHOLESKY;
  sgp_laplace_result *fit = NULL;
  assert_int_equal(sgp_laplace_fit(&ctx, sgp_cmat_of(x, N, 1), sgp_cmat_of(y, N, 1),
                                   sgp_cmat_of(NULL, 0, 0), &o, &fit), SGP_OK);
  sgp_value_arena *a = sgp_value_arena_new();
  const sgp_value v = sgp_laplace_fit_plain(fit, &o, 7, a);
  assert_false(sgp_value_arena_failed(a));
  const char *names[] = {"f", "var", "weights", "root", "newton_steps", "iterations",
                         "converged", "stop_reason", "inner_stop_reason", "kernel_products",
                         "history", "steps", "used", "selection"};
  assert_int_equal(v.len, 14);
  for (int i = 0; i < 14; i++) assert_string_equal(v.strs[i], names[i]);
  const sgp_value *f = elt(&v, "f");
  assert_true(f->rows == N && f->cols == 1 && f->real[N - 1] == fit->f[N - 1]);
  assert_int_equal(elt(&v, "newton_steps")->type, SGP_VAL_INT);
  const sgp_value *newton = elt(elt(&v, "history"), "newton");
  assert_int_equal(newton->type, SGP_VAL_INT);
  assert_int_equal(newton->len, fit->history.n_iter);
  assert_true(newton->real[0] == 1);  /* Newton steps from 1 */
  const sgp_value *inner = elt(elt(&v, "steps"), "inner_stop");
  assert_int_equal(inner->type, SGP_VAL_STRING);
  assert_int_equal(inner->len, fit->history.n_step);
  assert_int_equal(inner->cols, 1);
  const sgp_value *used = elt(&v, "used");
  assert_int_equal(elt(elt(used, "kernel"), "lengthscale")->rows, -1);
  assert_int_equal(elt(used, "noise")->type, SGP_VAL_NULL);  /* bernoulli */
  assert_true(elt(used, "seed")->real[0] == 7);
  assert_string_equal(elt(used, "likelihood")->str, "bernoulli");
  assert_int_equal(elt(&v, "selection")->type, SGP_VAL_LIST);
  sgp_value_arena_free(a);
  sgp_laplace_fit_free(fit);
}

/* A ski_gsgp fit's fields from its parts: given statistics (NULL), loglik_se NA
 * when not evaluated (R's NA_real_: low word 1954), the seconds a row in Octave. */
static void ski_fit_fields(void **state)
{
  (void)state;
  double w[3] = {1, 2, 3}, hist[2] = {1, 1e-9}, ls = 0.3;
  sgp_ski_result res;
  memset(&res, 0, sizeof res);
  res.weights = w; res.history = hist; res.iterations = 1; res.converged = 1;
  res.loglik = NAN; res.interp_error = NAN; res.love_error = NAN;
  sgp_ski_opts o;
  sgp_ski_opts_default(&o);
  o.kernel.lengthscale = &ls; o.kernel.n_lengthscale = 1; o.kernel.outputscale = 1;
  o.noise = 0.01;
  sgp_ski_selection sel;
  memset(&sel, 0, sizeof sel);
  sel.hyper.lengthscale = &ls; sel.hyper.n_lengthscale = 1; sel.hyper.n_theta = 3;
  sel.hyper.noise = 0.01; sel.hyper.loglik = NAN; sel.hyper.loglik_se = NAN;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const sgp_ski_fit_parts parts = {&res, &o, &sel, NULL, NULL, 3, 0, {0.5, 1.5}};
  sgp_value_arena *a = sgp_value_arena_new();
  const sgp_value v = sgp_ski_fit_plain(&ctx, &parts, a);
  assert_false(sgp_value_arena_failed(a));
  assert_int_equal(v.len, 21);
  assert_int_equal(elt(&v, "stats")->type, SGP_VAL_NULL);
  assert_true(isnan(elt(&v, "love_error")->real[0])); /* NA: no LOVE cache */
  assert_int_equal(elt(&v, "history")->len, 2);
  assert_int_equal(elt(&v, "love_Ft")->rows, 0);
  assert_int_equal(elt(&v, "love_Ft")->cols, 3);
  const double se = elt(&v, "loglik_se")->real[0];
  uint64_t bits;
  memcpy(&bits, &se, sizeof bits);
  assert_true(isnan(se) && (bits & 0xFFFFFFFFu) == 1954u);
  const sgp_value *secs = elt(&v, "seconds");
  assert_true(secs->rows == -1 && secs->real[1] == 1.5);
  const sgp_value *used = elt(&v, "used");
  assert_int_equal(used->len, 20);
  assert_true(elt(used, "noise")->real[0] == 0.01);
  assert_string_equal(elt(used, "loglik_method")->str, "exact"); /* auto, m = 3 */
  assert_string_equal(elt(used, "warning")->str, "");
  sgp_value_arena_free(a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(selection_fields),
    cmocka_unit_test(selection_unlearned),
    cmocka_unit_test(ski_grid_fields),
    cmocka_unit_test(laplace_fit_fields),
    cmocka_unit_test(ski_fit_fields),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
