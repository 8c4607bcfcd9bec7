function check_dot()
% check_dot  `clip run dot` against Octave's dot(a, b).
%
% Real and complex, single and double, every mixture of classes (single wins, complex if
% either), rows against columns, awkward lengths (1, 2, 3, 17, 31, 257, 1000+), the conjugation
% of the first argument, NaN and Inf, empty and N-D vectors, each kernel variant, and the CLI's
% errors (dot of arrays and along a dimension: check_dot_dim.m). Results must be 1x1 of
% Octave's class. A dot product may cancel, so its rounding errors are bounded relative to
% sum(abs(a).*abs(b)), not to the result: that relative error must be at most 1e-5 (single) or
% 1e-12 (double).
  clip = clip_tool('check_dot');
  rand('twister', 777);
  randn('state', 777);

  lengths = [1 2 3 17 31 257 1003];
  kinds = {{@double, 0}, {@single, 0}, {@double, 1}, {@single, 1}};
  n = 0;
  for li = 1:numel(lengths)
    len = lengths(li);
    for i = 1:4
      for j = 1:4
        % Every mixture at a few lengths; same-kind pairs at all of them.
        if i ~= j && ~any(len == [3 257])
          continue;
        end
        a = make(kinds{i}, len, mod(li + i, 2));
        b = make(kinds{j}, len, mod(li + j + 1, 2));
        compare(run_dot(clip, a, b, ''), dot_ref(a, b), a, b, sprintf('kinds %d.%d n=%d', i, j, len));
        n = n + 1;
      end
    end
  end

  % MATLAB conjugates the first argument: dot(a, b) = conj(dot(b, a)) = sum(conj(a).*b), not
  % sum(a.*b). A row and a column of the same length are fine.
  for cls = {@single, @double}
    a = make({cls{1}, 1}, 101, 1);
    b = make({cls{1}, 1}, 101, 0);
    x = run_dot(clip, a, b, '');
    compare(x, dot(a, b), a, b, 'conj(a).*b');
    compare(run_dot(clip, b, a, ''), conj(dot(a, b)), a, b, 'conj(b).*a');
    unconj = sum(a(:) .* b(:));
    if abs(double(x) - double(unconj)) < 1e-3 * abs(double(unconj))
      error('check_dot: %s result equals sum(a.*b): the first argument was not conjugated', func2str(cls{1}));
    end
    compare(run_dot(clip, a, a, ''), dot(a, a), a, a, 'dot(a, a)');
    n = n + 3;
  end

  % NaN anywhere is NaN, Inf * 0 is NaN, Inf is Inf. The reference is MATLAB's definition
  % sum(conj(a).*b): Octave's dot promotes a real operand to complex first, so NaN or Inf in
  % the other one also spoils the imaginary part (NaN * 0), where MATLAB's does not.
  for k = 1:4
    a = make(kinds{k}, 50, 0);
    b = kinds{k}{1}(0.5 + rand(1, 50));
    y = a; y(50) = NaN;
    compare(run_dot(clip, y, b, ''), mref(y, b), y, b, 'NaN');
    y = real(a); y(7) = Inf;
    compare(run_dot(clip, y, b, ''), mref(y, b), y, b, 'Inf');
    z = b; z(7) = 0;
    compare(run_dot(clip, y, z, ''), mref(y, z), y, z, 'Inf*0');
    w = make(kinds{k}, 50, 1); w(3) = Inf;
    compare(run_dot(clip, w, b, ''), mref(w, b), w, b, 'Inf in a');
    compare(run_dot(clip, b, w, ''), mref(b, w), b, w, 'Inf in b');
    n = n + 5;
  end

  % Empty vectors give 0 (MATLAB's dot([], []); Octave's is 1x0), of the promoted class.
  compare(run_dot(clip, [], [], ''), 0, [], [], '[].[]');
  compare(run_dot(clip, single(zeros(1, 0)), complex(zeros(0, 1)), ''), single(0), [], [], '1x0.0x1');
  n = n + 2;

  % N-D arrays with one non-singleton dimension are vectors.
  a = make({@double, 1}, 23, 0);
  b = make({@double, 0}, 23, 1);
  compare(run_dot(clip, reshape(a, 1, 1, 23), b, ''), dot(a, b.'), a, b, '1x1x23 . 1x23');
  n = n + 1;

  % Each kernel variant.
  a = make({@single, 1}, 1003, 0);
  b = make({@single, 1}, 1003, 1);
  c = make({@double, 0}, 1003, 0);
  for vv = {'scalar', 'vector', 'vector16'}
    compare(run_dot(clip, a, b, ['--variant ' vv{1}]), dot(a, b.'), a, b, ['variant ' vv{1}]);
    compare(run_dot(clip, c, c, ['--variant ' vv{1}]), dot(c, c), c, c, ['variant ' vv{1}]);
    n = n + 2;
  end
  % The GPU work-group layout (strided, unrolled) and other tunings give the same products.
  for oo = {'--local 256 --unroll 2', '--local 64 --unroll 3 --groups 1', '--unroll 8 --sum plain'}
    compare(run_dot(clip, a, b, oo{1}), dot(a, b.'), a, b, oo{1});
    compare(run_dot(clip, c, a, oo{1}), dot(c, a), c, a, oo{1});
    n = n + 2;
  end

  % Errors: a message on stderr and a non-zero exit.
  expect_error(clip, [1 2 3], [1 2 3 4], '', 'dot: vectors differ in length: a has 3 elements, b has 4');
  expect_error(clip, [], [1 2], '', 'a has 0 elements, b has 2');
  expect_error(clip, ones(3, 4), ones(4, 3), '', 'dot: A is 3x4 and B is 4x3: MATLAB''s dot of arrays needs equal sizes');
  expect_error(clip, 1:4, ones(2, 2), '', 'dot: A is 1x4 and B is 2x2');
  expect_error(clip, 1:4, 1:4, '--variant huge', 'huge');
  expect_error(clip, 1:4, 1:4, '--local 6', 'dot: local must be a power of two');
  printf('check_dot: %d products checked\n', n);
  printf('check_dot: ok\n');
end

function v = make(kind, len, row)
  v = randn_array(kind{1}, [len 1], kind{2});
  if row
    v = v.';
  end
end

% Octave's dot of the two vectors as columns (it wants equal orientation; MATLAB's does not).
function r = dot_ref(a, b)
  r = dot(a(:), b(:));
end

% MATLAB's definition, for the vectors as columns.
function r = mref(a, b)
  r = sum(conj(a(:)) .* b(:));
end

function x = run_dot(clip, A, B, opts)
  x = clip_run('check_dot', clip, 'dot', {A, B}, opts);
end

function compare(x, ref, a, b, what)
  % A complex result with a zero imaginary part loads as real, so only a non-zero one must be
  % complex; ref is 1x1.
  tol = result_kind('check_dot', x, ref, what, 'nonzero');
  % Each part: NaN and Inf exactly, the rest within the bound over the finite products.
  prods = abs(double(a(:))) .* abs(double(b(:)));
  scale = sum(prods(isfinite(prods)));
  ok = true;
  for part = {@real, @imag}
    g = double(part{1}(x));
    w = double(part{1}(ref));
    if ~isfinite(w)
      ok = ok && isequaln(g, w);
    elseif scale > 0
      ok = ok && abs(g - w) / scale <= tol;
    else
      ok = ok && g == w;
    end
  end
  if ~ok
    error('check_dot: %s: got %s, want %s', what, num2str(double(x), 17), num2str(double(ref), 17));
  end
end

function expect_error(clip, A, B, opts, msg)
  clip_fails('check_dot', clip, ['dot' save_inputs({A, B}) ' -o e.mat ' opts], msg);
end
