function check_conv2()
% check_conv2  `clip run conv2` against Octave's conv2 and filter2, and against a reference for
% imfilter's pad modes written here by explicit padding with index arithmetic (the image package
% is not assumed).
%
% Every direct kernel variant in turn (local, global, block): shapes full/same/valid with odd,
% even and non-square kernels, kernels larger than A, row and column vectors, single and double,
% real and complex, mixed classes, 3-D A (each slice), every pad mode with and without
% correlation, normalize (including a zero-sum kernel). Then the FFT path (when clip has clFFT;
% error relative to norm(A)*norm(K)), the separable path (rank-one kernels, --separable on),
% Inf in K next to the zero padding (Inf as Octave, not NaN) for every path, PNG and TIFF input,
% and the CLI's errors; then conv2(u, v, A) (clip run conv2sep, check_conv2sep), and the
% high-dynamic-range images of check_hdr against the per-output bound. Elsewhere relative error at
% most 1e-5 (single) or 1e-12 (double); class and size must match.
  clip = clip_tool('check_conv2');
  rand('twister', 2718);
  randn('state', 2718);
  n = 0;
  variants = {'local', 'global', 'block'};
  for v = 1:numel(variants)
    n = n + check_direct(clip, ['--variant ' variants{v}]);
  end
  n = n + check_fft(clip);
  n = n + check_separable(clip);
  n = n + check_nonfinite(clip);
  n = n + check_conv2sep(clip);
  n = n + check_hdr(clip);

  % Image files: clip loads PNG and TIFF samples as single values 0..255.
  img = uint8(floor(rand(37, 53, 3) * 256));
  K = randn_array(@double, [5 5], 0);
  save('-v7', 'k.mat', 'K');
  imwrite(img, 'img.png');
  imwrite(img(:, :, 2), 'img.tif');
  files = {'img.png', 'img.tif'};
  channels = [3 1];
  for f = 1:2
    [st, out] = system(sprintf('%s run conv2 %s k.mat -o out.mat --shape same 2>&1', clip, files{f}));
    if st ~= 0
      error('check_conv2: clip failed on %s: %s', files{f}, out);
    end
    r = load('out.mat');
    ref = zeros(37, 53, channels(f));
    for ch = 1:channels(f)
      src = double(imread(files{f}));
      ref(:, :, ch) = conv2(src(:, :, ch), K, 'same');
    end
    compare(r.result, single(ref), files{f});
    n = n + 1;
  end

  % CLI errors: a non-zero status and the reason on stderr.
  A = randn_array(@double, [5 5], 0);
  K = randn_array(@double, [3 3], 0);
  save('-v7', 'a.mat', 'A');
  save('-v7', 'k.mat', 'K');
  K3 = ones(2, 2, 2);
  save('-v7', 'k3.mat', 'K3');
  expect_error(clip, 'a.mat k.mat --shape middle', 'is not one of full|same|valid');
  expect_error(clip, 'a.mat k.mat --pad mirror', 'is not one of zero|replicate|symmetric|circular');
  expect_error(clip, 'a.mat k3.mat -o c.mat', 'K must be 2-D, got 2x2x2');
  expect_error(clip, 'a.mat -o c.mat', 'takes 2 inputs');
  n = n + 4;

  printf('check_conv2: %d comparisons\n', n);
  printf('check_conv2: ok\n');
end

% The comparisons of the direct path with the kernel variant option vopt; returns their number.
function n = check_direct(clip, vopt)
  n = 0;
  % Zero padding: Octave's conv2 itself.
  cases = {
    {@double, 0, [17 31], @double, 0, [3 3]}
    {@single, 0, [257 3], @single, 0, [4 3]}
    {@double, 1, [31 17], @double, 1, [2 5]}
    {@single, 1, [1 1031], @single, 1, [1 7]}
    {@double, 0, [1031 1], @double, 0, [7 1]}
    {@single, 0, [64 64], @double, 1, [8 6]}
    {@double, 0, [3 2], @double, 0, [5 4]}
    {@double, 1, [1 1], @single, 0, [2 2]}
  };
  shapes = {'full', 'same', 'valid'};
  for c = 1:numel(cases)
    cs = cases{c};
    A = randn_array(cs{1}, cs{3}, cs{2});
    K = randn_array(cs{4}, cs{6}, cs{5});
    for s = 1:3
      got = run_conv2(clip, A, K, vopt, ['--shape ' shapes{s}]);
      compare(got, conv2(A, K, shapes{s}), sprintf('case %d %s', c, shapes{s}));
      n = n + 1;
    end
  end

  % 3-D A: every slice with the same K.
  A = randn_array(@double, [9 11 3], 0);
  K = randn_array(@double, [4 3], 0);
  ref = zeros(9, 11, 3);
  for p = 1:3
    ref(:, :, p) = conv2(A(:, :, p), K, 'same');
  end
  compare(run_conv2(clip, A, K, vopt, '--shape same'), ref, '3-D same');
  n = n + 1;

  % Correlation with zero padding: filter2.
  A = randn_array(@double, [23 19], 1);
  K = randn_array(@double, [4 5], 0);
  for s = 1:3
    compare(run_conv2(clip, A, K, vopt, ['--correlate --shape ' shapes{s}]), filter2(K, A, shapes{s}), ...
            sprintf('filter2 %s', shapes{s}));
    n = n + 1;
  end

  % imfilter's pad modes, both orientations; a kernel larger than A pads past a whole period.
  pads = {'replicate', 'symmetric', 'circular'};
  A = randn_array(@double, [17 31], 0);
  kernels = {randn_array(@double, [4 3], 0), randn_array(@double, [20 40], 0)};
  for pi = 1:3
    for ki = 1:2
      K = kernels{ki};
      for corr = 0:1
        for s = 1:3
          opts = sprintf('--shape %s --pad %s', shapes{s}, pads{pi});
          if corr
            opts = [opts ' --correlate'];
          end
          compare(run_conv2(clip, A, K, vopt, opts), ref_filter(A, K, shapes{s}, pads{pi}, corr), opts);
          n = n + 1;
        end
      end
    end
  end
  A = randn_array(@single, [40 33], 1);
  K = randn_array(@single, [3 5], 1);
  compare(run_conv2(clip, A, K, vopt, '--shape same --pad symmetric --correlate'), ...
          single(ref_filter(double(A), double(K), 'same', 'symmetric', 1)), 'single complex symmetric');
  n = n + 1;

  % normalize: divided by sum(K(:)); a zero sum gives Inf and NaN as in MATLAB.
  A = randn_array(@double, [30 20], 0);
  K = randn_array(@double, [5 5], 0) + 1;
  compare(run_conv2(clip, A, K, vopt, '--shape same --normalize'), conv2(A, K, 'same') / sum(K(:)), ...
          'normalize');
  K = [1 2 1; 0 0 0; -1 -2 -1];
  A = ones(6, 5);
  compare(run_conv2(clip, A, K, vopt, '--normalize'), conv2(A, K) / sum(K(:)), 'normalize by zero');
  n = n + 2;

end

% The FFT path (when clip has clFFT): its error is relative to norm(A)*norm(K), not to each
% output. Few transform sizes (each costs clFFT a kernel build under PoCL): K is 4x3 and A
% 6x8 (full), 9x10 (same), 12x12 (valid): 12x12 transforms. NaN and Inf in A come out as in
% Octave (clip recomputes such results by the direct kernel).
function n = check_fft(clip)
  n = 0;
  A = randn_array(@double, [9 10], 0);
  K = randn_array(@double, [4 3], 0);
  save('-v7', 'a.mat', 'A');
  save('-v7', 'k.mat', 'K');
  [st, out] = system(sprintf('%s run conv2 a.mat k.mat -o c.mat --variant fft 2>&1', clip));
  if st ~= 0
    if isempty(strfind(out, 'built without clFFT'))
      error('check_conv2: fft failed: %s', out);
    end
    printf('check_conv2: clip has no FFT path (built without clFFT)\n');
    return;
  end
  shapes = {'full', 'same', 'valid'};
  sizes = {[6 8], [9 10], [12 12]};
  pads = {'zero', 'replicate', 'symmetric', 'circular'};
  for s = 1:3
    for pi = 1:4
      for cx = 0:1
        cls = @double;
        if mod(s + pi, 2)
          cls = @single;
        end
        A = randn_array(cls, sizes{s}, cx);
        K = randn_array(cls, [4 3], mod(pi, 2));
        opts = sprintf('--variant fft --shape %s --pad %s', shapes{s}, pads{pi});
        if cx
          opts = [opts ' --correlate'];
        end
        ref = cls(ref_filter(double(A), double(K), shapes{s}, pads{pi}, cx));
        compare(run_conv2(clip, A, K, opts), ref, opts, norm(double(A(:))) * norm(double(K(:))));
        n = n + 1;
      end
    end
  end
  A = randn_array(@single, [9 10 3], 1);
  K = randn_array(@double, [4 3], 0);
  ref = zeros(9, 10, 3);
  for p = 1:3
    ref(:, :, p) = conv2(double(A(:, :, p)), K, 'same') / sum(K(:));
  end
  compare(run_conv2(clip, A, K, '--variant fft --shape same --normalize'), single(ref), 'fft 3-D normalize', ...
          norm(double(A(:))) * norm(K(:)) / abs(sum(K(:))));
  A = randn_array(@double, [9 10], 0);
  A(3, 4) = Inf;
  A(7, 2) = NaN;
  compare(run_conv2(clip, A, K, '--variant fft --shape same'), conv2(A, K, 'same'), 'fft NaN/Inf in A');
  n = n + 2;
end

% The separable path: rank-one kernels u*v.' (single, double, complex) with --separable on, every
% shape, pad mode and orientation; a kernel that is not rank one is refused with the reason.
function n = check_separable(clip)
  n = 0;
  shapes = {'full', 'same', 'valid'};
  pads = {'zero', 'replicate', 'symmetric', 'circular'};
  for s = 1:3
    for pi = 1:4
      cls = @double;
      if mod(s + pi, 2)
        cls = @single;
      end
      cx = mod(s, 2);
      A = randn_array(cls, [31 17], cx);
      K = randn_array(cls, [5 1], pi == 2) * randn_array(cls, [1 7], 0);
      corr = mod(pi, 2);
      opts = sprintf('--separable on --shape %s --pad %s', shapes{s}, pads{pi});
      if corr
        opts = [opts ' --correlate'];
      end
      ref = cls(ref_filter(double(A), double(K), shapes{s}, pads{pi}, corr));
      compare(run_conv2(clip, A, K, opts), ref, opts);
      n = n + 1;
    end
  end
  A = randn_array(@double, [40 30 2], 0);
  K = ones(9, 9);
  ref = zeros(40, 30, 2);
  for p = 1:2
    ref(:, :, p) = conv2(A(:, :, p), K, 'same') / 81;
  end
  compare(run_conv2(clip, A, K, '--separable on --shape same --normalize'), ref, 'separable 3-D box normalize');
  K = randn_array(@double, [5 4], 0);
  save('-v7', 'a.mat', 'A');
  save('-v7', 'k.mat', 'K');
  expect_error(clip, 'a.mat k.mat -o c.mat --separable on', 'K is not rank one');
  n = n + 2;
end

% Inf and -Inf in K next to the zero padding: Octave's conv2 sums over the overlap only, so the
% borders hold +-Inf (and NaN where both meet), never the NaN of Inf * 0; every variant.
function n = check_nonfinite(clip)
  n = 0;
  A = rand(23, 19) + 0.5;
  K = rand(4, 5);
  K(1, 1) = Inf;
  K(4, 5) = -Inf;
  shapes = {'full', 'same', 'valid'};
  vs = {'local', 'global', 'block', 'fft'};
  for v = 1:numel(vs)
    for s = 1:3
      if v == 4 && s > 1
        continue;
      end
      opts = sprintf('--variant %s --shape %s', vs{v}, shapes{s});
      if v == 4
        save('-v7', 'a.mat', 'A');
        save('-v7', 'k.mat', 'K');
        [st, out] = system(sprintf('%s run conv2 a.mat k.mat -o c.mat %s 2>&1', clip, opts));
        if st ~= 0 && ~isempty(strfind(out, 'built without clFFT'))
          continue;
        end
      end
      compare(run_conv2(clip, A, K, opts), conv2(A, K, shapes{s}), ['Inf in K: ' opts]);
      n = n + 1;
    end
  end
end

% conv2(u, v, A) as `clip run conv2sep u v A`: every shape with row and column vectors, odd
% sizes, filters longer than A, single and double, real and complex, mixed classes, every pad
% mode and correlation (defined by K = u(:)*v(:).'), normalize, each pass kernel, 3-D A, empty
% u, v or A, Inf in u next to the zero padding, and the errors.
function n = check_conv2sep(clip)
  n = 0;
  shapes = {'full', 'same', 'valid'};
  sizes = [17 33 5 4; 1 1 3 1; 3 65 1 7; 4 3 7 9; 33 17 2 3];
  classes = {@double, @single};
  for z = 1:rows(sizes)
    for s = 1:3
      for c = 1:2
        for cx = 0:1
          u = randn_array(classes{c}, [sizes(z, 3) 1], cx);
          v = randn_array(classes{c}, [1 sizes(z, 4)], mod(z + c, 2));
          if mod(z + s, 2)
            u = u.';
            v = v.';
          end
          A = randn_array(classes{c}, sizes(z, 1:2), mod(z, 2));
          what = sprintf('conv2(u, v, A, %s) %s cx=%d %s', shapes{s}, func2str(classes{c}), cx, ...
                         mat2str(sizes(z, :)));
          compare(run_conv2sep(clip, u, v, A, ['--shape ' shapes{s}]), ref_sep(u, v, A, shapes{s}), what);
          n = n + 1;
        end
      end
    end
  end
  % Mixed classes (single wins, complex if any is); pads and correlation; normalize; each pass
  % kernel; 3-D A.
  u = single(randn(5, 1));
  v = complex(randn(1, 3), randn(1, 3));
  A = randn(19, 23);
  compare(run_conv2sep(clip, u, v, A, '--shape same'), ref_sep(u, v, A, 'same'), 'mixed classes');
  pads = {'zero', 'replicate', 'symmetric', 'circular'};
  for p = 1:4
    for s = 1:3
      corr = mod(p + s, 2);
      opts = sprintf('--shape %s --pad %s', shapes{s}, pads{p});
      if corr
        opts = [opts ' --correlate'];
      end
      K = double(u(:)) * double(v(:)).';
      ref = single(ref_filter(A, K, shapes{s}, pads{p}, corr));
      compare(run_conv2sep(clip, u, v, A, opts), ref, ['conv2sep ' opts]);
      n = n + 1;
    end
  end
  u = randn(1, 4);
  v = randn(6, 1);
  compare(run_conv2sep(clip, u, v, A, '--shape same --normalize'), ...
          conv2(A, u(:) * v(:).', 'same') / sum(sum(u(:) * v(:).')), 'conv2sep normalize');
  for k = {'local', 'global', 'block'}
    compare(run_conv2sep(clip, single(u), single(v), single(A), ['--shape full --variant ' k{1}]), ...
            single(conv2(u, v, A)), ['conv2sep variant ' k{1}]);
    n = n + 1;
  end
  A3 = randn_array(@double, [13 11 2], 1);
  ref = zeros(13, 11, 2);
  for p = 1:2
    ref(:, :, p) = conv2(A3(:, :, p), u(:) * v(:).', 'same');
  end
  compare(run_conv2sep(clip, u, v, A3, '--shape same'), ref, 'conv2sep 3-D');
  % Empties: MATLAB's sizes, zeros (NaN when normalizing by an empty K's zero sum).
  compare(run_conv2sep(clip, zeros(0, 1), [1 2], magic(3), ''), zeros(3, 4), 'conv2sep empty u');
  compare(run_conv2sep(clip, zeros(0, 1), [1 2], magic(3), '--normalize'), NaN(3, 4), 'conv2sep empty u normalize');
  compare(run_conv2sep(clip, single([1 2]), [1; 2], zeros(0, 3), ''), single(zeros(2, 4)), 'conv2sep empty A');
  compare(run_conv2sep(clip, [1 2 3], zeros(1, 0), magic(3), '--shape same'), zeros(3, 3), 'conv2sep empty v same');
  compare(run_conv2sep(clip, [1 2 3], [1 2], ones(2, 2), '--shape valid'), zeros(0, 1), 'conv2sep valid empty');
  % Inf in u beside the zero padding: Inf, as Octave (only the overlap is summed).
  compare(run_conv2sep(clip, [Inf; 1], [1 1], ones(2, 2), ''), conv2([Inf; 1], [1 1], ones(2, 2)), 'conv2sep Inf');
  n = n + 11;
  save('-v7', 'a.mat', 'A');
  save('-v7', 'u.mat', 'u');
  expect_error(clip, 'a.mat u.mat a.mat -o c.mat', 'u must be a vector, got 19x23', 'conv2sep');
  expect_error(clip, 'u.mat u.mat -o c.mat', 'conv2sep takes 3 inputs, got 2', 'conv2sep');
  expect_error(clip, 'u.mat u.mat a.mat --variant fft', 'is not one of auto|local|global|block', 'conv2sep');
  n = n + 3;
end

% conv2(u, v, A, shape) in double, of the class MATLAB gives (single if any input is). Octave's
% own separable form is checked against conv2(A, u(:)*v(:).', shape), MATLAB's definition:
% Octave 7.3 drops the imaginary part of a complex u beside a real v, so where they disagree the
% second is the reference. Empty inputs get MATLAB's sizes (Octave returns 0x0).
function R = ref_sep(u, v, A, shape)
  ud = double(u);
  vd = double(v);
  Ad = double(A);
  R = conv2(Ad, ud(:) * vd(:).', shape);
  if ~isempty(R)
    R1 = conv2(ud, vd, Ad, shape);
    if ~isequal(size(R1), size(R)) || norm(R1(:) - R(:)) > 1e-10 * max(1, norm(R(:)))
      printf('check_conv2: note: Octave''s conv2(u, v, A, ''%s'') differs from conv2(A, u(:)*v(:).'', ''%s'') (complex u %d, v %d); the latter is the reference\n', ...
             shape, shape, iscomplex(u), iscomplex(v));
    end
  end
  if isa(u, 'single') || isa(v, 'single') || isa(A, 'single')
    R = single(R);
  end
end

function C = run_conv2sep(clip, u, v, A, opts)
  C = clip_run('check_conv2', clip, 'conv2sep', {u, v, A}, opts);
end

% High-dynamic-range images (issue 14): a bright block on a faint background, impulses, a
% checkerboard of 1e6 and 1e-6, a star field. Every shape, pad, correlate and normalize, in turn
% through auto (per-output accuracy: fft only when asked) and each direct variant, single and
% double, each output against Octave's double result within the direct-summation bound
% c * eps(class) * (|A| conv |K|) at that output, c = 16 + 2 sqrt(taps) as in tests/test_conv2.c
% (doubled in double, where the reference rounds as much as clip). FFT's error follows the
% largest values of the whole image: small outputs far from the block would miss this bound by
% orders of magnitude (the issue's 600x600 case: 1.08e2 relative).
function n = check_hdr(clip)
  n = 0;
  m = 40;
  w = 50;
  bg = 1e-3 * (1 + rand(m, w));
  block = bg;
  block(11:18, 21:30) = 1e6;
  impulses = bg;
  impulses(sub2ind([m w], [5 20 33 38], [7 44 25 3])) = 1e6;
  [r, c] = ndgrid(1:m, 1:w);
  checker = 1e-6 + (1e6 - 1e-6) * (mod(r + c, 2) == 0);
  stars = 5 + rand(m, w);
  stars(sub2ind([m w], randi(m, 1, 12), randi(w, 1, 12))) = 60000;
  images = {block, impulses, checker, stars};
  names = {'block', 'impulses', 'checkerboard', 'stars'};
  K = rand(7, 5) + 0.1;
  [g1, g2] = ndgrid(-3:3, -2:2);
  gauss = exp(-(g1 .^ 2 + g2 .^ 2) / 4);
  kernels = {K, gauss};
  variants = {'', '--variant local', '--variant global', '--variant block'};
  shapes = {'full', 'same', 'valid'};
  pads = {'zero', 'replicate', 'symmetric', 'circular'};
  c = 16 + 2 * sqrt(numel(K));
  i = 0;
  for s = 1:3
    for pi = 1:4
      for corr = 0:1
        for nz = 0:1
          i = i + 1;
          im = mod(i - 1, 4) + 1;
          cls = @double;
          if mod(i, 2)
            cls = @single;
          end
          A = images{im};
          Kx = kernels{mod(floor((i - 1) / 4), 2) + 1};
          opts = sprintf('%s --shape %s --pad %s', variants{mod(floor((i - 1) / 2), 4) + 1}, ...
                         shapes{s}, pads{pi});
          if corr
            opts = [opts ' --correlate'];
          end
          if nz
            opts = [opts ' --normalize'];
          end
          want = ref_filter(A, Kx, shapes{s}, pads{pi}, corr);
          bound = ref_filter(abs(A), abs(Kx), shapes{s}, pads{pi}, corr);
          if nz
            want = want / sum(Kx(:));
            bound = bound / abs(sum(Kx(:)));
          end
          got = run_conv2(clip, cls(A), cls(Kx), opts);
          what = sprintf('%s %s %s', names{im}, func2str(cls), opts);
          if ~strcmp(class(got), func2str(cls)) || ~isequal(size(got), size(want))
            error('check_conv2: %s: got %s %s, want %s %s', what, class(got), mat2str(size(got)), ...
                  func2str(cls), mat2str(size(want)));
          end
          tol = c * double(eps(cls(1)));
          if isequal(cls, @double)
            tol = 2 * tol;
          end
          excess = abs(double(got) - want) ./ bound;
          if any(excess(:) > tol)
            [worst, at] = max(excess(:));
            error('check_conv2: %s: output %d off by %.3g of |A| conv |K| (bound %.3g)', what, ...
                  at, worst, tol);
          end
          n = n + 1;
        end
      end
    end
  end
end

% conv2 of A and K through the CLI; the option strings are joined with spaces.
function C = run_conv2(clip, A, K, varargin)
  C = clip_run('check_conv2', clip, 'conv2', {A, K}, strjoin(varargin, ' '));
end

% Index of padded position x (1-based, any integer) in a line of length n, padarray's rules;
% 0 where the padding is zero.
function y = pad_index(x, n, pad)
  switch pad
    case 'zero'
      y = x .* (x >= 1 & x <= n);
    case 'replicate'
      y = min(max(x, 1), n);
    case 'circular'
      y = mod(x - 1, n) + 1;
    case 'symmetric'
      y = mod(x - 1, 2 * n);
      y(y >= n) = 2 * n - 1 - y(y >= n);
      y = y + 1;
  end
end

% imfilter(A, K, pad, shape, 'conv'/'corr') by hand: pad A by size(K)-1 on every side with the
% index maps, take the 'valid' convolution (the full result over the padded A), then cut the
% shape out of it as conv2 does. 'valid' never reads the padding.
function C = ref_filter(A, K, shape, pad, corr)
  if corr
    K = rot90(K, 2);
  end
  [ma, na] = size(A);
  [mk, nk] = size(K);
  ri = pad_index((2 - mk):(ma + mk - 1), ma, pad);
  ci = pad_index((2 - nk):(na + nk - 1), na, pad);
  P = zeros(numel(ri), numel(ci));
  P(ri > 0, ci > 0) = A(ri(ri > 0), ci(ci > 0));
  F = conv2(P, K, 'valid');
  switch shape
    case 'full'
      C = F;
    case 'same'
      C = F(floor(mk / 2) + (1:ma), floor(nk / 2) + (1:na));
    case 'valid'
      C = conv2(A, K, 'valid');
  end
end

% got against want: class, size, the non-finite pattern, then the error relative to norm(want),
% or to `scale` when given (the FFT path: norm(A)*norm(K)); a real result may stand for a complex
% want whose imaginary parts are all 0.
function compare(got, want, what, scale)
  if nargin > 3
    result_close('check_conv2', got, want, what, 'complexity', 'nonzero', 'scale', scale);
  else
    result_close('check_conv2', got, want, what, 'complexity', 'nonzero');
  end
end

% `clip run PROCESS args` (conv2 unless given) must fail with `needle` in its message.
function expect_error(clip, args, needle, process)
  if nargin < 4
    process = 'conv2';
  end
  clip_fails('check_conv2', clip, [process ' ' args], needle);
end
