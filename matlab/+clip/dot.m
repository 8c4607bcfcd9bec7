function d = dot(a, b, dim)
% clip.dot  MATLAB's dot(a, b) = sum(conj(a).*b) of two vectors of equal length
%   (clip:lengthMismatch otherwise); the first argument is conjugated. dot(a, b, dim) where this
%   clip build has dot along a dimension (clip help dot).
  if nargin < 3
    d = clip.call('dot', {a, b});
  else
    % clip's dim 0 means the whole input; MATLAB's dot refuses it, as any dim below 1.
    if ~(isnumeric(dim) && isscalar(dim) && isreal(dim) && dim >= 1 && dim == fix(dim))
      error('clip:parameterRange', 'clip.dot: dim must be a positive integer, as MATLAB''s dot');
    end
    d = clip.call('dot', {a, b}, {'dim', dim});
  end
end
