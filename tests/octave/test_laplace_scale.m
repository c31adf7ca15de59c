## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## gp_laplace's input scaling (option "scale", on by default), the cases of
## tests/testthat/test-laplace-scale.R on Octave's own data: scale on x is scale
## off on x standardized by hand, predict applies the stored centre and scale,
## a saved fit predicts identically, a given lengthscale is centring only, and a
## fit without the scaling field (saved before it) predicts as given.

%!function [x, y, xn] = sc_data ()
%!  rand ("state", 3);  randn ("state", 3);
%!  n = 60;
%!  x = [round(130 + 30 * randn(n, 1)), double(rand (n, 1) < 0.4), floor(-log (rand (n, 1)))];
%!  p = 1 ./ (1 + exp ((x(:, 1) - 130) / 30 - x(:, 2) - 0.5 * x(:, 3) + 0.5));
%!  y = double (rand (n, 1) < p);
%!  xn = [95 1 0; 130 0 2; 210 1 1];
%!endfunction

%!function z = sc_apply (x, s)
%!  ## (x - centre) ./ scale, as the core computes it
%!  z = (x - s.centre) ./ s.scale;
%!endfunction

%!function K = sc_rbf (a, b, ell, s)
%!  a = a ./ ell;  b = b ./ ell;
%!  d2 = sum (a .^ 2, 2) + sum (b .^ 2, 2)' - 2 * a * b';
%!  K = s * exp (-0.5 * max (d2, 0));
%!endfunction

%!test
%! ## scale on x = scale off on x standardized by hand: the same learned values
%! ## (the optimizer's ftol_rel = 1e-6 bounds a flipped line-search decision:
%! ## evidence to 1e-6 |L|, log values to sqrt (2e-6 |L| / |L''|) ~ 1e-2), and at the
%! ## same values the same f and predictions to rounding (cond(B) eps: 1e-10)
%! [x, y, xn] = sc_data ();
%! a = gp_laplace (x, y, "seed", 1);
%! s = a.scaling;
%! assert (s.scaled);
%! assert (s.centre, mean (x), 1e-12);
%! assert (s.scale, std (x), -1e-14);
%! assert (a.kernel.lengthscale, s.lengthscale * s.scale);
%! assert (a.hyper.lengthscale(:)', a.kernel.lengthscale);
%! z = sc_apply (x, s);
%! b = gp_laplace (z, y, "seed", 1, "scale", false);
%! assert (a.loglik, b.loglik, -1e-6);
%! assert (log ([s.lengthscale a.hyper.outputscale]), log ([b.kernel.lengthscale b.hyper.outputscale]), 1e-2);
%! c = gp_laplace (z, y, "seed", 1, "scale", false, "lengthscale", s.lengthscale,
%!                 "outputscale", a.hyper.outputscale, "mean", a.hyper.mean, "learn", {});
%! assert (a.f, c.f, 1e-10);
%! assert (scalegp_predict (a, xn).prob, scalegp_predict (c, sc_apply (xn, s)).prob, 1e-10);
%! assert (! isempty (regexp (scalegp_summary (a), "\n  inputs       standardized \\(centre", "once")));

%!test
%! ## predict applies centre and scale: the mean by hand on the standardized
%! ## inputs (60 terms of size |K| |w|: rounding 1e-12); xtest takes the same path
%! [x, y, xn] = sc_data ();
%! a = gp_laplace (x, y, "seed", 1, "xtest", xn);
%! s = a.scaling;
%! p = scalegp_predict (a, xn);
%! kz = sc_rbf (sc_apply (xn, s), sc_apply (x, s), s.lengthscale, a.hyper.outputscale);
%! assert (p.mean, a.hyper.mean + kz * a.weights, 1e-12);
%! assert (p.mean, a.test.mean);
%! assert (p.prob, a.test.prob);

%!test
%! ## a saved fit predicts identically
%! [x, y, xn] = sc_data ();
%! a = gp_laplace (x, y, "seed", 1);
%! f = [tempname() ".mat"];
%! unwind_protect
%!   save ("-binary", f, "a");
%!   r = load (f).a;
%!   assert (scalegp_predict (r, xn), scalegp_predict (a, xn));
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## a given lengthscale: centring only, equal to scale off to rounding (2 eps
%! ## max|x| / ell per column, carried by cond(B) ~ 1e3: 1e-11; 1e-9)
%! [x, y, xn] = sc_data ();
%! a = gp_laplace (x, y, "seed", 1, "lengthscale", [40 1 1], "outputscale", 2);
%! b = gp_laplace (x, y, "seed", 1, "lengthscale", [40 1 1], "outputscale", 2, "scale", false);
%! assert (! a.scaling.scaled);
%! assert (a.scaling.scale, [1 1 1]);
%! assert (a.f, b.f, 1e-9);
%! assert (scalegp_predict (a, xn).mean, scalegp_predict (b, xn).mean, 1e-9);

%!test
%! ## a fit without scaling (saved before it) predicts as given; a damaged one is an error
%! [x, y, xn] = sc_data ();
%! b = gp_laplace (x, y, "seed", 1, "scale", false);
%! assert (scalegp_predict (rmfield (b, "scaling"), xn), scalegp_predict (b, xn));
%! a = gp_laplace (x, y, "seed", 1);
%! a.scaling.scale = a.scaling.scale(1:2);
%! fail ("scalegp_predict (a, xn)", "'fit.scaling' must be");
