# The tests' hooks (interrupt_after: a simulated Ctrl-C) work only where
# SCALEGP_TEST_HOOKS=1; with_test_hooks evaluates code with the variable set
# (on = TRUE) or unset (on = FALSE) and restores it afterwards.
with_test_hooks <- function(code, on = TRUE) {
  old <- Sys.getenv("SCALEGP_TEST_HOOKS", unset = NA)
  on.exit(if (is.na(old)) Sys.unsetenv("SCALEGP_TEST_HOOKS") else
    Sys.setenv(SCALEGP_TEST_HOOKS = old))
  if (on) Sys.setenv(SCALEGP_TEST_HOOKS = "1") else Sys.unsetenv("SCALEGP_TEST_HOOKS")
  code
}
