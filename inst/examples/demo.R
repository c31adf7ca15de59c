# scalegp demo: Gaussian-process regression of the annual level of Lake Huron
# (datasets::LakeHuron, 1875-1972) with a Matern-3/2 kernel from gp_kernel().
# Hyperparameters maximize the log marginal likelihood; the plot shows the
# posterior mean with 95% bands, including a 10-year extrapolation.
# Usage: Rscript demo.R [output.png]
library(scalegp)

out <- commandArgs(trailingOnly = TRUE)[1]
if (is.na(out)) out <- "demo.png"

year <- as.numeric(time(LakeHuron))
level <- as.numeric(LakeHuron)
x <- matrix((year - mean(year)) / 10)            # decades, centred
y <- level - mean(level)

neg_log_marglik <- function(par) {
  ell <- exp(par[1]); s2 <- exp(par[2]); noise <- exp(par[3])
  K <- gp_kernel(x, kernel = "matern32", lengthscale = ell, outputscale = s2)
  L <- chol(K + diag(noise, nrow(K)))
  alpha <- backsolve(L, forwardsolve(t(L), y))
  0.5 * sum(y * alpha) + sum(log(diag(L))) + 0.5 * length(y) * log(2 * pi)
}
fit <- optim(c(log(1), log(var(y)), log(0.1 * var(y))), neg_log_marglik)
ell <- exp(fit$par[1]); s2 <- exp(fit$par[2]); noise <- exp(fit$par[3])

xs <- matrix(seq(min(x), max(x) + 1, length.out = 400))
K <- gp_kernel(x, kernel = "matern32", lengthscale = ell, outputscale = s2)
Ks <- gp_kernel(xs, x, kernel = "matern32", lengthscale = ell, outputscale = s2)
L <- chol(K + diag(noise, nrow(K)))
mean_s <- Ks %*% backsolve(L, forwardsolve(t(L), y))
V <- forwardsolve(t(L), t(Ks))
var_s <- pmax(s2 - colSums(V^2), 0)

cat(sprintf("LakeHuron GP (n = %d): lengthscale %.2f years, outputscale %.3f ft^2, noise %.3f ft^2\n",
            length(y), 10 * ell, s2, noise))
cat(sprintf("log marginal likelihood %.2f; forecast for 1982: %.2f ft (95%% band +/- %.2f)\n",
            -fit$value, tail(mean_s, 1) + mean(level), 1.96 * sqrt(tail(var_s, 1) + noise)))

dir.create(dirname(out), showWarnings = FALSE, recursive = TRUE)
png(out, width = 900, height = 500)
yr_s <- xs[, 1] * 10 + mean(year)
band <- 1.96 * sqrt(var_s + noise)
plot(year, level, pch = 19, cex = 0.6, ylim = range(level, mean_s + mean(level) + band,
     mean_s + mean(level) - band), xlim = range(yr_s), xlab = "year", ylab = "level (ft)",
     main = "Lake Huron: GP regression with a Matern-3/2 kernel (scalegp::gp_kernel)")
polygon(c(yr_s, rev(yr_s)), c(mean_s + mean(level) + band, rev(mean_s + mean(level) - band)),
        col = adjustcolor("steelblue", 0.25), border = NA)
lines(yr_s, mean_s + mean(level), col = "steelblue4", lwd = 2)
legend("topright", c("observed", "posterior mean", "95% predictive band"),
       pch = c(19, NA, 15), lty = c(NA, 1, NA), col = c("black", "steelblue4",
       adjustcolor("steelblue", 0.4)), bty = "n")
invisible(dev.off())
cat("plot written to", out, "\n")
