function n = norm(A, p)
% clip.norm  MATLAB's norm(A, p). Vectors: p > 0, Inf or -Inf (default 2); complex elements by
%   modulus. Matrices: where this clip build has matrix norms (clip help norm), 1, 2, Inf and
%   'fro'. A bad order is clip:badNormOrder. The result is single for single input.
  if nargin < 2
    p = 2;
  end
  n = clip.call('norm', {A}, {'p', p});
end
