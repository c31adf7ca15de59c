/* test_valla_plain.c -- a network given as plain data, read and checked once for
 * both hosts (sgp_valla_net_from_value: R's weights/biases lists, Octave's cells
 * and older W/b names, errors in each host's syntax), and the network written
 * back as plain data (sgp_valla_net_plain) reads as the same network. */
#include "test_helpers.h"
#include "api/sgp_options.h"

#include <string.h>

#define REALV(p, n) {SGP_VAL_REAL, (n), (p), NULL, NULL, 0, 0, NULL}
#define MATV(p, r, c) {SGP_VAL_REAL, (r) * (c), (p), NULL, NULL, (r), (c), NULL}
#define STRV(s) {SGP_VAL_STRING, 1, NULL, (s), NULL, 0, 0, NULL}
#define CELLS(e, n) {SGP_VAL_LIST, (n), NULL, NULL, NULL, 0, 0, (e)}

/* 1 -> 3 -> 1, tanh: W1 1 x 3, W2 3 x 1 */
static const double W1[] = {1, -1, 0.5}, W2[] = {0.3, -0.2, 0.8}, b1[] = {0.1, 0, -0.1},
                    b2[] = {0.2};

static void reads_both_hosts_forms(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const sgp_value W[] = {MATV(W1, 1, 3), MATV(W2, 3, 1)}, b[] = {REALV(b1, 3), REALV(b2, 1)};
  const char *rn[] = {"weights", "biases", "activation"};
  const sgp_value rv[] = {CELLS(W, 2), CELLS(b, 2), STRV("tanh")};
  const sgp_value r = {SGP_VAL_LIST, 3, NULL, NULL, rn, 0, 0, rv};
  sgp_valla_net net;
  assert_int_equal(sgp_valla_net_from_value(&ctx, &r, "model", "$", &net), SGP_OK);
  assert_int_equal(net.n_layers, 2);
  assert_int_equal(net.width[0], 1);
  assert_int_equal(net.width[1], 3);
  assert_int_equal(net.width[2], 1);
  assert_int_equal(net.activation, SGP_ACT_TANH);
  assert_int_equal(net.output, SGP_ACT_IDENTITY);
  assert_memory_equal(net.W[1], W2, sizeof W2);

  /* written back as plain data, the same network reads again */
  sgp_value_arena *a = sgp_value_arena_new();
  const sgp_value p = sgp_valla_net_plain(&net, a);
  assert_false(sgp_value_arena_failed(a));
  assert_int_equal(p.type, SGP_VAL_LIST);
  assert_string_equal(p.strs[0], "weights");
  assert_null(p.elts[0].strs); /* an unnamed list: R's list, Octave's cell */
  assert_int_equal(p.elts[0].elts[0].rows, 1);
  assert_int_equal(p.elts[0].elts[0].cols, 3);
  sgp_valla_net back;
  assert_int_equal(sgp_valla_net_from_value(&ctx, &p, "model", ".", &back), SGP_OK);
  assert_memory_equal(back.W[0], W1, sizeof W1);
  assert_memory_equal(back.b[0], b1, sizeof b1);
  sgp_valla_net_free(&back);
  sgp_value_arena_free(a);
  sgp_valla_net_free(&net);

  /* Octave's older names */
  const char *on[] = {"W", "b", "activation"};
  const sgp_value o = {SGP_VAL_LIST, 3, NULL, NULL, on, 0, 0, rv};
  assert_int_equal(sgp_valla_net_from_value(&ctx, &o, "model", ".", &net), SGP_OK);
  sgp_valla_net_free(&net);
}

static void errors_name_the_element(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  static const double W2b[] = {1, 2, 3, 4}, b2b[] = {0, 0};
  const sgp_value W[] = {MATV(W1, 1, 3), MATV(W2b, 4, 1)}, b[] = {REALV(b1, 3), REALV(b2b, 2)};
  const char *rn[] = {"weights", "biases", "activation"};
  sgp_value rv[] = {CELLS(W, 2), CELLS(b, 2), STRV("tanh")};
  const sgp_value r = {SGP_VAL_LIST, 3, NULL, NULL, rn, 0, 0, rv};
  sgp_valla_net net;
  assert_int_equal(sgp_valla_net_from_value(&ctx, &r, "model", "$", &net), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'model$weights[[2]]' has 4 rows but layer 1 has 3 outputs "
                                  "(weights are in-by-out)");
  assert_int_equal(sgp_valla_net_from_value(&ctx, &r, "fit.model", ".", &net), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'fit.model.weights{2}' has 4 rows but layer 1 has 3 outputs "
                                  "(weights are in-by-out)");
  const sgp_value W3[] = {MATV(W1, 1, 3), MATV(W2, 3, 1)};
  rv[0] = (sgp_value)CELLS(W3, 2);
  assert_int_equal(sgp_valla_net_from_value(&ctx, &r, "model", "$", &net), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'model$biases[[2]]' must be numeric of length 1 (got length 2)");
  rv[2] = (sgp_value)STRV("swish");
  assert_int_equal(sgp_valla_net_from_value(&ctx, &r, "model", ".", &net), SGP_EINVAL);
  assert_non_null(strstr(ctx.errmsg, "'model.activation' is unknown: \"swish\"; use one of"));
  assert_int_equal(sgp_valla_net_from_value(&ctx, &rv[2], "model", "$", &net), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'model' must be a network (a list or struct of weights, "
                                  "biases, activation)");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(reads_both_hosts_forms),
    cmocka_unit_test(errors_name_the_element),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
