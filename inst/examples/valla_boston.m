## valla_boston.m -- the Octave twin of vignette("valla"): error bars for a
## network that overfits, checked on held-out data.
##
##   octave-cli inst/examples/valla_boston.m     (with the scalegp package
##   installed; from the source tree add bindings_octave/inst and /src to the path)
##
## The data are R's MASS::Boston, written to a CSV file by Rscript when R and
## MASS are installed; without them, generated data of the same shape stand in
## (the script says which). Octave has no nnet: the network is trained by
## mlp_fit (one hidden layer of 10 tanh units, no weight decay), so the figures
## differ from the vignette's; any network given as a struct of weights and
## biases (help valla) takes its place.
if (isempty (which ("valla")))
  pkg load scalegp
endif

function [x, y, source] = load_boston ()
  file = [tempname(), ".csv"];
  r = "write.csv(MASS::Boston, commandArgs(TRUE)[1], row.names = FALSE)";
  if (system (sprintf ("Rscript -e \"%s\" %s 2>/dev/null", r, file)) == 0)
    d = dlmread (file, ",", 1, 0);
    delete (file);
    x = d(:, 1:13);  y = d(:, 14);
    source = "MASS::Boston (via Rscript)";
  else
    ## stand-in: 506 rows, 13 inputs, a smooth response with noise
    rand ("state", 1);  randn ("state", 1);
    x = randn (506, 13);
    y = 22 + 6 * tanh (x(:, 6) - x(:, 13)) - 3 * x(:, 11) + 4 * randn (506, 1);
    source = "generated stand-ins (no Rscript with MASS found)";
  endif
endfunction

[x, y, source] = load_boston ();
printf ("data: %s\n", source);
x = (x - mean (x)) ./ std (x);
rand ("state", 1);
test = randperm (rows (x), 100);
train = setdiff (1:rows (x), test);
xtr = x(train, :);  ytr = y(train);  xte = x(test, :);  yte = y(test);

## A network with 151 weights for 406 points, trained long without decay
train_net = @(x, y) mlp_fit (x, y, 10, "tanh", "iterations", 20000, "lr", 0.01,
                             "batch_size", 406, "seed", 1);
net = train_net (xtr, ytr);

## valla: the noise from the out-of-fold residuals of 5 refits (refit), the
## prior variance learned; the network's output stays the mean
fit = valla (net, xtr, ytr, "refit", train_net, "seed", 1);
printf ("learned prior_var %.4g, noise %.4g\n", fit.prior_var, fit.noise);
p = scalegp_predict (fit, xte);
g_tr = scalegp_predict (fit, xtr).mean;   # the network's output
rmse = @(pred, obs) sqrt (mean ((obs - pred) .^ 2));
printf ("network RMSE: training %.2f, test %.2f\n", rmse (g_tr, ytr), rmse (p.mean, yte));

## against the plain network with its training error as the error bar
plain.mean = p.mean;  plain.var = repmat (mean ((ytr - g_tr) .^ 2), size (yte));
coverage = @(pr) mean (abs (yte - pr.mean) <= 1.959964 * sqrt (pr.var));
mp = valla_metrics (plain, yte);  mv = valla_metrics (p, yte);
printf ("\nheld out (%d)   coverage of 95%%   NLL     CRPS\n", numel (yte));
printf ("plain network   %.2f              %.3f   %.3f\n", coverage (plain), mp.nll, mp.crps);
printf ("valla           %.2f              %.3f   %.3f\n", coverage (p), mv.nll, mv.crps);

## the exact linearized Laplace posterior at the same prior variance and noise
lla = valla (net, xtr, ytr, "method", "lla", "prior_var", fit.prior_var, "noise", fit.noise);
pl = scalegp_predict (lla, xte);
ml = valla_metrics (pl, yte);
printf ("exact LLA       %.2f              %.3f   %.3f\n", coverage (pl), ml.nll, ml.crps);
