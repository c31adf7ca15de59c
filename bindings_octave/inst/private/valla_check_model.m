## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private (valla): the network struct checked layer by layer; D inputs, C outputs,
## L layers; weights and biases as full doubles.
function [model, D, C, L] = valla_check_model (model, fname)
  if (! (isstruct (model) && isscalar (model) && isfield (model, "W") && isfield (model, "b")
         && isfield (model, "activation")))
    arg_error (fname, "model", "must be a struct with fields W, b (cell arrays) and activation");
  endif
  if (! (iscell (model.W) && iscell (model.b)))
    arg_error (fname, "model", "fields W and b must be cell arrays (one entry per layer)");
  endif
  L = numel (model.W);
  if (L < 1 || numel (model.b) != L)
    arg_error (fname, "model", "has %d weight matrices and %d bias vectors (need the same number, at least 1)",
               L, numel (model.b));
  endif
  tr = (isfield (model, "transpose") && ! isempty (model.transpose)
        && check_flag (model.transpose, fname, "model.transpose"));
  model.transpose = tr;
  prev = -1;
  for l = 1:L
    w = model.W{l};
    arg = sprintf ("model.W{%d}", l);
    if (! (isnumeric (w) && isreal (w) && ndims (w) == 2 && ! isempty (w)))
      arg_error (fname, arg, "must be a non-empty real matrix");
    endif
    if (any (! isfinite (w(:))))
      arg_error (fname, arg, "contains NaN or Inf");
    endif
    [nin, nout] = size (w);
    if (tr)
      [nin, nout] = deal (nout, nin);
    endif
    if (l == 1)
      D = nin;
    elseif (nin != prev)
      arg_error (fname, arg, "is %d x %d but layer %d has %d outputs", rows (w), columns (w),
                 l - 1, prev);
    endif
    b = model.b{l};
    arg = sprintf ("model.b{%d}", l);
    if (! (isnumeric (b) && isreal (b) && (isvector (b) || isempty (b)) && numel (b) == nout))
      arg_error (fname, arg, "must have %d values (the columns of model.W{%d})", nout, l);
    endif
    if (any (! isfinite (b(:))))
      arg_error (fname, arg, "contains NaN or Inf");
    endif
    model.W{l} = full (double (w));
    model.b{l} = full (double (b(:)));
    prev = nout;
  endfor
  C = prev;
  acts = {"tanh", "sigmoid", "relu", "identity", "sigmoid_nnet"};
  model.activation = check_choice (model.activation, acts, fname, "model.activation");
  if (isfield (model, "output") && ! isempty (model.output))
    model.output = check_choice (model.output, {"identity", "sigmoid", "sigmoid_nnet"}, fname,
                                 "model.output");
  else
    model.output = "identity";
  endif
  if (isfield (model, "skip") && ! isempty (model.skip))
    s = model.skip;
    want = if_else (tr, [C, D], [D, C]);
    if (! (isnumeric (s) && isreal (s) && isequal (size (s), want)))
      arg_error (fname, "model.skip", "must be %d x %d", want(1), want(2));
    endif
    if (any (! isfinite (s(:))))
      arg_error (fname, "model.skip", "contains NaN or Inf");
    endif
    model.skip = full (double (s));
  else
    model.skip = [];
  endif
endfunction
