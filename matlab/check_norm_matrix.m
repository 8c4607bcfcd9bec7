function check_norm_matrix()
% check_norm_matrix  `clip run norm` of matrices and along a dimension against Octave:
% norm(A, 1), norm(A, Inf), norm(A, 'fro'), norm(A) (the largest singular value) and
% vecnorm(A, p, dim), for single, double, real and complex, odd sizes, wide and tall, rank one,
% zero, NaN, Inf, empties, N-D, and the errors MATLAB gives (norm(A, 3) of a matrix).
% Tolerances: 1e-5 relative in single; in double 1e-12, and 1e-10 for the 2-norm.
  clip = clip_tool('check_norm_matrix');
  randn('state', 1717);
  n = 0;
  sizes = [2 2; 3 5; 17 4; 33 65; 120 80];
  classes = {@double, @single};
  ps = {'1', 'inf', 'fro', '2'};
  for s = 1:size(sizes, 1)
    for c = 1:2
      for cx = 0:1
        A = randn_array(classes{c}, sizes(s, :), cx);
        for k = 1:numel(ps)
          compare(run_norm(clip, A, ['--p ' ps{k}]), ref(A, ps{k}), ...
                  sprintf('%s cx=%d %dx%d p=%s', func2str(classes{c}), cx, sizes(s, 1), sizes(s, 2), ps{k}), ps{k});
          n = n + 1;
        end
      end
    end
  end
  A = randn_array(@double, [9 7], 1);
  compare(run_norm(clip, A, ''), norm(A), 'default p', '2');
  n = n + 1;

  % Rank one, a clustered top singular value, zeros, huge and tiny scales.
  u = (1:40)'; v = 2 - (0:29) / 7;
  cases = {u * v, single(u * v) * (1 + 1i), diag([3 + 1e-9, 3 * ones(1, 39)]), zeros(6, 5), ...
           single(zeros(3, 4)), randn(9, 7) * 1e300, randn(9, 7) * 1e-300, ...
           single(randn(9, 7) * 1e36), single(randn(9, 7) * 1e-36)};
  for k = 1:numel(cases)
    for q = 1:numel(ps)
      compare(run_norm(clip, cases{k}, ['--p ' ps{q}]), ref(cases{k}, ps{q}), sprintf('case %d p=%s', k, ps{q}), ps{q});
      n = n + 1;
    end
  end

  % NaN and Inf: as Octave's norm (the 2-norm of a matrix holding Inf is NaN: its svd).
  for c = 1:2
    A = classes{c}(randn(5, 6));
    B = A; B(2, 3) = Inf;
    C = B; C(4, 1) = NaN;
    for q = 1:numel(ps)
      compare(run_norm(clip, B, ['--p ' ps{q}]), ref(B, ps{q}), 'Inf', ps{q});
      compare(run_norm(clip, C, ['--p ' ps{q}]), ref(C, ps{q}), 'NaN', ps{q});
      n = n + 2;
    end
  end

  % Empty matrices: 0 (MATLAB's norm of an empty matrix), of the input's class.
  for q = 1:numel(ps)
    compare(run_norm(clip, zeros(0, 3), ['--p ' ps{q}]), 0, '0x3', ps{q});
    compare(run_norm(clip, single(zeros(4, 0)), ['--p ' ps{q}]), single(0), '4x0', ps{q});
    n = n + 2;
  end

  % N-D: 'fro' over every element (MATLAB; Octave's norm refuses N-D).
  X = complex(randn(3, 4, 5), randn(3, 4, 5));
  compare(run_norm(clip, X, '--p fro'), norm(X(:)), '3x4x5 fro', 'fro');
  n = n + 1;

  % vecnorm(A, p, dim) along every dimension of a 3-D array and past the last; per line the
  % reference is norm(line, p).
  for c = 1:2
    for cx = 0:1
      X = randn_array(classes{c}, [13 6 3], cx);
      X(2, 3, 1) = NaN;
      X(5, 1, 3) = -Inf;
      for dim = 1:4
        for p = [1 2 3 Inf](1 + mod(dim + cx + [0 2], 4))   % two orders per dim, each on some
          Y = run_norm(clip, X, sprintf('--p %g --dim %d', p, dim));
          R = vecref(X, p, dim);
          if ~isequal(size(Y), size(R))
            error('check_norm_matrix: vecnorm dim %d: size %s, want %s', dim, mat2str(size(Y)), mat2str(size(R)));
          end
          for e = 1:numel(R)
            compare(Y(e), R(e), sprintf('vecnorm %s cx=%d p=%g dim=%d element %d', func2str(classes{c}), cx, p, dim, e), '1');
          end
          n = n + 1;
        end
      end
    end
  end
  Y = run_norm(clip, zeros(0, 3), '--dim 1');
  if ~isequal(size(Y), [1 3]) || any(Y(:) ~= 0)
    error('check_norm_matrix: vecnorm(zeros(0, 3)) is not 1x3 zeros');
  end
  n = n + 1;

  % Errors.
  expect_error(clip, ones(3, 4), '--p 3', 'norm: p = 3 is not a matrix norm: MATLAB''s norm(A, p) of a matrix (here 3x4) takes 1, 2, Inf or ''fro''');
  expect_error(clip, ones(3, 4), '--p -inf', 'is not a matrix norm');
  expect_error(clip, ones(2, 3, 4), '--p 2', 'input is 2x3x4: MATLAB''s norm takes vectors and matrices');
  expect_error(clip, ones(3, 4), '--p fro --dim 1', 'p = fro takes no dim');
  expect_error(clip, ones(3, 4), '--p nuclear', 'neither a number nor fro');
  expect_error(clip, ones(3, 4), '--dim 9', 'dim');
  printf('check_norm_matrix: %d cases checked\n', n);
  printf('check_norm_matrix: ok\n');
end

% Octave's norm(A, 1) and norm(A, Inf) take max() of the sums, which skips NaN (a column of NaN
% beside one of Inf gives Inf); MATLAB's norm (LAPACK's xLANGE) and clip give NaN for NaN
% anywhere, as for vectors.
function r = ref(A, p)
  if any(isnan(A(:)))
    r = NaN;
  elseif strcmp(p, 'fro')
    r = norm(A, 'fro');
  elseif isempty(A)
    r = 0;
  else
    r = norm(A, str2double(p));
  end
  r = cast(r, class(A));
end

% vecnorm by norm() of each line (Octave's vecnorm squares without scaling).
function R = vecref(X, p, dim)
  sz = size(X);
  sz(end + 1:max(dim, 3)) = 1;
  perm = [dim, setdiff(1:numel(sz), dim)];
  Z = permute(X, perm);
  Z = reshape(Z, sz(dim), []);
  r = zeros(1, size(Z, 2), class(X));
  for k = 1:size(Z, 2)
    r(k) = norm(Z(:, k), p);
  end
  osz = sz;
  osz(dim) = 1;
  R = ipermute(reshape(r, [1, osz(perm(2:end))]), perm);
end

function x = run_norm(clip, A, opts)
  x = clip_run('check_norm_matrix', clip, 'norm', {A}, opts);
end

% A real 1x1 of r's class; NaN, Inf and 0 exactly, the rest within 1e-5 (single) or 1e-12
% (double) relative error, 1e-10 for the 2-norm in double (its svd).
function compare(x, r, what, p)
  if strcmp(p, '2') && ~isa(r, 'single')
    result_scalar('check_norm_matrix', x, r, what, 1e-10);
  else
    result_scalar('check_norm_matrix', x, r, what);
  end
end

function expect_error(clip, A, opts, msg)
  clip_fails('check_norm_matrix', clip, ['norm' save_inputs({A}) ' -o e.mat ' opts], msg);
end
