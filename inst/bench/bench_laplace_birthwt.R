# gp_laplace's input scaling (option scale) on MASS::birthwt: low ~ age + lwt +
# race + smoke + ptl + ht + ui + ftv (189 rows; lwt in pounds, 80-250, beside
# 0/1 columns and small counts), the raw numeric model matrix without its
# intercept (race as MASS codes it, 1..3). 5-fold cross-validated log loss
# (the folds: set.seed(1); sample(rep(1:5, length.out = 189))) of the
# intercept-only model, glm's logistic regression and gp_laplace with its
# defaults, with scale = FALSE (the inputs as given) and on columns standardized
# by hand. Target: the defaults no worse than glm.
# Usage: Rscript bench_laplace_birthwt.R
library(scalegp)

data("birthwt", package = "MASS", envir = environment())
d <- birthwt
f <- low ~ age + lwt + race + smoke + ptl + ht + ui + ftv
x <- stats::model.matrix(f, d)[, -1]
y <- d$low
set.seed(1)
folds <- sample(rep(1:5, length.out = nrow(d)))

logloss <- function(p, y) {
  p <- pmin(pmax(p, 1e-15), 1 - 1e-15)
  -mean(y * log(p) + (1 - y) * log(1 - p))
}

# out-of-fold probabilities of one method (fit on the other folds, predict this one)
cv <- function(pred) {
  p <- numeric(length(y))
  for (k in 1:5) {
    te <- folds == k
    p[te] <- pred(x[!te, , drop = FALSE], y[!te], x[te, , drop = FALSE])
  }
  p
}

standardize <- function(a, b) {
  mu <- colMeans(a)
  s <- apply(a, 2, stats::sd)
  list(a = sweep(sweep(a, 2, mu), 2, s, "/"), b = sweep(sweep(b, 2, mu), 2, s, "/"))
}

gpl <- function(xtr, ytr, xte, ...)
  suppressWarnings(predict(gp_laplace(xtr, ytr, seed = 1, verbose = FALSE, ...), xte)$prob)

methods <- list(
  intercept = function(xtr, ytr, xte) rep(mean(ytr), nrow(xte)),
  glm = function(xtr, ytr, xte) {
    dtr <- data.frame(xtr, y = ytr)
    g <- stats::glm(y ~ ., data = dtr, family = stats::binomial())
    stats::predict(g, data.frame(xte), type = "response")
  },
  gp_laplace = function(xtr, ytr, xte) gpl(xtr, ytr, xte),
  gp_laplace_scale_false = function(xtr, ytr, xte) gpl(xtr, ytr, xte, scale = FALSE),
  gp_laplace_by_hand = function(xtr, ytr, xte) {
    z <- standardize(xtr, xte)
    gpl(z$a, ytr, z$b, scale = FALSE)
  })

for (m in names(methods)) {
  t0 <- proc.time()[["elapsed"]]
  ll <- logloss(cv(methods[[m]]), y)
  cat(sprintf("BENCH laplace_birthwt method=%s folds=5 n=%d d=%d logloss=%.4f time=%.1fs\n", m,
              nrow(x), ncol(x), ll, proc.time()[["elapsed"]] - t0))
}
