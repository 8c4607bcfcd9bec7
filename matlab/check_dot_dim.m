function check_dot_dim()
% check_dot_dim  `clip run dot` of arrays against Octave: dot(A, B) of matrices (column-wise:
% the first dimension whose size is not 1) and dot(A, B, dim) along every dimension of N-D
% arrays and past the last, for single and double, real and complex and their mixtures, odd
% sizes, NaN and Inf, empties, and the size errors. The reference is MATLAB's definition
% sum(conj(A) .* B, dim) (Octave's dot promotes a real operand to complex first, so Inf there
% would meet a made-up 0 imaginary part; MATLAB's does not). Errors are bounded relative to
% sum(abs(A) .* abs(B), dim): 1e-5 in single, 1e-12 in double.
  clip = clip_tool('check_dot_dim');
  randn('state', 1718);
  kinds = {{@double, 0}, {@single, 0}, {@double, 1}, {@single, 1}};
  n = 0;
  % Matrices, column-wise by default, and along rows.
  for i = 1:4
    for j = 1:4
      A = make(kinds{i}, [17 5]);
      B = make(kinds{j}, [17 5]);
      compare(run_dot(clip, A, B, ''), A, B, 1, sprintf('kinds %d.%d', i, j));
      compare(run_dot(clip, A, B, '--dim 2'), A, B, 2, sprintf('kinds %d.%d dim 2', i, j));
      n = n + 2;
    end
  end
  % N-D arrays along each dimension and past the last, NaN and Inf inside.
  for k = 1:4
    A = make(kinds{k}, [6 1 5 3]);
    B = make(kinds{5 - k}, [6 1 5 3]);
    A(2, 1, 3, 2) = NaN;
    B(5, 1, 1, 3) = Inf;
    for dim = 0:5
      if dim == 0
        compare(run_dot(clip, A, B, ''), A, B, 1, 'N-D default');
      else
        compare(run_dot(clip, A, B, sprintf('--dim %d', dim)), A, B, dim, sprintf('N-D dim %d', dim));
      end
      n = n + 1;
    end
  end
  % A leading singleton dimension: the default is the first non-singleton one.
  A = make(kinds{3}, [1 4 3]);
  B = make(kinds{4}, [1 4 3]);
  compare(run_dot(clip, A, B, ''), A, B, 2, '1x4x3 default');
  % dot(A, A) of complex columns: real (imaginary parts exactly 0).
  A = make(kinds{4}, [9 4]);
  x = run_dot(clip, A, A, '');
  if any(imag(x) ~= 0)
    error('check_dot_dim: dot(A, A) has a non-zero imaginary part');
  end
  n = n + 2;
  % Empties: dot(zeros(0, 3), zeros(0, 3)) is 1x3 zeros; 3x0 gives 1x0.
  x = run_dot(clip, zeros(0, 3), single(zeros(0, 3)), '');
  if ~isequal(size(x), [1 3]) || any(x ~= 0) || ~isa(x, 'single')
    error('check_dot_dim: dot(zeros(0, 3), zeros(0, 3)) is %s %s', class(x), mat2str(size(x)));
  end
  x = run_dot(clip, zeros(3, 0), zeros(3, 0), '');
  if ~isequal(size(x), [1 0])
    error('check_dot_dim: dot(zeros(3, 0), zeros(3, 0)) is %s', mat2str(size(x)));
  end
  n = n + 2;
  expect_error(clip, ones(3, 4), ones(4, 3), '', 'dot: A is 3x4 and B is 4x3: MATLAB''s dot of arrays needs equal sizes');
  expect_error(clip, 1:5, (1:5)', '--dim 1', 'A is 1x5 and B is 5x1');
  expect_error(clip, ones(3), ones(3), '--dim 9', 'dim');
  printf('check_dot_dim: %d cases checked\n', n);
  printf('check_dot_dim: ok\n');
end

function A = make(kind, sz)
  A = randn_array(kind{1}, sz, kind{2});
end

function x = run_dot(clip, A, B, opts)
  x = clip_run('check_dot_dim', clip, 'dot', {A, B}, opts);
end

function compare(x, A, B, dim, what)
  ref = sum(conj(A) .* B, dim);
  % Per part: a NaN or Inf in one part of an element (NaN + 0i) spares the other part.
  ra = abs(double(real(A))); ia = abs(double(imag(A)));
  rb = abs(double(real(B))); ib = abs(double(imag(B)));
  scales = {sum(fin(ra .* rb) + fin(ia .* ib), dim), sum(fin(ra .* ib) + fin(ia .* rb), dim)};
  tol = result_kind('check_dot_dim', x, ref, what);
  parts = {@real, @imag};
  for q = 1:2
    g = double(parts{q}(x(:)));
    r = double(parts{q}(ref(:)));
    bad = isnan(r) ~= isnan(g) | (isinf(r) & g ~= r) | ...
          (isfinite(r) & ~(abs(g - r) <= tol * scales{q}(:)));
    if any(bad)
      k = find(bad, 1);
      error('check_dot_dim: %s: element %d part %d: got %.17g, want %.17g', what, k, q, g(k), r(k));
    end
  end
end

function y = fin(x)
  y = x;
  y(~isfinite(y)) = 0;
end

function expect_error(clip, A, B, opts, msg)
  clip_fails('check_dot_dim', clip, ['dot' save_inputs({A, B}) ' -o e.mat ' opts], msg);
end
