# The core's likelihood table as the fronts read it (the info verb's
# likelihoods): label coding for gp_laplace, roles for valla and mlp_fit.

# How the core's likelihoods code class labels (the info verb's likelihoods:
# classes, n_classes (0: the levels' count, given as n_class), first_class) and
# what valla's and mlp_fit's fronts decide by (noise: real targets with a noise
# variance; valla: valla and mlp_fit offer it).
lik_label_coding <- function() {
  # the core's facts are fixed for the loaded library: read once per session
  t <- option_tables[[".likelihoods"]]
  if (is.null(t)) assign(".likelihoods", t <- sgp_call(C_info)$likelihoods, envir = option_tables)
  data.frame(name = t$name, classes = t$classes == 1, n_classes = t$n_classes,
             first_class = t$first_class, noise = t$noise == 1, valla = t$valla == 1,
             stringsAsFactors = FALSE)
}

# One likelihood's row of it (a name out of the table: numbers, not classes).
lik_coding_of <- function(likelihood, t = lik_label_coding()) {
  r <- t[t$name == likelihood, ]
  if (nrow(r)) r else data.frame(name = likelihood, classes = FALSE, n_classes = 0L,
                                 first_class = 0L, noise = FALSE, valla = FALSE,
                                 stringsAsFactors = FALSE)
}

# A likelihood's role in valla's and mlp_fit's fronts, from the core's facts:
# "noise" (real targets, a noise variance), "two" (two classes, one latent:
# valla's P(y = 1)), "multi" (classes as many as the labels' levels or the
# network's outputs), else "numbers" (a name out of the table included).
lik_role <- function(likelihood, t = lik_label_coding()) {
  lk <- lik_coding_of(likelihood, t)
  if (lk$noise) "noise" else if (!lk$classes) "numbers"
  else if (lk$n_classes == 2L) "two" else "multi"
}

# The name of the likelihood valla offers in a role (valla's default and an nnet
# fit's likelihood are named by role).
valla_lik_of <- function(role, t = lik_label_coding()) {
  roles <- vapply(t$name, lik_role, "", t = t)
  t$name[t$valla & roles == role][1L]
}

# `"a"`, `"a" or "b"`, `"a", "b" or "c"`
quoted_or <- function(s) {
  s <- paste0("\"", s, "\"")
  if (length(s) < 2L) s else paste(paste(s[-length(s)], collapse = ", "), "or", s[length(s)])
}

