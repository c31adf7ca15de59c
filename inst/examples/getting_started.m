## getting_started.m -- the Octave twin of vignette("scalegp"): classification
## and counts with gp_laplace, hyperparameters learned.
##
##   octave-cli inst/examples/getting_started.m     (with the scalegp package
##   installed; from the source tree add bindings_octave/inst and /src to the path)
##
## The data are those of the vignette, from R's MASS package (Pima.tr, Pima.te,
## quine), written to CSV files by Rscript when R and MASS are installed.
## Octave has no copy of them: without R, generated data of the same shapes
## stand in (the script says which), and the figures differ from the vignette's.
if (isempty (which ("gp_laplace")))
  pkg load scalegp
endif

function [tr, te, counts, source] = load_data ()
  dir = tempname ();
  mkdir (dir);
  ## no dollar signs: the shell would expand them
  r = ["library(MASS); d <- commandArgs(TRUE)[1];", ...
       "p <- function(df) cbind(df[1:7], diabetes = as.integer(df[['type']] == 'Yes'));", ...
       "write.csv(p(Pima.tr), file.path(d, 'pima_tr.csv'), row.names = FALSE);", ...
       "write.csv(p(Pima.te), file.path(d, 'pima_te.csv'), row.names = FALSE);", ...
       "q <- model.matrix(~ Eth + Sex + Age + Lrn, quine)[, -1];", ...
       "write.csv(cbind(q, Days = quine[['Days']]), file.path(d, 'quine.csv'), row.names = FALSE)"];
  status = system (sprintf ("Rscript -e \"%s\" %s 2>/dev/null", r, dir));
  if (status == 0)
    tr = dlmread (fullfile (dir, "pima_tr.csv"), ",", 1, 0);
    te = dlmread (fullfile (dir, "pima_te.csv"), ",", 1, 0);
    counts = dlmread (fullfile (dir, "quine.csv"), ",", 1, 0);
    source = "MASS (via Rscript): Pima.tr, Pima.te, quine";
  else
    ## stand-ins: 7 inputs, the log-odds linear in four of them; 146 counts
    ## over 6 indicator columns, over-dispersed (Poisson at gamma rates)
    rand ("state", 1);  randn ("state", 1);  randg ("state", 1);  randp ("state", 1);
    pima = @(n) [randn(n, 7), zeros(n, 1)];
    tr = pima (200);  te = pima (332);
    beta = [0.4 1.1 0 0 0.7 0.6 0.5]';
    tr(:, 8) = rand (200, 1) < 1 ./ (1 + exp (0.8 - tr(:, 1:7) * beta));
    te(:, 8) = rand (332, 1) < 1 ./ (1 + exp (0.8 - te(:, 1:7) * beta));
    q = double (rand (146, 6) < 0.5);
    mu = exp (2.5 - 0.8 * q(:, 1) + 0.6 * q(:, 3) + 0.7 * q(:, 6));
    counts = [q, randp(mu .* randg (1.3, 146, 1) / 1.3)];
    source = "generated stand-ins (no Rscript with MASS found)";
  endif
  confirm_recursive_rmdir (false, "local");
  rmdir (dir, "s");
endfunction

function l = log_loss (p, y)
  l = -mean (y .* log (p) + (1 - y) .* log (1 - p));
endfunction

function p = logistic_regression (x, y, xnew)
  ## glm's binomial fit by iteratively reweighted least squares
  X = [ones(rows (x), 1), x];
  b = zeros (columns (X), 1);
  for it = 1:50
    mu = 1 ./ (1 + exp (-X * b));
    w = mu .* (1 - mu);
    step = (X' * (w .* X)) \ (X' * (y - mu));
    b += step;
    if (max (abs (step)) < 1e-10)
      break;
    endif
  endfor
  p = 1 ./ (1 + exp (-[ones(rows (xnew), 1), xnew] * b));
endfunction

[tr, te, counts, source] = load_data ();
printf ("data: %s\n\n", source);

## Classification: diabetes (column 8) from seven measurements, on one scale
## (the training set's means and standard deviations).
centre = mean (tr(:, 1:7));  spread = std (tr(:, 1:7));
xtr = (tr(:, 1:7) - centre) ./ spread;  ytr = tr(:, 8);
xte = (te(:, 1:7) - centre) ./ spread;  yte = te(:, 8);
fit = gp_laplace (xtr, ytr, "max_iter", rows (xtr), "seed", 1);
scalegp_summary (fit);
p_gp = scalegp_predict (fit, xte, "type", "response");
p_glm = logistic_regression (xtr, ytr, xte);
printf ("\nheld out (%d): log loss GP %.4f, logistic regression %.4f\n", rows (xte),
        log_loss (p_gp, yte), log_loss (p_glm, yte));
printf ("accuracy GP %.4f, logistic regression %.4f\n",
        mean ((p_gp > 0.5) == yte), mean ((p_glm > 0.5) == yte));
link = scalegp_predict (fit, xte(1:4, :));
printf ("log-odds of the first 4 test women and their sd:\n");
disp ([link.mean, sqrt(link.var)]);

## One lengthscale per input (ARD): a lengthscale at the top of its range
## (1000 times the start) switches that input off.
ard = gp_laplace (xtr, ytr, "max_iter", rows (xtr), "seed", 1, "lengthscale", ones (1, 7),
                  "learn", {"lengthscale", "outputscale", "mean"});
printf ("ARD lengthscales (npreg glu bp skin bmi ped age): %s\n",
        mat2str (ard.kernel.lengthscale, 3));
printf ("log evidence: isotropic %.2f (3 learned), ARD %.2f (9 learned)\n\n",
        fit.loglik, ard.loglik);

## Counts: days absent (last column) against six indicator columns; Poisson
## against negative binomial, the dispersion picked by the log evidence.
x = counts(:, 1:end-1);  y = counts(:, end);
pois = gp_laplace (x, y, "likelihood", "poisson", "max_iter", rows (x), "seed", 1);
r = [0.5 1 1.5 2 4];
ev = arrayfun (@(ri) gp_laplace (x, y, "likelihood", "negbin", "dispersion", ri,
                                 "max_iter", rows (x), "seed", 1).loglik, r);
printf ("log evidence: poisson %.1f; negbin %s at dispersion %s\n", pois.loglik,
        mat2str (ev, 4), mat2str (r));
[~, best] = max (ev);
nb = gp_laplace (x, y, "likelihood", "negbin", "dispersion", r(best),
                 "max_iter", rows (x), "seed", 1);
scalegp_summary (nb);
[~, k] = unique (x, "rows", "first");   # children with different factors
pred = scalegp_predict (nb, x(k(1:4), :));
printf ("expected days absent of 4 children of different groups and their sd:\n");
disp ([pred.rate_mean, sqrt(pred.rate_var)]);
