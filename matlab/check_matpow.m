function check_matpow()
% check_matpow  `clip run matpow A.mat --power P` against Octave's A^P.
%
% Single and double, real and complex, sizes 1, 2, 3, 17, 31 and 64, powers 0, 1, 2, 3, 5, 13
% and 100 on matrices scaled to norm ~1.1 (the powers neither overflow nor vanish), 0x0, each
% kernel variant, and the CLI's errors (non-square, negative/fractional/infinite power). Results
% must have Octave's class and size and a relative error of at most 1e-5 (single) or 1e-12
% (double).
  clip = getenv('CLIP');
  if isempty(clip)
    error('check_matpow: set CLIP to the clip command-line tool');
  end
  rand('twister', 1234);
  randn('state', 99);

  sizes = [1 2 3 17 31 64];
  powers = [0 1 2 3 5 13 100];
  n = 0;
  for s = sizes
    for cls = {@double, @single}
      for cx = 0:1
        A = randn(s);
        if cx
          A = complex(A, randn(s));
        end
        A = cls{1}(1.1 * A / norm(A));
        for p = powers
          compare(run_pow(clip, A, p, ''), A ^ p, sprintf('%s cx=%d %dx%d ^ %d', class(A), cx, s, s, p));
          n = n + 1;
        end
      end
    end
  end

  % Each variant on a size with edge tiles; 0x0 stays 0x0.
  A = randn(37);
  A = single(1.1 * A / norm(A));
  for v = {'tiled', 'direct', 'small'}
    compare(run_pow(clip, A, 7, ['--variant ' v{1}]), A ^ 7, ['variant ' v{1}]);
    n = n + 1;
  end
  % Split K: every product of the power sums its chunks through the workspace.
  compare(run_pow(clip, A, 7, '--variant tiled --mwg 32 --nwg 32 --kwg 8 --mdimc 8 --ndimc 8 --ksplit 2'), ...
          A ^ 7, 'tiled split K');
  n = n + 1;
  compare(run_pow(clip, zeros(0, 0), 3, ''), zeros(0, 0) ^ 3, '0x0 ^ 3');
  compare(run_pow(clip, zeros(0, 0), 0, ''), zeros(0, 0), '0x0 ^ 0');

  expect_error(clip, ones(3, 4), '--power 2', 'matpow: A must be square, it is 3x4');
  expect_error(clip, eye(3), '--power -1', 'power must be a natural number');
  expect_error(clip, eye(3), '--power 2.5', '2.5');
  expect_error(clip, eye(3), '--power inf', 'inf');
  expect_error(clip, eye(3), '--power nan', 'nan');
  printf('check_matpow: %d powers checked\n', n);
  printf('check_matpow: ok\n');
end

function C = run_pow(clip, A, p, opts)
  save('-v7', 'a.mat', 'A');
  if exist('c.mat', 'file')
    delete('c.mat');
  end
  [st, out] = system(sprintf('%s run matpow a.mat --power %d -o c.mat %s 2>err.txt', clip, p, opts));
  if st ~= 0
    error('check_matpow: clip failed (%d): %s %s', st, out, fileread('err.txt'));
  end
  r = load('c.mat');
  C = r.result;
end

function compare(x, ref, what)
  ref = full(ref); % A^0 is a diagonal-matrix object in Octave
  % Octave stores a complex array whose imaginary parts are all zero as real (on load too),
  % so the identity of a complex A compares as real on both sides.
  if ~strcmp(class(x), class(ref)) || iscomplex(x) ~= iscomplex(ref)
    error('check_matpow: %s: class %s (complex %d), want %s (complex %d)', what, class(x), ...
          iscomplex(x), class(ref), iscomplex(ref));
  end
  if ~isequal(size(x), size(ref))
    error('check_matpow: %s: size %s, want %s', what, mat2str(size(x)), mat2str(size(ref)));
  end
  if isa(ref, 'single')
    tol = 1e-5;
  else
    tol = 1e-12;
  end
  nr = norm(double(ref(:)));
  err = norm(double(x(:)) - double(ref(:)));
  if nr > 0
    err = err / nr;
  end
  if ~(err <= tol)
    error('check_matpow: %s: relative error %g > %g', what, err, tol);
  end
end

function expect_error(clip, A, opts, msg)
  save('-v7', 'a.mat', 'A');
  [st, out] = system([clip ' run matpow a.mat -o e.mat ' opts ' 2>err.txt']);
  err = fileread('err.txt');
  if st == 0
    error('check_matpow: expected failure for "%s", got exit 0', msg);
  end
  if isempty(strfind(err, msg))
    error('check_matpow: message "%s" lacks "%s"', strtrim(err), msg);
  end
end
