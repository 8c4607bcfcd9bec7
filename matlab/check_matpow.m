function check_matpow()
% check_matpow  `clip run matpow A.mat --power P` against Octave's A^P.
%
% Single and double, real and complex, sizes 1, 2, 3, 17, 31 and 64, powers 0, 1, 2, 3, 5, 13
% and 100 on matrices scaled to norm ~1.1 (the powers neither overflow nor vanish), 0x0, each
% kernel variant, and the CLI's errors (non-square, negative/fractional/infinite power). Results
% must have Octave's class and size and a relative error of at most 1e-5 (single) or 1e-12
% (double).
  clip = clip_tool('check_matpow');
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
  C = clip_run('check_matpow', clip, 'matpow', {A}, sprintf('--power %d %s', p, opts));
end

% Octave stores a complex array whose imaginary parts are all zero as real (on load too), so the
% identity of a complex A compares as real on both sides.
function compare(x, ref, what)
  result_close('check_matpow', x, ref, what);
end

function expect_error(clip, A, opts, msg)
  clip_fails('check_matpow', clip, ['matpow' save_inputs({A}) ' -o e.mat ' opts], msg);
end
