function check_norm()
% check_norm  `clip run norm` against Octave's norm(v, p).
%
% Real and complex, single and double, rows and columns of awkward lengths (1, 2, 3, 17, 31, 257,
% 1000+), orders 1, 2, 3, 2.5, Inf, -Inf and a few more; values that overflow or underflow when
% squared; subnormals; maxima growing over the whole exponent range (one pass, each work-group
% layout, and two passes); NaN and Inf; empty and N-D vectors; each kernel variant; the CLI's
% errors. Matrix norms and vecnorm: check_norm_matrix.m.
% Results must be 1x1 of the input's precision (real) with a relative error of at most 1e-5
% (single) or 1e-12 (double).
  clip = clip_tool('check_norm');
  rand('twister', 4242);
  randn('state', 4242);

  lengths = [1 2 3 17 31 257 1003];
  orders = [1 2 3 2.5 Inf -Inf];
  classes = {@double, @single};
  n = 0;
  for li = 1:numel(lengths)
    len = lengths(li);
    for c = 1:2
      for cx = 0:1
        v = make(classes{c}, len, cx, mod(li + c + cx, 2));
        for p = orders
          compare(run_norm(clip, v, p, ''), norm(v, p), ...
                  sprintf('%s cx=%d n=%d p=%g', func2str(classes{c}), cx, len, p));
          n = n + 1;
        end
      end
    end
  end

  % More orders: below 1 (MATLAB takes any p > 0), close to 1, integers (multiplied out on the
  % device), large ones.
  v = make(@single, 1003, 1, 0);
  w = make(@double, 517, 1, 1);
  for p = [0.25 0.5 0.9 1.5 4 7 64 100.5]
    compare(run_norm(clip, v, p, ''), norm(v, p), sprintf('single p=%g', p));
    compare(run_norm(clip, w, p, ''), norm(w, p), sprintf('double complex p=%g', p));
    n = n + 2;
  end

  % Squares (and powers) that overflow or underflow: MATLAB's norm scales, and so must clip.
  cases = {single([1e30 1e30]), single([1e-30 1e-30]), single([3e-39 -1e-45 2e-40]), ...
           [1e300 -1e300], [1e-300 1e-300], [1e-310 4e-320], ...
           single(complex([1e30 2e-30], [-1e30 0])), complex([1e300 1], [1e-300 1e300]), ...
           single([1e35 1 1e-35 1e14 1e-19]), [1e300 1 1e-300 1e145 1e-154]};
  for k = 1:numel(cases)
    for p = orders
      compare(run_norm(clip, cases{k}, p, ''), norm(cases{k}, p), sprintf('range case %d p=%g', k, p));
      n = n + 1;
    end
  end

  % NaN anywhere is NaN; Inf is Inf (min |x| excepted); all zeros are 0.
  for pi = 1:numel(orders)
    p = orders(pi);
    for c = 1 + mod(pi, 2)
      x = classes{c}(randn(1, 40));
      y = x; y(17) = NaN;
      compare(run_norm(clip, y, p, ''), norm(y, p), sprintf('NaN p=%g', p));
      y = x; y(40) = Inf; y(3) = NaN;
      compare(run_norm(clip, y, p, ''), norm(y, p), sprintf('NaN+Inf p=%g', p));
      y = x; y(40) = -Inf;
      compare(run_norm(clip, y, p, ''), norm(y, p), sprintf('Inf p=%g', p));
      compare(run_norm(clip, 0 * x, p, ''), norm(0 * x, p), sprintf('zeros p=%g', p));
      n = n + 4;
    end
  end

  % Empty inputs give 0 of the input's precision (Octave's norm(single([])) is a double 0;
  % MATLAB's is single, as here).
  for p = orders
    compare(run_norm(clip, single([]), p, ''), single(0), sprintf('[] p=%g', p));
    n = n + 1;
  end
  compare(run_norm(clip, zeros(1, 0), 2.5, ''), 0, '1x0');
  compare(run_norm(clip, complex(zeros(0, 1)), 1, ''), 0, '0x1 complex');
  n = n + 2;

  % N-D arrays with one non-singleton dimension are vectors (Octave's norm refuses N-D input).
  x = make(@double, 29, 1, 1);
  compare(run_norm(clip, reshape(x, 1, 1, 29), 3, ''), norm(x, 3), '1x1x29');
  n = n + 1;

  % Each kernel variant, real and complex, each path.
  x = make(@single, 1003, 1, 1);
  y = make(@double, 1, 1003, 0);
  for vv = {'scalar', 'vector', 'vector16'}
    for p = [2 2.5 -Inf]
      compare(run_norm(clip, x, p, ['--variant ' vv{1}]), norm(x, p), ['variant ' vv{1}]);
      compare(run_norm(clip, y, p, ['--variant ' vv{1}]), norm(y, p), ['variant ' vv{1}]);
      n = n + 2;
    end
  end

  % The one-pass rescaling against Octave: maxima that grow at every element over the whole
  % exponent range, or in bursts, through the GPU layout (--local 256, strided and unrolled) and
  % the CPU one, and the two-pass path for comparison; NaN after the maximum has grown.
  ramps = {single(10 .^ linspace(-40, 37, 2001)), 10 .^ linspace(-310, 300, 2001), ...
           single(complex(10 .^ linspace(-30, 30, 1001), -10 .^ linspace(30, -30, 1001))), ...
           mod(1:3001, 97) .* 10 .^ linspace(-200, 200, 3001)};
  opts = {'', '--local 256 --unroll 2', '--local 64 --unroll 3 --groups 1 --sum plain', ...
          '--method twopass'};
  for k = 1:numel(ramps)
    for o = 1:numel(opts)
      for p = [3 2.5 2.7]
        compare(run_norm(clip, ramps{k}, p, opts{o}), norm(ramps{k}, p), ...
                sprintf('ramp %d %s p=%g', k, opts{o}, p));
        n = n + 1;
      end
    end
  end
  y = ramps{2}; y(1990) = NaN;
  compare(run_norm(clip, y, 3, '--local 256'), norm(y, 3), 'ramp NaN');
  y(1980) = -Inf;
  compare(run_norm(clip, y, 2.5, ''), norm(y, 2.5), 'ramp NaN+Inf');
  n = n + 2;

  % Errors: a message on stderr and a non-zero exit.
  expect_error(clip, [1 2 3], '--p 0', 'norm: p must be > 0, Inf or -Inf, got 0');
  expect_error(clip, [1 2 3], '--p nan', 'p must be > 0');
  expect_error(clip, ones(3, 4), '--p 3', 'norm: p = 3 is not a matrix norm');
  expect_error(clip, ones(1, 2, 3), '--p 1', 'input is 1x2x3: MATLAB''s norm takes vectors and matrices');
  expect_error(clip, [1 2 3], '--variant widest', 'widest');
  expect_error(clip, [1 2 3], '--method threepass', 'threepass');
  expect_error(clip, [1 2 3], '--local 24', 'norm: local must be a power of two');
  expect_error(clip, [1 2 3], '--unroll 9', 'unroll');
  printf('check_norm: %d norms checked\n', n);
  printf('check_norm: ok\n');
end

function v = make(cls, len, cx, row)
  v = randn_array(cls, [len 1], cx);
  if row
    v = v.';
  end
end

function x = run_norm(clip, V, p, opts)
  x = clip_run('check_norm', clip, 'norm', {V}, sprintf('--p %.17g %s', p, opts));
end

% A real 1x1 of ref's class; NaN, Inf and 0 exactly, the rest within 1e-5 (single) or 1e-12
% (double) relative error.
function compare(x, ref, what)
  result_scalar('check_norm', x, ref, what);
end

function expect_error(clip, V, opts, msg)
  clip_fails('check_norm', clip, ['norm' save_inputs({V}) ' -o e.mat ' opts], msg);
end
