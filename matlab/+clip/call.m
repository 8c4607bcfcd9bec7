function varargout = call(name, inputs, params)
% clip.call  Run any clip process by name (what the other clip.* functions use).
%   [OUT1, ...] = clip.call(NAME, {IN1, IN2, ...}, {PARAM, VALUE, ...})
%   Inputs are single or double arrays (real or complex) or clip.Array objects. When any input
%   is a clip.Array, the outputs are clip.Array objects that stay on the device; otherwise they
%   are ordinary arrays. Parameters are those `clip help NAME` lists, with values given as
%   numbers, logicals or character vectors. One more output than the process has returns the
%   launch's device time in milliseconds.
%   Errors are MATLAB errors with identifiers clip:* (e.g. clip:innerDimensions) and clip's
%   message; a failed call leaves every clip.Array usable.
  if nargin < 3
    params = {};
  end
  keep = false;
  for i = 1:numel(inputs)
    if isa(inputs{i}, 'clip.Array')
      inputs{i} = struct('id', inputs{i}.Id);
      keep = true;
    end
  end
  n = max(nargout, 1);
  out = cell(1, n);
  [out{:}] = clip.Array.mex('run', name, inputs, params, keep);
  if keep
    % Every output but a trailing device time is an id of a new device-resident array.
    for i = 1:n
      if isa(out{i}, 'uint64')
        out{i} = clip.Array(out{i}, 'clip:wrap');
      end
    end
  end
  varargout = out;
end
