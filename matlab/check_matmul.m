function check_matmul()
% check_matmul  `clip run matmul` against Octave's A*B.
%
% Real and complex, single and double, mixed classes (single wins, complex if either), awkward
% shapes (1x1, vectors both ways, primes, tall-skinny, 1000+), scalar times matrix or N-D array,
% K = 0 and empty results, each kernel variant, and the CLI's errors; then transposed operands
% (--transa/--transb t|c: A.'*B, A'*B, A*B.', A'*B', ...) for the same classes, odd shapes, empties,
% every variant, mixed classes and scalars (check_transposed). Results must have Octave's
% class and size and a relative error norm(x(:)-ref(:))/norm(ref(:)) of at most 1e-5 (single)
% or 1e-12 (double).
  clip = clip_tool('check_matmul');
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

  % A real operand multiplies each part of a complex one alone, as Octave's A*B does here: no
  % Inf*0 = NaN from its zero imaginary part. Both sides; Inf in a real and an imaginary part.
  Z = single(complex(round(3 * randn(7, 5)), round(3 * randn(7, 5))));
  Z(1, 1) = complex(Inf, 0);
  Z(3, 2) = complex(1, Inf);
  R = single(round(3 * randn(5, 6)));
  R(1, 2) = 0;
  compare(run_mm(clip, Z, R, ''), Z * R, 'complex(Inf, 0) * real');
  compare(run_mm(clip, R.', Z.', ''), R.' * Z.', 'real * complex(Inf, 0)');
  compare(run_mm(clip, double(Z), R, '--variant tiled'), double(Z) * R, 'complex * real, tiled');
  n = n + 3;

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
  n = n + check_transposed(clip);
  printf('check_matmul: %d products checked\n', n);
  printf('check_matmul: ok\n');
end

% op(A)*op(B) with op(X) = X.' (t) or X' (c) read in place by clip: every pairing, single and
% double, real and complex, odd shapes with M, N or K of 1, K = 0 and empty results, each kernel
% variant, mixed classes (' of a real operand only transposes it), scalars (s*X.' has the shape
% of X.'), and the errors, which name op(A) and op(B).
function n = check_transposed(clip)
  n = 0;
  ops = {'n', 't', 'c'};
  pairs = [2 1; 3 1; 1 2; 1 3; 2 2; 3 3; 2 3; 3 2];
  shapes = [1 1 1; 3 17 1; 17 33 65; 65 3 33; 1 65 17; 33 1 3];
  classes = {@double, @single};
  for q = 1:rows(pairs)
    for s = 1:rows(shapes)
      m = shapes(s, 1); k = shapes(s, 2); nn = shapes(s, 3);
      for c = 1:2
        for cx = 0:1
          % The stored operands: op(A) is m x k, op(B) k x nn.
          A = op(make(classes{c}, m, k, cx), pairs(q, 1));
          B = op(make(classes{c}, k, nn, cx), pairs(q, 2));
          opts = sprintf('--transa %s --transb %s', ops{pairs(q, 1)}, ops{pairs(q, 2)});
          compare(run_mm(clip, A, B, opts), op(A, pairs(q, 1)) * op(B, pairs(q, 2)), ...
                  sprintf('%s %s cx=%d %dx%dx%d', opts, func2str(classes{c}), cx, m, k, nn));
          n = n + 1;
        end
      end
    end
  end
  % Each variant, edge tiles everywhere; the long names of the operations.
  A = make(@single, 45, 67, 1);
  B = make(@single, 70, 45, 1);
  for v = {'tiled', 'direct', 'small'}
    compare(run_mm(clip, A, B, ['--transa ctranspose --transb transpose --variant ' v{1}]), ...
            A' * B.', ['transposed variant ' v{1}]);
    compare(run_mm(clip, double(A), double(B), ['--transa t --transb c --variant ' v{1}]), ...
            double(A).' * double(B)', ['transposed double variant ' v{1}]);
    n = n + 2;
  end
  % Mixed classes: a real A' only transposes (Octave: A' is real, then the product promotes).
  kinds = {@(m, k) make(@double, m, k, 0), @(m, k) make(@single, m, k, 0), ...
           @(m, k) make(@double, m, k, 1), @(m, k) make(@single, m, k, 1)};
  for i = 1:4
    for j = 1:4
      if i ~= j
        A = kinds{i}(23, 19);
        B = kinds{j}(21, 23);
        compare(run_mm(clip, A, B, '--transa c --transb c'), A' * B', sprintf('mixed %d, %d conjugated', i, j));
        n = n + 1;
      end
    end
  end
  % K = 0, empty M or N, scalars.
  compare(run_mm(clip, zeros(0, 3), zeros(4, 0), '--transa t --transb t'), zeros(0, 3).' * zeros(4, 0).', 'K=0 t t');
  compare(run_mm(clip, single(complex(zeros(0, 3))), single(zeros(0, 4)), '--transa c'), ...
          single(complex(zeros(0, 3)))' * single(zeros(0, 4)), 'K=0 c');
  compare(run_mm(clip, zeros(5, 0), ones(5, 3), '--transa t'), zeros(5, 0).' * ones(5, 3), 'M=0 t');
  compare(run_mm(clip, ones(4, 5), zeros(0, 5), '--transb c'), ones(4, 5) * zeros(0, 5)', 'N=0 c');
  S = single(2 - 3i);
  X = make(@double, 3, 4, 1);
  compare(run_mm(clip, S, X, '--transa c --transb t'), S' * X.', 'conj(scalar) times X.''');
  compare(run_mm(clip, X, S, '--transa c'), X' * S, 'X'' times scalar');
  n = n + 6;
  expect_error(clip, ones(3, 4), ones(5, 2), '--transa t', 'matmul: inner dimensions differ: A.'' is 4x3 (A is 3x4), B is 5x2');
  expect_error(clip, ones(3, 4), ones(3, 2), '--transa t --transb c', 'B.'' is 2x3 (B is 3x2)');
  expect_error(clip, 2, ones(2, 2, 2), '--transb t', 'transpose is defined for 2-D operands only');
  expect_error(clip, ones(2, 2), ones(2, 2), '--transa h', 'n|t|c|none|transpose|ctranspose');
end

% op(X, o): X (o = 1), X.' (2) or X' (3). Applied to the stored operand it gives what clip reads;
% applied to a wanted op(A) it gives a stored A (each operation is its own inverse).
function Y = op(X, o)
  switch o
    case 1
      Y = X;
    case 2
      Y = X.';
    otherwise
      Y = X';
  end
end

function x = make(cls, m, k, cx)
  x = randn_array(cls, [m k], cx);
end

function C = run_mm(clip, A, B, opts)
  C = clip_run('check_matmul', clip, 'matmul', {A, B}, opts);
end

function compare(x, ref, what)
  result_close('check_matmul', x, ref, what);
end

function expect_error(clip, A, B, opts, msg)
  clip_fails('check_matmul', clip, ['matmul' save_inputs({A, B}) ' -o e.mat ' opts], msg);
end
