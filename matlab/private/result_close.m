function result_close(script, got, want, what, varargin)
% result_close  got against want for a matlab/ script: class, size and complexity (result_kind),
% the same NaN and Inf in the same places, then norm(got - want) over the finite elements relative
% to their norm in want, at most result_kind's tol (1e-5 single, 1e-12 double); a zero norm makes
% the error absolute. Errors read "SCRIPT: WHAT: ...". Options (name, value):
%   'complexity'  'exact' (default) or 'nonzero', as result_kind's
%   'scale'       the denominator instead of the norm of want (the FFT path: norm(A)*norm(K))
  complexity = 'exact';
  scale = [];
  for k = 1:2:numel(varargin)
    switch varargin{k}
      case 'complexity'
        complexity = varargin{k + 1};
      case 'scale'
        scale = varargin{k + 1};
      otherwise
        error('result_close: unknown option %s', varargin{k});
    end
  end
  want = full(want); % A^0 is a diagonal-matrix object in Octave
  tol = result_kind(script, got, want, what, complexity);
  fin = isfinite(want);
  if ~isequal(fin, isfinite(got)) || ~isequal(isnan(want), isnan(got)) || ...
     any(got(isinf(want)) ~= want(isinf(want)))
    error('%s: %s: non-finite values differ', script, what);
  end
  w = double(want(fin));
  g = double(got(fin));
  den = norm(w(:));
  if ~isempty(scale)
    den = scale;
  end
  if den == 0
    den = 1;
  end
  err = norm(g(:) - w(:)) / den;
  if ~(err <= tol)
    error('%s: %s: relative error %g > %g', script, what, err, tol);
  end
end
