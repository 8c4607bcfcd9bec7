function check_mat_io()
% check_mat_io  MAT files made by Octave go through the clip tool and come back intact.
%
% Runs `clip run scale in.mat -o out.mat --a A --b B` (CLIP names the tool) on single, double,
% complex, N-D, empty and integer-class arrays saved as -v7 (compressed) and -v6 (plain v5), and
% on a file whose first variables are not numeric. out.mat must hold exactly one variable,
% `result`, with the class clip documents (single/double/complex kept; int8/uint8/int16/uint16/
% logical -> single, int32/uint32/int64/uint64 -> double), the same size, and values equal to x
% for a=1 b=0 and to 2*x+1 within 1e-6 (single) or 1e-14 (double) relative error.
% Octave cannot write -v7.3; if a later version can, those files are checked too.
  clip = clip_tool('check_mat_io');
  rand('state', 7);
  randn('state', 11);

  cases = {
    'single',             single(randn(5, 4))
    'double',             randn(6, 3)
    'complex single',     complex(single(randn(4, 4)), single(randn(4, 4)))
    'complex double',     complex(randn(3, 5), randn(3, 5))
    'N-D single',         single(randn(2, 3, 4))
    'N-D double',         randn(2, 3, 4)
    'N-D complex single', complex(single(randn(3, 2, 2, 2)), single(randn(3, 2, 2, 2)))
    'N-D complex double', complex(randn(2, 2, 3), randn(2, 2, 3))
    'row vector',         randn(1, 7)
    'scalar',             single(3.5)
    'empty 3x0',          zeros(3, 0)
    'empty single 0x4',   single(zeros(0, 4))
    'int8',               int8([-128 -1 0; 1 100 127])
    'uint8',              uint8([0 1 2; 128 254 255])
    'int16',              int16([-32768 -1 0; 1 1234 32767])
    'uint16',             uint16([0 1 2; 40000 65534 65535])
    'logical',            logical([1 0 0; 1 1 0])
    'int32',              int32([-2147483648 -1 0; 1 123456789 2147483647])
    'uint32',             uint32([0 1 2; 3000000000 4294967294 4294967295])
    'int64',              int64([-2^53 -1 0; 1 2^40 2^53])
    'uint64',             uint64([0 1 2; 2^60 2^53 2^63])
  };

  formats = {'-v7', '-v6'};
  if can_save_v73()
    formats{end+1} = '-v7.3';
  else
    printf('check_mat_io: Octave cannot write -v7.3 MAT files; v7.3 inputs skipped\n');
  end

  n = 0;
  for f = 1:numel(formats)
    for k = 1:rows(cases)
      what = sprintf('%s (%s)', cases{k, 1}, formats{f});
      x = cases{k, 2};
      save(formats{f}, 'in.mat', 'x');
      check_exact(run_scale(clip, 1, 0), x, what);
      check_affine(run_scale(clip, 2, 1), x, what);
      n = n + 1;
    end

    % The input is the first numeric variable, whatever comes before it or its name.
    title = 'not numbers';
    s.k = 1;
    data = complex(single(randn(3, 4)), single(randn(3, 4)));
    later = randn(2, 2);
    save(formats{f}, 'in.mat', 'title', 's', 'data', 'later');
    check_exact(run_scale(clip, 1, 0), data, ['first numeric variable (' formats{f} ')']);
    n = n + 1;
  end
  printf('check_mat_io: %d files checked\n', n);
  printf('check_mat_io: ok\n');
end

function ok = can_save_v73()
  ok = false;
  x = 1;
  try
    save('-v7.3', 'probe73.mat', 'x');
    ok = exist('probe73.mat', 'file') == 2;
  catch
  end
  if exist('probe73.mat', 'file')
    delete('probe73.mat');
  end
end

function y = run_scale(clip, a, b)
  if exist('out.mat', 'file')
    delete('out.mat');
  end
  cmd = sprintf('"%s" run scale in.mat -o out.mat --a %.17g --b %.17g 2>&1', clip, a, b);
  [status, out] = system(cmd);
  if status ~= 0
    error('check_mat_io: `%s` failed (exit %d): %s', cmd, status, strtrim(out));
  end
  vars = whos('-file', 'out.mat');
  if numel(vars) ~= 1 || ~strcmp(vars(1).name, 'result')
    error('check_mat_io: out.mat must hold exactly one variable named result');
  end
  r = load('out.mat');
  y = r.result;
end

% The class clip gives an input of class c.
function c = class_for(x)
  switch class(x)
    case {'single', 'int8', 'uint8', 'int16', 'uint16', 'logical'}
      c = 'single';
    otherwise
      c = 'double';
  end
end

function check_shape(y, x, what)
  if ~strcmp(class(y), class_for(x))
    error('check_mat_io: %s: result is %s, want %s', what, class(y), class_for(x));
  end
  if isreal(y) ~= isreal(x) && ~isempty(x)
    error('check_mat_io: %s: result isreal=%d, want %d', what, isreal(y), isreal(x));
  end
  if ~isequal(size(y), size(x))
    error('check_mat_io: %s: result is %s, want %s', what, mat2str(size(y)), mat2str(size(x)));
  end
end

function check_exact(y, x, what)
  check_shape(y, x, what);
  want = cast(double(x), class_for(x));
  if ~isreal(x)
    want = complex(cast(real(x), class_for(x)), cast(imag(x), class_for(x)));
  end
  if ~isequal(y, want)
    error('check_mat_io: %s: a=1 b=0 changed values (max diff %g)', what, ...
          max(abs(double(y(:)) - double(want(:)))));
  end
end

function check_affine(y, x, what)
  check_shape(y, x, what);
  ref = 2 * double(x) + 1;  % MATLAB adds a real b to the real part only
  if strcmp(class_for(x), 'single')
    tol = 1e-6;
  else
    tol = 1e-14;
  end
  if isempty(ref)
    return;
  end
  err = max(abs(double(y(:)) - ref(:))) / max(max(abs(ref(:))), realmin);
  if ~(err <= tol)
    error('check_mat_io: %s: 2*x+1 relative error %g > %g', what, err, tol);
  end
end
