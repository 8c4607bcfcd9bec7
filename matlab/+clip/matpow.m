function C = matpow(A, p)
% clip.matpow  C = A^p (MATLAB's mpower) for a square A (clip:notSquare otherwise) and a
%   natural number p (clip:badPower otherwise); p = 0 gives the identity.
  C = clip.call('matpow', {A}, {'power', p});
end
