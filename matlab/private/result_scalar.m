function result_scalar(script, got, want, what, tol)
% result_scalar  A scalar result against want: class, size and complexity (result_kind), NaN, Inf
% and 0 exactly, any other value within a relative error of tol (default result_kind's: 1e-5
% single, 1e-12 double). Errors read "SCRIPT: WHAT: ...".
  t = result_kind(script, got, want, what);
  if nargin < 5
    tol = t;
  end
  if isnan(want) || isinf(want) || want == 0
    ok = isequaln(got, want);
  else
    ok = abs(double(got) - double(want)) / abs(double(want)) <= tol;
  end
  if ~ok
    error('%s: %s: got %.17g, want %.17g', script, what, double(got), double(want));
  end
end
