## scalegp_predict on a ski_laplace fit: the core reads the fit struct (also
## after save/load), recomputes the curvature from f and runs the fit's own
## prediction code, so the predictions at the fit's xtest equal fit.test
## exactly; a damaged field is an error naming it.

%!shared fit, xt
%! [i, j] = ndgrid (1:12, 1:10);
%! y = floor (3 * (1 + sin (i / 3) .* cos (j / 4)));
%! xt = [1 1; 2.5 3.3; 6.2 9.9; 11.9 5; 7 2.25];
%! fit = ski_laplace ([], y, "lengthscale", [2 3], "outputscale", 1.3, "mean", 0.5,
%!                    "xtest", xt, "verbose", false);

%!test
%! p = scalegp_predict (fit, xt);
%! assert (isequal (p.mean, fit.test.mean));
%! assert (isequal (p.var, fit.test.var));
%! assert (isequal (p.response, fit.test.response));
%! assert (isequal (p.response_var, fit.test.response_var));
%! assert (isequal (scalegp_predict (fit, xt, "type", "link"), fit.test.mean));
%! assert (isequal (scalegp_predict (fit, xt, "type", "response"), fit.test.response));
%! pn = scalegp_predict (fit, xt, "variance", "none");
%! assert (isequal (pn.mean, p.mean));
%! assert (isempty (pn.var));
%! r2 = scalegp_predict (fit, xt, "type", "response", "offset", log (2) * ones (5, 1));
%! assert (r2, 2 * p.response, 1e-14 * max (r2));

%!test
%! f = [tempname() ".mat"];
%! save ("-binary", f, "fit");
%! s = load (f);
%! unlink (f);
%! assert (isequal (scalegp_predict (s.fit, xt), scalegp_predict (fit, xt)));

%!error <scalegp_predict: 'fit.weights' has 10 values; need 120 \(one per grid point\)>
%! scalegp_predict (setfield (fit, "weights", ones (10, 1)), xt);
%!error <scalegp_predict: 'fit.used' is missing>
%! scalegp_predict (rmfield (fit, "used"), xt);
%!error <scalegp_predict: 'fit.hyper.lengthscale' must be>
%! h = fit.hyper; h.lengthscale = -1;
%! scalegp_predict (setfield (fit, "hyper", h), xt);
%!error <scalegp_predict: 'fit.f' must be numeric>
%! scalegp_predict (setfield (fit, "f", "x"), xt);
%!error <scalegp_predict: 'type' must be one of>
%! scalegp_predict (fit, xt, "type", "class");
%!error <scalegp_predict: 'offset' must be 5 finite numbers>
%! scalegp_predict (fit, xt, "offset", [1 2]);
%!test  # (its text is checked against R's in the parity test)
%! assert (! isempty (strfind (scalegp_summary (fit), "ski_laplace")));

## a scattered fit (cubic weights at the observations' own locations): the
## fit carries x, from which predict makes W again; also after save/load
%!test
%! x = [0.3 + mod((1:60)', 7) * 0.35, 0.3 + mod((1:60)', 5) * 0.4];
%! y = floor (2 * (1 + sin (x(:,1)) .* cos (x(:,2))));
%! xs = [0.5 0.5; 1.7 1.2; 2.2 1.9];
%! sf = ski_laplace (x, y, "layout", "scattered", "grid_size", [12 10],
%!                   "lengthscale", 0.7, "outputscale", 1, "mean", 0.3,
%!                   "xtest", xs, "verbose", false);
%! assert (sf.used.layout, "scattered");
%! assert (sf.used.interpolation, "cubic");
%! assert (isequal (sf.x, x));
%! p = scalegp_predict (sf, xs);
%! assert (isequal (p.mean, sf.test.mean));
%! assert (isequal (p.var, sf.test.var));
%! assert (isequal (p.response, sf.test.response));
%! f = [tempname() ".mat"];
%! save ("-binary", f, "sf");
%! s = load (f);
%! unlink (f);
%! assert (isequal (scalegp_predict (s.sf, xs), p));
%! fail ("scalegp_predict (setfield (sf, 'x', x(:, 1)), xs)", "'fit.x' is 60 x 1");
