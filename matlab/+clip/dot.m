function d = dot(a, b, dim)
% clip.dot  MATLAB's dot(a, b) = sum(conj(a).*b) of two vectors of equal length
%   (clip:lengthMismatch otherwise); the first argument is conjugated. dot(a, b, dim) where this
%   clip build has dot along a dimension (clip help dot).
  if nargin < 3
    d = clip.call('dot', {a, b});
  else
    d = clip.call('dot', {a, b}, {'dim', dim});
  end
end
