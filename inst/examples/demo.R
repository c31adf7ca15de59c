# scalegp demo: small real analyses, one panel each in one PNG.
#  1. Lake Huron levels (datasets::LakeHuron, 1875-1972): GP regression with a
#     Matern-3/2 kernel (gp_laplace, gaussian likelihood), lengthscale,
#     outputscale, mean and noise learned by marginal likelihood, 95% bands and
#     a 10-year extrapolation.
#  2. Earthquakes off Fiji (datasets::quakes): the events as a point pattern, a
#     log-Gaussian Cox process on a 200 x 232 grid fitted by ski_laplace() with
#     everything learned -> intensity map.
#  3. Old Faithful (datasets::faithful): a small tanh network (mlp_fit) predicts
#     eruption length from the waiting time; valla() adds error bars from its
#     linearized-Laplace GP (M = 20 inducing points), wide between the clusters.
#  4. A million noisy sensor readings of a 2-D field (generated, seeded):
#     ski_stats() makes one streaming pass, ski_gsgp() then works on a 128 x 128
#     grid only -> posterior mean map, Lanczos (LOVE) error bars, error vs truth.
# Usage: Rscript demo.R [output.png]
library(scalegp)

out <- commandArgs(trailingOnly = TRUE)[1]
if (is.na(out)) out <- "demo.png"
dir.create(dirname(out), showWarnings = FALSE, recursive = TRUE)
png(out, width = 1400, height = 1100)
par(mfrow = c(2, 2))

## ---- 1. Lake Huron: exact GP regression, hyperparameters learned ----
# gp_laplace() with a gaussian likelihood is exact GP regression; nothing but the
# kernel is given, so the lengthscale, outputscale, prior mean and noise are
# learned by maximizing the marginal likelihood (L-BFGS in the core).
year <- as.numeric(time(LakeHuron))
level <- as.numeric(LakeHuron)
x <- matrix((year - mean(year)) / 10)            # decades, centred
xs <- matrix(seq(min(x), max(x) + 1, length.out = 400))
hfit <- gp_laplace(x, level, likelihood = "gaussian", kernel = "matern32", xtest = xs,
                   policy = "cholesky", max_iter = length(level), seed = 1, verbose = FALSE)
h <- hfit$hyper
mean_s <- hfit$test$mean
band <- 1.96 * sqrt(hfit$test$y_var)             # latent variance + noise

cat(sprintf("LakeHuron GP (n = %d): learned lengthscale %.2f years, outputscale %.3f ft^2, mean %.2f ft, noise %.3f ft^2\n",
            length(level), 10 * h$lengthscale, h$outputscale, h$mean, h$noise))
cat(sprintf("log marginal likelihood %.2f (%d evaluations); forecast for 1982: %.2f ft (95%% band +/- %.2f)\n",
            hfit$loglik, nrow(hfit$optim), tail(mean_s, 1), tail(band, 1)))

yr_s <- xs[, 1] * 10 + mean(year)
plot(year, level, pch = 19, cex = 0.6, ylim = range(level, mean_s + band, mean_s - band),
     xlim = range(yr_s), xlab = "year", ylab = "level (ft)",
     main = "Lake Huron: GP regression, Matern-3/2, learned hyperparameters (gp_laplace)")
polygon(c(yr_s, rev(yr_s)), c(mean_s + band, rev(mean_s - band)),
        col = adjustcolor("steelblue", 0.25), border = NA)
lines(yr_s, mean_s, col = "steelblue4", lwd = 2)
legend("topright", c("observed", "posterior mean", "95% predictive band"),
       pch = c(19, NA, 15), lty = c(NA, 1, NA), col = c("black", "steelblue4",
       adjustcolor("steelblue", 0.4)), bty = "n")

## ---- 2. Earthquakes off Fiji: a log-Gaussian Cox process with ski_laplace() ----
# The 1000 events as a point pattern on a 200 x 232 grid of 0.125 degree cells
# (46400 cells); the latent log intensity per deg^2 is a GP on the grid, and the
# lengthscale, outputscale and mean are learned by the Laplace evidence (its
# eigen path: a preconditioned stochastic estimate with its standard error).
# variance = "stochastic" maps the posterior sd of every cell from the same probes.
h <- 0.125
lon <- seq(164 + h / 2, 189 - h / 2, by = h)
lat <- seq(-39 + h / 2, -10 - h / 2, by = h)
t0 <- proc.time()[["elapsed"]]
qfit <- ski_laplace(cbind(quakes$long, quakes$lat), grid_size = c(length(lon), length(lat)),
                    grid_bounds = rbind(range(lon), range(lat)), variance = "stochastic",
                    seed = 1, verbose = FALSE)
secs <- proc.time()[["elapsed"]] - t0
rate <- exp(qfit$weights + qfit$grid_var / 2)      # posterior mean events per deg^2
cat(sprintf("quakes Cox process (%d cells, %d events): %d Newton steps, %d CG steps, %.1f s with learning; %s\n",
            length(rate), nrow(quakes), qfit$newton_steps, qfit$iterations, secs,
            if (qfit$converged) "converged" else "NOT converged"))
cat(sprintf("  learned lengthscale %.2f deg, outputscale %.2f, mean log intensity %.2f (%d evaluations); log evidence %.1f +- %.1f\n",
            qfit$hyper$lengthscale, qfit$hyper$outputscale, qfit$hyper$mean, nrow(qfit$optim),
            qfit$loglik, qfit$loglik_se))
image(lon, lat, matrix(log10(rate), length(lon)), col = hcl.colors(40, "YlOrRd", rev = TRUE),
      xlab = "longitude", ylab = "latitude", asp = 1,
      main = "Fiji earthquakes: log10 posterior intensity per deg^2 (ski_laplace, Cox process)")
points(quakes$long, quakes$lat, pch = ".", col = "grey20")

## ---- 3. Old Faithful: error bars for a trained network with valla() ----
wait_c <- 70; wait_s <- 14; erupt_c <- 3.5; erupt_s <- 1.1        # standardize
xw <- matrix((faithful$waiting - wait_c) / wait_s)
ye <- (faithful$eruptions - erupt_c) / erupt_s
t0 <- proc.time()[["elapsed"]]
net <- mlp_fit(xw, ye, hidden = c(50, 50), activation = "tanh", iterations = 3000,
               lr = 3e-3, seed = 1, verbose = FALSE)
vfit <- valla(net, xw, ye, inducing = 20, iterations = 3000, seed = 1, verbose = FALSE)
secs <- proc.time()[["elapsed"]] - t0
ws <- seq(35, 105, length.out = 300)
pv <- predict(vfit, matrix((ws - wait_c) / wait_s))
mu <- pv$mean * erupt_s + erupt_c
sd <- sqrt(pv$var) * erupt_s                        # predictive: latent + noise
cat(sprintf("faithful network + valla (n = %d, M = 20): %.1f s; predictive sd %.2f min at 70 min waiting, %.2f min at 55 and 80\n",
            nrow(faithful), secs, approx(ws, sd, 70)$y, mean(approx(ws, sd, c(55, 80))$y)))
plot(faithful$waiting, faithful$eruptions, pch = 19, cex = 0.5, xlim = range(ws),
     ylim = range(mu - 2 * sd, mu + 2 * sd), xlab = "waiting time (min)",
     ylab = "eruption length (min)",
     main = "Old Faithful: 2x50 tanh network (mlp_fit) with valla error bars")
polygon(c(ws, rev(ws)), c(mu + 2 * sd, rev(mu - 2 * sd)), col = adjustcolor("darkorange", 0.25),
        border = NA)
lines(ws, mu, col = "darkorange3", lwd = 2)
legend("topleft", c("eruptions", "network output", "+/- 2 predictive sd (valla)"),
       pch = c(19, NA, 15), lty = c(NA, 1, NA), col = c("black", "darkorange3",
       adjustcolor("darkorange", 0.4)), bty = "n")

## ---- 4. One million readings of a 2-D field with ski_gsgp() ----
set.seed(42)
n_big <- 1e6
field <- function(u, v) sin(6 * u) * cos(4 * v) + 0.5 * exp(-((u - 0.7)^2 + (v - 0.3)^2) / 0.02)
xb <- cbind(u = rbeta(n_big, 1.3, 1.3), v = runif(n_big))    # denser in the middle
yb <- field(xb[, 1], xb[, 2]) + rnorm(n_big, sd = 0.3)
t0 <- proc.time()[["elapsed"]]
grid <- ski_grid(xb, grid_size = c(128, 128), interpolation = "cubic")
stats <- ski_stats(xb, yb, grid)                   # the only O(n) step
t_stats <- proc.time()[["elapsed"]] - t0
gs <- seq(0.01, 0.99, length.out = 150)
xs_big <- as.matrix(expand.grid(gs, gs))
sfit <- ski_gsgp(stats = stats, kernel = "matern32", lengthscale = 0.15, outputscale = 0.5,
                 noise = 0.09, max_iter = 5000, xtest = xs_big, seed = 1, verbose = FALSE)
truth <- field(xs_big[, 1], xs_big[, 2])
# exact posterior variances (each a solve to its own error bound) at the centre,
# where the data are densest, and at an edge
corner <- rbind(c(0.5, 0.5), c(0.02, 0.5))
sd_at <- sqrt(predict(sfit, corner, variance = "exact")$var)
cat(sprintf("ski_gsgp (n = %.0e, grid 128 x 128): statistics %.1f s, solve %.1f s (%d iterations%s); RMSE to the true field %.3f, posterior sd %.3f at the centre, %.3f at the edge\n",
            n_big, t_stats, sfit$timings[["solve"]], sfit$iterations,
            if (sfit$converged) "" else ", NOT converged", sqrt(mean((sfit$test$mean - truth)^2)),
            sd_at[1], sd_at[2]))
image(gs, gs, matrix(sfit$test$mean, length(gs)), col = hcl.colors(40, "Blue-Red 3"),
      xlab = "u", ylab = "v", asp = 1,
      main = sprintf("1e6 noisy readings: ski_gsgp posterior mean (grid 128 x 128, %.0f s)",
                     t_stats + sfit$timings[["solve"]]))
contour(gs, gs, matrix(truth, length(gs)), add = TRUE, col = "grey20", drawlabels = FALSE)
legend("topright", "true field (contours)", lty = 1, col = "grey20", bty = "n", bg = "white")

invisible(dev.off())
cat("plot written to", out, "\n")
