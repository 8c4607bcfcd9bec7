function test_gateway()
% test_gateway  The MEX gateway (+clip, clip_mex) against Octave's own functions and against the
% `clip` tool on the same inputs; device-resident chains and their transfer counters; errors as
% identifiers that leave everything usable; and a 10000-iteration create/clear loop that must
% not grow memory. Needs the folder holding clip_mex.mex and +clip on the path, CLIP naming the
% clip tool (for the comparison with the CLI; skipped without it).
  tool = getenv('CLIP');  % not `clip`: a variable of that name would hide the package
  rand('twister', 4242);
  randn('state', 4242);
  n = 0;
  n = n + check_against_octave();
  n = n + check_against_cli(tool);
  n = n + check_chain();
  n = n + check_errors();
  n = n + check_cache();
  n = n + check_memory();
  fprintf('test_gateway: %d checks passed\n', n);
end

% Same class, size and realness as ref (a real result may stand for a complex ref whose
% imaginary parts are all 0), values within a relative error norm of 1e-5 (single) or 1e-12
% (double) relative to norm(ref), or to realmin where norm(ref) is below it.
function n = same(got, ref, what)
  result_close('test_gateway', got, ref, what, 'complexity', 'nonzero', ...
               'scale', max(norm(double(ref(:))), realmin));
  n = 1;
end

function n = check_against_octave()
  n = 0;
  classes = {@double, @single};
  for c = 1:2
    for cx = 0:1
      cls = classes{c};
      what = sprintf('%s cx=%d', func2str(cls), cx);
      A = randn_array(cls, [37 29], cx);
      B = randn_array(cls, [29 13], 1 - cx);
      n = n + same(clip.matmul(A, B), A * B, ['matmul ' what]);
      n = n + same(clip.matmul(A, cls(zeros(29, 0))), A * cls(zeros(29, 0)), ['matmul empty ' what]);
      S = randn_array(cls, [24 24], cx) / 8;
      n = n + same(clip.matpow(S, 5), S^5, ['matpow 5 ' what]);
      n = n + same(clip.matpow(S, 0), S^0, ['matpow 0 ' what]);
      v = randn_array(cls, [1 1001], cx);
      for p = {1, 2, 3.5, Inf, -Inf}
        n = n + same(clip.norm(v, p{1}), norm(v, p{1}), sprintf('norm p=%g %s', p{1}, what));
      end
      n = n + same(clip.norm(v), norm(v), ['norm default ' what]);
      a = randn_array(cls, [257 1], cx);
      b = randn_array(cls, [257 1], 1);
      n = n + same(clip.dot(a, b), dot(a, b), ['dot ' what]);
      I = randn_array(cls, [61 47], cx);
      K = randn_array(cls, [5 4], 0);
      for shape = {'full', 'same', 'valid'}
        n = n + same(clip.conv2(I, K, shape{1}), conv2(I, K, shape{1}), ['conv2 ' shape{1} ' ' what]);
      end
      n = n + same(clip.conv2(I, K), conv2(I, K), ['conv2 default ' what]);
      n = n + same(clip.conv2(I, K, 'same', 'Correlate', true), filter2(K, I, 'same'), ...
                   ['conv2 correlate ' what]);
    end
  end
  % Mixed classes as MATLAB: single wins, complex if either.
  A = randn_array(@double, [9 8], 0);
  B = randn_array(@single, [8 7], 1);
  n = n + same(clip.matmul(A, B), A * B, 'matmul double*single complex');
end

% The gateway and `clip run` on the same MAT inputs, same device: the same kernels, so the same
% bits.
function n = check_against_cli(tool)
  n = 0;
  if isempty(tool)
    fprintf('test_gateway: CLIP not set: comparison with the clip tool skipped\n');
    return;
  end
  A = randn_array(@single, [45 33], 1);
  B = randn_array(@single, [33 20], 0);
  K = randn_array(@double, [7 7], 0);
  I = randn_array(@double, [80 64], 0);
  save('-v7', 'gw_a.mat', 'A');
  save('-v7', 'gw_b.mat', 'B');
  save('-v7', 'gw_k.mat', 'K');
  save('-v7', 'gw_i.mat', 'I');
  v = I(:);
  save('-v7', 'gw_v.mat', 'v');
  cases = {{'matmul gw_a.mat gw_b.mat', @() clip.matmul(A, B)}, ...
           {'conv2 gw_i.mat gw_k.mat --shape same --pad replicate', ...
            @() clip.conv2(I, K, 'same', 'Pad', 'replicate')}, ...
           {'norm gw_v.mat --p 3', @() clip.norm(v, 3)}};
  for i = 1:numel(cases)
    [st, out] = system(sprintf('%s run %s -o gw_out.mat 2>&1', tool, cases{i}{1}));
    if st ~= 0
      error('test_gateway: clip run %s failed: %s', cases{i}{1}, out);
    end
    ref = load('gw_out.mat');
    got = cases{i}{2}();
    if ~isequal(got, ref.result) || ~strcmp(class(got), class(ref.result))
      error('test_gateway: gateway and `clip run %s` differ', cases{i}{1});
    end
    n = n + 1;
  end
end

% Processes on clip.Array inputs return clip.Array outputs, and nothing crosses to the host until
% gather.
function n = check_chain()
  A = randn_array(@single, [128 128], 0) / 16;
  K = randn_array(@single, [5 5], 0);
  G = clip.Array(A);
  GK = clip.Array(K);
  if ~isa(G, 'clip.Array') || ~isequal(size(G), [128 128]) || ~strcmp(classUnderlying(G), 'single')
    error('test_gateway: clip.Array size/class wrong');
  end
  [r, c] = size(G);
  if r ~= 128 || c ~= 128 || size(G, 3) ~= 1 || numel(G) ~= 128^2 || ~isreal(G)
    error('test_gateway: clip.Array size forms wrong');
  end
  s0 = clip.stats();
  H = clip.matmul(G, G);            % 1
  P = clip.matpow(H, 2);            % 2
  C = clip.conv2(P, GK, 'same');    % 3
  D = clip.conv2(C, GK, 'valid');   % 4
  D = clip.call('scale', {D}, {'a', 0.5});   % 5
  s1 = clip.stats();
  if ~isa(D, 'clip.Array') || s1.to_device ~= s0.to_device || s1.to_host ~= s0.to_host
    error('test_gateway: a chain on clip.Array copied through the host (%d up, %d down)', ...
          s1.to_device - s0.to_device, s1.to_host - s0.to_host);
  end
  ref = 0.5 * conv2(conv2((A * A)^2, K, 'same'), K, 'valid');
  got = gather(D);
  s2 = clip.stats();
  if s2.to_host ~= s1.to_host + 1
    error('test_gateway: gather made %d copies, want 1', s2.to_host - s1.to_host);
  end
  n = same(got, ref, 'chain matmul-matpow-conv2-conv2-scale');
  % Mixing a clip.Array with a host array moves the host one at most once (not at all where the
  % device reads it in place) and nothing back. Its memory may go as soon as the call returns.
  B = A + 1;
  E = clip.matmul(G, B);
  s3 = clip.stats();
  clear B;
  if ~isa(E, 'clip.Array') || s3.to_device > s2.to_device + 1 || s3.to_host ~= s2.to_host
    error('test_gateway: mixed inputs: %d uploads, %d downloads, want at most 1 and 0', ...
          s3.to_device - s2.to_device, s3.to_host - s2.to_host);
  end
  n = n + same(gather(E), A * (A + 1), 'clip.Array times host array');
end

function n = expect_error(f, id)
  try
    f();
  catch err
    if ~strcmp(err.identifier, id)
      error('test_gateway: got %s (%s), want %s', err.identifier, err.message, id);
    end
    if ~isempty(strfind(err.message, 'clip_mex:'))
      error('test_gateway: message keeps the MEX prefix: %s', err.message);
    end
    n = 1;
    return;
  end
  error('test_gateway: no error, want %s', id);
end

function n = check_errors()
  G = clip.Array(magic(4));
  n = 0;
  n = n + expect_error(@() clip.matmul(ones(3, 4), ones(3, 4)), 'clip:innerDimensions');
  n = n + expect_error(@() clip.matmul(G, ones(3, 4)), 'clip:innerDimensions');
  n = n + expect_error(@() clip.matpow(ones(3, 4), 2), 'clip:notSquare');
  n = n + expect_error(@() clip.matpow(G, -1), 'clip:badPower');
  n = n + expect_error(@() clip.norm([1 2 3], 0), 'clip:badNormOrder');
  n = n + expect_error(@() clip.dot([1 2 3], [1 2]), 'clip:lengthMismatch');
  n = n + expect_error(@() clip.dot([1 2 3], [1 2 3], 0), 'clip:parameterRange');
  n = n + expect_error(@() clip.conv2(G, G, 'bogus'), 'clip:badChoice');
  n = n + expect_error(@() clip.matmul(int32([1 2]), [1; 2]), 'clip:badClass');
  n = n + expect_error(@() clip.conv2(G, G, 'same', 'Pad', 'mirror'), 'clip:badChoice');
  n = n + expect_error(@() clip.conv2(G, G, 'same', 'Bogus', 1), 'clip:unknownParameter');
  n = n + expect_error(@() clip.call('nosuch', {1}), 'clip:unknownProcess');
  % A struct standing for a clip.Array must be one: an empty one crashed Octave.
  n = n + expect_error(@() clip.norm(struct('id', {})), 'clip:usage');
  n = n + expect_error(@() clip.norm(struct('id', {G.Id, G.Id})), 'clip:usage');
  % The errors of clip.Array and clip.device lose the MEX prefix as clip.call's do.
  n = n + expect_error(@() clip.Array(int8(1)), 'clip:badClass');
  n = n + expect_error(@() clip.Array(sparse(1)), 'clip:sparse');
  n = n + expect_error(@() clip.device('no-such-device-xyz'), 'clip:noDevice');
  % Everything still works after the failures.
  n = n + same(gather(G), magic(4), 'clip.Array after errors');
  n = n + same(gather(clip.matmul(G, G)), magic(4) * magic(4), 'product after errors');
end

% The process cache (one kept process per name, parameters and input types and sizes): calls
% that alternate parameters and shapes give Octave's results every time; a failing call leaves
% the kept ones working; the cache is bounded and emptied when the device changes.
function n = check_cache()
  n = 0;
  I = randn_array(@double, [40 33], 0);
  K = randn_array(@double, [4 5], 0);
  GI = clip.Array(I);
  GK = clip.Array(K);
  S = randn_array(@double, [16 16], 0) / 4;
  shapes = {'full', 'same', 'valid'};
  for round = 1:2
    for k = 1:3
      sh = shapes{k};
      n = n + same(clip.conv2(I, K, sh), conv2(I, K, sh), ['cached conv2 ' sh]);
      n = n + same(gather(clip.conv2(GI, GK, sh, 'Correlate', true)), ...
                   conv2(I, rot90(K, 2), sh), ['cached conv2 correlate ' sh]);
      n = n + same(clip.conv2(single(I), K, sh), conv2(single(I), single(K), sh), ...
                   ['cached conv2 single ' sh]);
    end
    for p = [3 0 1 5]
      n = n + same(clip.matpow(S, p), S^p, sprintf('cached matpow %d', p));
    end
    for m = [7 40 7]
      A = randn_array(@double, [m 40], 1);
      n = n + same(clip.matmul(A, I), A * I, sprintf('cached matmul %dx40', m));
    end
  end
  s = clip.stats();
  if s.cached_processes < 1 || s.cached_processes > 32
    error('test_gateway: %d kept processes, want 1..32', s.cached_processes);
  end
  % An error between cached calls of the same process, and the same failing call twice.
  A = randn_array(@double, [7 40], 0);
  for k = 1:2
    n = n + expect_error(@() clip.matmul(A, K), 'clip:innerDimensions');
    n = n + same(clip.matmul(A, I), A * I, 'cached matmul after an error');
  end
  n = n + expect_error(@() clip.conv2(I, K, 'same', 'Pad', 'mirror'), 'clip:badChoice');
  n = n + same(clip.conv2(I, K, 'same'), conv2(I, K, 'same'), 'cached conv2 after an error');
  % More distinct calls than the cache holds: the oldest go, results stay right.
  for m = 1:40
    v = randn_array(@double, [m 1], 0);
    n = n + same(clip.norm(v, 3), norm(v, 3), sprintf('norm of %d elements', m));
  end
  s = clip.stats();
  if s.cached_processes > 32
    error('test_gateway: %d kept processes, more than the bound of 32', s.cached_processes);
  end
  % A device switch (to the same device: a new app) empties the cache; old arrays stay valid.
  d = clip.device();
  clip.device(d.index);
  s = clip.stats();
  if s.cached_processes ~= 0
    error('test_gateway: %d kept processes after clip.device, want 0', s.cached_processes);
  end
  n = n + same(gather(GI), I, 'clip.Array from before the device switch');
  n = n + same(clip.conv2(I, K, 'same'), conv2(I, K, 'same'), 'conv2 after the device switch');
  n = n + same(gather(clip.matmul(clip.Array(A), I)), A * I, 'chain after the device switch');
  % Calls on clip.Array inputs return before their work is done; clip.wait waits for it.
  G = clip.Array(S);
  for k = 1:4
    G = clip.matmul(G, clip.Array(S));
  end
  clip.wait();
  n = n + same(gather(G), S^5, 'clip.Array chain after clip.wait');
end

function kb = rss_kb()
  kb = 0;
  f = fopen('/proc/self/status');
  if f < 0
    return;
  end
  t = fread(f, Inf, 'char=>char')';
  fclose(f);
  m = regexp(t, 'VmRSS:\s*(\d+)', 'tokens', 'once');
  kb = str2double(m{1});
end

% Device arrays go with their last reference: 10000 create/clear (and reassignment) iterations
% leave the live count where it was and host memory within 16 MB of where it was after a warm-up.
function n = check_memory()
  A = rand(64, 64);
  for i = 1:200
    G = clip.Array(A);
    clear G;
  end
  s0 = clip.stats();
  r0 = rss_kb();
  for i = 1:10000
    G = clip.Array(A);
    H = G;            % a second reference: the data lives until both are gone
    G = clip.Array(A);
    clear H;
  end
  clear G;
  s1 = clip.stats();
  r1 = rss_kb();
  if s1.live_arrays ~= s0.live_arrays
    error('test_gateway: %d arrays live after the loop, %d before', s1.live_arrays, s0.live_arrays);
  end
  if r1 - r0 > 16 * 1024
    error('test_gateway: host memory grew by %d kB over 10000 iterations', r1 - r0);
  end
  fprintf('test_gateway: 10000 create/clear iterations: live arrays %d -> %d, RSS %d -> %d kB\n', ...
          s0.live_arrays, s1.live_arrays, r0, r1);
  n = 1 + check_orphans();
end

% A run's results or an upload that never reached a clip.Array (what Ctrl-C between clip_mex and
% the constructor's adoption leaves: tests/gateway_interrupt.sh) are freed by the next run or
% upload, and results that did reach one are not.
function n = check_orphans()
  G = clip.Array(single([1 2; 3 4]));
  s0 = clip.stats();
  id = clip_mex('run', 'scale', {struct('id', G.Id)}, {'a', 2}, true);  % never wrapped
  H = clip.call('scale', {G}, {'a', 3});  % wrapped; this run frees the orphan first
  s1 = clip.stats();
  if s1.live_arrays ~= s0.live_arrays + 1
    error('test_gateway: %d arrays live after an orphaned result and a wrapped one, %d before', ...
          s1.live_arrays, s0.live_arrays);
  end
  try
    clip_mex('adopt', id);
    error('test_gateway: an orphaned result could still be adopted');
  catch err
    if ~strcmp(err.identifier, 'clip:staleArray')
      error('test_gateway: adopting an orphan: got %s, want clip:staleArray', err.identifier);
    end
  end
  K = clip.Array(single(1));  % an upload sweeps too, and keeps what objects hold
  if ~isequal(gather(H), single([3 6; 9 12])) || ~isequal(gather(G), single([1 2; 3 4]))
    error('test_gateway: arrays held by objects changed across sweeps');
  end
  clear G H K;
  s2 = clip.stats();
  if s2.live_arrays ~= s0.live_arrays - 1
    error('test_gateway: arrays left after clearing every object');
  end
  % An upload whose id never reached its constructor's adoption is an orphan too.
  clip_mex('upload', single([5 6]));
  L = clip.call('scale', {clip.Array(single(2))}, {'a', 2});
  s3 = clip.stats();
  if s3.live_arrays ~= s2.live_arrays + 1 || ~isequal(gather(L), single(4))
    error('test_gateway: %d arrays live after an orphaned upload and a wrapped result, %d before', ...
          s3.live_arrays, s2.live_arrays);
  end
  clear L;
  s4 = clip.stats();
  if s4.live_arrays ~= s2.live_arrays
    error('test_gateway: %d arrays live after clearing, want %d', s4.live_arrays, s2.live_arrays);
  end
  n = 4;
end
