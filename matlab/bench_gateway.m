function bench_gateway()
% bench_gateway  Speed of the MEX gateway as an Octave user sees it (tic/toc, medians):
%   1. per-call overhead: clip.matmul of two 1x1 doubles, after a first call;
%   2. conv2 2048x2048 by 7x7 'same' through the gateway (host arrays in and out) against
%      Octave's conv2, in double and single; beside it the floor of a call with the same
%      arrays in and out (scale by 1), and conv2 on clip.Array inputs;
%   3. a chain of five processes on clip.Array inputs against the sum of their device times.
% Run with the folder holding clip_mex.mex and +clip on the path:
%   octave-cli --eval "warning('off','Octave:shadowed-function'); addpath('build/matlab');
%                      addpath('matlab'); bench_gateway"
  d = clip.device();
  fprintf('device: %s\n', d.name);
  fprintf('Octave BLAS: %s\n', version('-blas'));

  x = 1.5;
  clip.matmul(x, x);
  t = zeros(1, 500);
  for i = 1:numel(t)
    tic;
    clip.matmul(x, x);
    t(i) = toc;
  end
  fprintf('overhead  clip.matmul 1x1 double: median %.3f ms (min %.3f) over %d calls\n', ...
          1e3 * median(t), 1e3 * min(t), numel(t));
  G = clip.Array(x);
  clip.matmul(G, G);
  for i = 1:numel(t)
    tic;
    H = clip.matmul(G, G); %#ok<NASGU>
    clip.wait();
    t(i) = toc;
  end
  fprintf('overhead  clip.matmul 1x1 clip.Array: median %.3f ms (min %.3f)\n', 1e3 * median(t), 1e3 * min(t));

  for cls = {@double, @single}
    A = cls{1}(rand(2048));
    K = cls{1}(rand(7));
    clip.conv2(A, K, 'same');
    to = zeros(1, 5);
    tc = zeros(1, 5);
    for i = 1:5
      tic;
      r1 = conv2(A, K, 'same');
      to(i) = toc;
      tic;
      r2 = clip.conv2(A, K, 'same');
      tc(i) = toc;
    end
    err = max(abs(double(r1(:)) - double(r2(:)))) / max(abs(double(r1(:))));
    fprintf(['conv2     2048^2 by 7x7 same %s: Octave %.1f ms, clip.conv2 %.1f ms, %.2fx ' ...
             '(max rel diff %.2g)\n'], func2str(cls{1}), 1e3 * median(to), 1e3 * median(tc), ...
            median(to) / median(tc), err);
    % Where the time goes: a call that only scales A (the same array in, a result of the same
    % size out: the gateway's floor for this size, Octave's copy of the result included), and
    % conv2 on clip.Array inputs (device-resident, as gpuArray code is timed).
    tf = zeros(1, 5);
    ta = zeros(1, 5);
    G = clip.Array(A);
    GK = clip.Array(K);
    R = clip.conv2(G, GK, 'same');
    for i = 1:5
      tic;
      r3 = clip.call('scale', {A}, {'a', 1}); %#ok<NASGU>
      tf(i) = toc;
      clear r3;
      tic;
      R = clip.conv2(G, GK, 'same');
      clip.wait();
      ta(i) = toc;
    end
    fprintf(['          %s: floor (scale, same sizes) %.1f ms; conv2 on clip.Array %.1f ms, ' ...
             '%.2fx Octave\n'], func2str(cls{1}), 1e3 * median(tf), 1e3 * median(ta), ...
            median(to) / median(ta));
    clear G GK R;
  end

  A = clip.Array(single(rand(512) / 512));
  K = clip.Array(single(rand(5)));
  chain(A, K);
  n = 7;
  wall = zeros(1, n);
  dev = zeros(1, n);
  for i = 1:n
    tic;
    chain(A, K);
    clip.wait();   % the calls return before their device work is done: time all of it
    wall(i) = toc;
    dev(i) = sum(chain_times(A, K));
  end
  fprintf(['chain     matmul, matpow, conv2, conv2, scale on 512^2 clip.Array: wall %.2f ms, ' ...
           'sum of device times %.2f ms, ratio %.3f\n'], 1e3 * median(wall), median(dev), ...
          1e3 * median(wall) / median(dev));
end

function D = chain(A, K)
  H = clip.matmul(A, A);
  P = clip.matpow(H, 2);
  C = clip.conv2(P, K, 'same');
  D = clip.conv2(C, K, 'same');
  D = clip.call('scale', {D}, {'a', 0.5});
end

function ms = chain_times(A, K)
  ms = zeros(1, 5);
  [H, ms(1)] = clip.call('matmul', {A, A});
  [P, ms(2)] = clip.call('matpow', {H}, {'power', 2});
  [C, ms(3)] = clip.call('conv2', {P, K}, {'shape', 'same'});
  [D, ms(4)] = clip.call('conv2', {C, K}, {'shape', 'same'});
  [~, ms(5)] = clip.call('scale', {D}, {'a', 0.5});
end
