function check_transpose()
% check_transpose  `clip run transpose` against Octave's A.' and A' (per 2-D slice of N-D data,
% as permute(A, [2 1 3:ndims(A)])): single, double, real, complex, odd sizes around the 32-wide
% tiles, vectors, empties, N-D. Results must be identical (a transpose moves values only).
  clip = clip_tool('check_transpose');
  randn('state', 1719);
  shapes = {[1 1], [1 9], [9 1], [33 65], [65 33 2], [100 3 3], [0 3], [3 0 2]};
  classes = {@double, @single};
  n = 0;
  for s = 1:numel(shapes)
    for c = 1:2
      for cx = 0:1
        A = randn(shapes{s});
        if cx
          A = complex(A, randn(shapes{s}));
        end
        A = classes{c}(A);
        p = [2 1 3:ndims(A)];
        same(run_t(clip, A, ''), permute(A, p), sprintf('A.'' %s', mat2str(shapes{s})));
        same(run_t(clip, A, '--conjugate'), conj(permute(A, p)), sprintf('A'' %s', mat2str(shapes{s})));
        n = n + 2;
      end
    end
  end
  printf('check_transpose: %d cases checked\n', n);
  printf('check_transpose: ok\n');
end

function x = run_t(clip, A, opts)
  x = clip_run('check_transpose', clip, 'transpose', {A}, opts);
end

function same(x, r, what)
  if ~strcmp(class(x), class(r)) || iscomplex(x) ~= iscomplex(r) || ~isequal(size(x), size(r)) || ~isequal(x, r)
    error('check_transpose: %s: got %s %s, want %s %s', what, class(x), mat2str(size(x)), class(r), mat2str(size(r)));
  end
end
