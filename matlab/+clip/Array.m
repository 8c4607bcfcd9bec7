classdef Array < handle
% clip.Array  An array kept on clip's OpenCL device, like gpuArray.
%   G = clip.Array(A) uploads A (single or double, real or complex, any size) once. clip.*
%   functions given a clip.Array return clip.Array results that stay on the device, so chains
%   of calls never copy through the host; gather(G) reads the contents back. size, class
%   (clip.Array; classUnderlying gives single or double), isreal, numel, ndims and disp work
%   as for gpuArray. The device memory is released when the last reference to G goes (clear,
%   reassignment, end of the function that held it).
  properties (SetAccess = private, Hidden)
    Id = uint64(0);
    % A second release of Id, when the object's properties go after delete. Octave acts on a
    % Ctrl-C that arrived just before at a delete method's first statement, which abandons the
    % method (a warning) and would leak the device array; that consumes the interrupt, so this
    % onCleanup's action then runs. Freeing an id twice is harmless: ids are never reused.
    Guard = [];
  end
  methods
    function obj = Array(A, how)
      if nargin == 2 && ischar(how) && strcmp(how, 'clip:wrap')
        id = A;                % a result of clip_mex('run'), pending like an upload
      elseif nargin == 1
        if isa(A, 'clip.Array')
          A = gather(A);       % a copy, as gpuArray(G) of a gpuArray
        end
        id = clip.Array.mex('upload', A);
      else
        error('clip:usage', 'clip.Array: use clip.Array(A)');
      end
      % The id stays pending (freed by the next run or upload) until it is adopted, and the
      % guard comes first, so Ctrl-C at any point here leaves no array that nothing frees. The
      % adoption calls clip_mex itself: clip.Array.mex's extra frame would widen the window.
      obj.Guard = onCleanup(@() clip_mex('free', id));
      obj.Id = clip_mex('adopt', id);
    end
    function delete(obj)
      clip_mex('free', obj.Id);
    end
    function A = gather(obj)
      A = clip.Array.mex('gather', obj.Id);
    end
    function varargout = size(obj, dim)
      d = clip.Array.mex('info', obj.Id);
      if nargin == 2
        d(end+1:max(dim)) = 1;
        varargout = {d(dim)};
      elseif nargout <= 1
        varargout = {d};
      else
        d(end+1:nargout) = 1;
        varargout = num2cell([d(1:nargout-1), prod(d(nargout:end))]);
      end
    end
    function n = numel(obj, varargin)
      n = prod(size(obj));
    end
    function n = ndims(obj)
      n = numel(size(obj));
    end
    function c = classUnderlying(obj)
      [~, c] = clip.Array.mex('info', obj.Id);
    end
    function tf = isreal(obj)
      [~, ~, tf] = clip.Array.mex('info', obj.Id);
    end
    function disp(obj)
      d = size(obj);
      s = sprintf('%dx', d);
      if isreal(obj)
        kind = '';
      else
        kind = ' complex';
      end
      fprintf('  %s clip.Array (%s%s), on the device\n', s(1:end-1), classUnderlying(obj), kind);
    end
    function display(obj)
      fprintf('%s =\n\n', inputname(1));
      disp(obj);
      fprintf('\n');
    end
  end
  methods (Static, Hidden)
    function varargout = mex(varargin)
      % clip_mex for the +clip functions. Octave prefixes a MEX error with the MEX file's name;
      % clip's message stands alone, under the same identifier. (Here rather than in a private
      % folder: Octave finds no private functions of a package.)
      try
        if nargout == 0
          clip_mex(varargin{:});
        else
          [varargout{1:nargout}] = clip_mex(varargin{:});
        end
      catch err
        error(err.identifier, '%s', regexprep(err.message, '^clip_mex: ', ''));
      end
    end
  end
end
