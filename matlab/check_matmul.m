function check_matmul()
% check_matmul  `clip run matmul` against Octave's A*B.
%
% Real and complex, single and double, mixed classes (single wins, complex if either), awkward
% shapes (1x1, vectors both ways, primes, tall-skinny, 1000+), scalar times matrix or N-D array,
% K = 0 and empty results, each kernel variant, and the CLI's errors. Results must have Octave's
% class and size and a relative error norm(x(:)-ref(:))/norm(ref(:)) of at most 1e-5 (single)
% or 1e-12 (double).
  clip = getenv('CLIP');
  if isempty(clip)
    error('check_matmul: set CLIP to the clip command-line tool');
  end
  rand('twister', 5489);
  randn('state', 17);
  % The BLAS behind Octave's A*B: scripts/install-deps.sh test makes it OpenBLAS, which Octave
  % users run, so any speed seen beside Octave is against that and not the reference BLAS.
  if exist('OCTAVE_VERSION', 'builtin')
    printf('check_matmul: Octave''s BLAS: %s\n', version('-blas'));
  end

  shapes = [1 1 1; 1 37 1; 37 1 29; 17 31 13; 257 3 257; 100 1000 3; 1003 5 7; 2 1031 3; ...
            1 64 33; 45 2 1];
  classes = {@double, @single};
  n = 0;
  for s = 1:rows(shapes)
    m = shapes(s, 1); k = shapes(s, 2); nn = shapes(s, 3);
    for c = 1:2
      for cx = 0:1
        A = make(classes{c}, m, k, cx);
        B = make(classes{c}, k, nn, cx);
        compare(run_mm(clip, A, B, ''), A * B, sprintf('%s cx=%d %dx%d*%dx%d', func2str(classes{c}), cx, m, k, k, nn));
        n = n + 1;
      end
    end
  end

  % Mixed classes: every pair of single/double, real/complex.
  kinds = {@(m, k) make(@double, m, k, 0), @(m, k) make(@single, m, k, 0), ...
           @(m, k) make(@double, m, k, 1), @(m, k) make(@single, m, k, 1)};
  for i = 1:4
    for j = 1:4
      if i ~= j
        A = kinds{i}(19, 23);
        B = kinds{j}(23, 21);
        compare(run_mm(clip, A, B, ''), A * B, sprintf('mixed %d*%d', i, j));
        n = n + 1;
      end
    end
  end

  % A 1x1 operand is scalar multiplication, also with an N-D array.
  S = make(@single, 1, 1, 1);
  X = make(@double, 3, 4, 0);
  compare(run_mm(clip, S, X, ''), S * X, 'scalar*matrix');
  compare(run_mm(clip, X, S, ''), X * S, 'matrix*scalar');
  Y = randn(2, 3, 4);
  compare(run_mm(clip, 2.5, Y, ''), 2.5 * Y, 'scalar*N-D');
  compare(run_mm(clip, 3, zeros(0, 3), ''), 3 * zeros(0, 3), 'scalar*empty');

  % K = 0 gives zeros; an empty M or N gives an empty result.
  compare(run_mm(clip, zeros(3, 0), zeros(0, 4), ''), zeros(3, 0) * zeros(0, 4), 'K=0');
  compare(run_mm(clip, single(zeros(0, 5)), single(ones(5, 3)), ''), single(zeros(0, 5)) * single(ones(5, 3)), 'M=0');
  compare(run_mm(clip, ones(4, 5), complex(zeros(5, 0)), ''), ones(4, 5) * complex(zeros(5, 0)), 'N=0');
  n = n + 7;

  % Each kernel variant, on a shape with edge tiles everywhere.
  A = make(@single, 67, 45, 1);
  B = make(@single, 45, 70, 1);
  for v = {'tiled', 'direct', 'small'}
    compare(run_mm(clip, A, B, ['--variant ' v{1}]), A * B, ['variant ' v{1}]);
    n = n + 1;
  end
  % Tiled sets the GPU tuner picks from: K split into chunks summed at the end (real and
  % complex, single and double), one local buffer, B vectors along K (K a multiple of 4).
  sets = {'--mwg 32 --nwg 16 --kwg 8 --mdimc 4 --ndimc 4 --ksplit 3', ...
          '--mwg 16 --nwg 32 --kwg 4 --mdimc 4 --ndimc 4 --vwn 4 --stages 1'};
  for s = 1:numel(sets)
    for cls = {@single, @double}
      for cx = 0:1
        A = make(cls{1}, 40, 64, cx);
        B = make(cls{1}, 64, 33, cx);
        compare(run_mm(clip, A, B, ['--variant tiled ' sets{s}]), A * B, ['tiled ' sets{s}]);
        n = n + 1;
      end
    end
  end

  % Errors: a message on stderr and a non-zero exit.
  expect_error(clip, ones(3, 4), ones(5, 2), '', 'matmul: inner dimensions differ: A is 3x4, B is 5x2');
  expect_error(clip, ones(2, 2, 2), ones(2, 2), '', 'A is 2x2x2, B is 2x2');
  expect_error(clip, ones(2, 2), ones(2, 2), '--variant fastest', 'fastest');
  expect_error(clip, ones(2, 2), ones(2, 2), '--variant direct --vw 3', 'vw 3');
  expect_error(clip, ones(2, 2), ones(2, 2), '--variant direct --ksplit 2', 'tiled variant only');
  expect_error(clip, ones(2, 2), ones(2, 2), '--variant tiled --stages 4', 'stages');
  printf('check_matmul: %d products checked\n', n);
  printf('check_matmul: ok\n');
end

function x = make(cls, m, k, cx)
  x = randn(m, k);
  if cx
    x = complex(x, randn(m, k));
  end
  x = cls(x);
end

function C = run_mm(clip, A, B, opts)
  save('-v7', 'a.mat', 'A');
  save('-v7', 'b.mat', 'B');
  if exist('c.mat', 'file')
    delete('c.mat');
  end
  [st, out] = system([clip ' run matmul a.mat b.mat -o c.mat ' opts ' 2>err.txt']);
  if st ~= 0
    error('check_matmul: clip failed (%d): %s %s', st, out, fileread('err.txt'));
  end
  r = load('c.mat');
  C = r.result;
end

function compare(x, ref, what)
  if ~strcmp(class(x), class(ref)) || iscomplex(x) ~= iscomplex(ref)
    error('check_matmul: %s: class %s (complex %d), want %s (complex %d)', what, class(x), ...
          iscomplex(x), class(ref), iscomplex(ref));
  end
  if ~isequal(size(x), size(ref))
    error('check_matmul: %s: size %s, want %s', what, mat2str(size(x)), mat2str(size(ref)));
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
    error('check_matmul: %s: relative error %g > %g', what, err, tol);
  end
end

function expect_error(clip, A, B, opts, msg)
  save('-v7', 'a.mat', 'A');
  save('-v7', 'b.mat', 'B');
  [st, out] = system([clip ' run matmul a.mat b.mat -o e.mat ' opts ' 2>err.txt']);
  err = fileread('err.txt');
  if st == 0
    error('check_matmul: expected failure for "%s", got exit 0', msg);
  end
  if isempty(strfind(err, msg))
    error('check_matmul: message "%s" lacks "%s"', strtrim(err), msg);
  end
end
