function C = matmul(A, B)
% clip.matmul  C = A*B on clip's device (MATLAB's mtimes): real or complex, single or double
%   (single if either is single, complex if either is complex), any sizes with matching inner
%   dimensions (clip:innerDimensions otherwise). A or B a clip.Array: C is a clip.Array.
  C = clip.call('matmul', {A, B});
end
