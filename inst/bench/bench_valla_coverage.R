# bench-valla-coverage: held-out coverage of 95% intervals for
# an overfitted nnet on Boston housing (MASS::Boston, inputs standardized, medv in its
# units). nnet(size = 10, linout, no decay, maxit 1000) fits the training part to about
# a third of its test RMSE. Seeded 80/20 splits; per split and method: the share of
# test points inside the 95% interval and the interval's mean width.
#   valla              valla's default: out-of-fold residuals of 5 refits of the nnet are
#                      the validation data; the noise minimizes their NLL
#   valla (hold-out)   the old default: a 10% hold-out of x (which the network was
#                      trained on) for early stopping, the noise learned by Adam on x
#   LLA, ELLA          exact LLA (method "lla") and ELLA (100 points, rank 20) at each
#                      valla fit's prior_var and noise
#   bootstrap          B = 20 nnet refits on bootstrap samples: variance of their
#                      predictions plus the out-of-bag residual mean square
#   lm                 predict.lm(interval = "prediction")
# Usage: Rscript bench_valla_coverage.R [splits]   (default 5; make bench-valla-coverage)
suppressPackageStartupMessages({library(scalegp); library(MASS); library(nnet)})
args <- commandArgs(trailingOnly = TRUE)
n_split <- if (length(args)) as.integer(args[1]) else 5L

X <- scale(as.matrix(Boston[, -14]))
y <- Boston$medv
z <- qnorm(0.975)
score <- function(mu, v, yt) c(coverage = mean(abs(yt - mu) <= z * sqrt(v)),
                               width = mean(2 * z * sqrt(v)))
fit_net <- function(x, y) nnet(x, y, size = 10, linout = TRUE, maxit = 1000, trace = FALSE)

bootstrap <- function(xtr, ytr, xte, B = 20) {
  n <- nrow(xtr)
  pte <- matrix(0, nrow(xte), B)
  oob_sum <- oob_cnt <- numeric(n)
  for (b in seq_len(B)) {
    i <- sample.int(n, n, replace = TRUE)
    net <- fit_net(xtr[i, ], ytr[i])
    pte[, b] <- predict(net, xte)
    o <- setdiff(seq_len(n), i)
    oob_sum[o] <- oob_sum[o] + (ytr[o] - predict(net, xtr[o, ]))^2
    oob_cnt[o] <- oob_cnt[o] + 1
  }
  noise <- mean(oob_sum[oob_cnt > 0] / oob_cnt[oob_cnt > 0])
  list(var = apply(pte, 1, var) + noise)
}

rows <- list()
for (s in seq_len(n_split)) {
  set.seed(s)
  te <- sample(nrow(X), round(0.2 * nrow(X)))
  xtr <- X[-te, ]; ytr <- y[-te]; xte <- X[te, ]; yte <- y[te]
  net <- fit_net(xtr, ytr)
  g <- predict(net, xte)
  rmse <- c(train = sqrt(mean((ytr - predict(net, xtr))^2)), test = sqrt(mean((yte - g)^2)))
  t0 <- proc.time()[["elapsed"]]
  fv <- suppressWarnings(valla(net, xtr, ytr, xtest = xte, seed = s, verbose = FALSE))
  t_valla <- proc.time()[["elapsed"]] - t0
  fo <- valla(net, xtr, ytr, xtest = xte, seed = s, verbose = FALSE, noise_fit = "adam",
              folds = 0)
  lla <- function(f) valla(net, xtr, ytr, method = "lla", xtest = xte, noise = f$noise,
                           prior_var = f$prior_var, verbose = FALSE)$test
  lv <- lla(fv); lo <- lla(fo)
  ella <- function(f) valla(net, xtr, ytr, method = "ella", inducing = 100, xtest = xte,
                            noise = f$noise, prior_var = f$prior_var, seed = s,
                            verbose = FALSE)$test
  ev <- ella(fv); eo <- ella(fo)
  bs <- bootstrap(xtr, ytr, xte)
  lmf <- lm(y ~ ., data = data.frame(xtr, y = ytr))
  pl <- predict(lmf, data.frame(xte), interval = "prediction", level = 0.95)
  res <- rbind("valla" = score(fv$test$mean, fv$test$var, yte),
               "valla (hold-out, Adam noise)" = score(fo$test$mean, fo$test$var, yte),
               "LLA at valla's noise" = score(lv$mean, lv$var, yte),
               "LLA at the hold-out noise" = score(lo$mean, lo$var, yte),
               "ELLA at valla's noise" = score(ev$mean, ev$var, yte),
               "ELLA at the hold-out noise" = score(eo$mean, eo$var, yte),
               "bootstrap (B = 20)" = score(g, bs$var, yte),
               "lm" = c(coverage = mean(yte >= pl[, "lwr"] & yte <= pl[, "upr"]),
                        width = mean(pl[, "upr"] - pl[, "lwr"])))
  cat(sprintf("split %d: nnet RMSE train %.2f, test %.2f (ratio %.1f); valla %.1f s, noise %.3g (hold-out: %.3g)\n",
              s, rmse[1], rmse[2], rmse[2] / rmse[1], t_valla, fv$noise, fo$noise))
  rows[[s]] <- res
}
cov <- sapply(rows, function(r) r[, "coverage"])
wid <- sapply(rows, function(r) r[, "width"])
out <- data.frame(coverage_median = apply(cov, 1, median), coverage_min = apply(cov, 1, min),
                  coverage_mean = rowMeans(cov), width_median = apply(wid, 1, median))
cat(sprintf("\nBoston, nnet size 10, %d splits of 405/101: held-out coverage of 95%% intervals\n",
            n_split))
print(round(out, 3))
ok <- out["valla", "coverage_mean"] >= 0.9
cat(sprintf("\ntarget: valla's mean coverage %.3f >= 0.9: %s\n",
            out["valla", "coverage_mean"], if (ok) "yes" else "NO"))
