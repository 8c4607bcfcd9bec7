function C = conv2(A, K, varargin)
% clip.conv2  MATLAB's conv2(A, K, shape) on clip's device, with imfilter-style options:
%   C = clip.conv2(A, K)                 'full'
%   C = clip.conv2(A, K, 'same')         or 'valid'
%   C = clip.conv2(A, K, 'same', 'Pad', 'replicate', 'Correlate', true, 'Normalize', false,
%                  'Variant', 'auto')
%   Pad: zero (MATLAB's conv2), replicate, symmetric or circular. Correlate: filter2/imfilter's
%   correlation instead of convolution. Any other clip conv2 parameter (clip help conv2) may be
%   given by name too.
  params = {};
  if numel(varargin) >= 1 && ischar(varargin{1}) && any(strcmpi(varargin{1}, {'full', 'same', 'valid'}))
    params = {'shape', lower(varargin{1})};
    varargin = varargin(2:end);
  end
  if numel(varargin) == 1 && ischar(varargin{1}) && isempty(params)
    % A lone word where the shape goes is a shape, however misspelt.
    error('clip:badChoice', 'clip.conv2: shape ''%s'' is not one of full, same, valid', varargin{1});
  end
  if mod(numel(varargin), 2)
    error('clip:usage', 'clip.conv2: options come as Name, Value pairs');
  end
  for i = 1:2:numel(varargin)
    if ~ischar(varargin{i})
      error('clip:usage', 'clip.conv2: option names must be character vectors');
    end
    params = [params, {lower(varargin{i}), varargin{i+1}}];
  end
  C = clip.call('conv2', {A, K}, params);
end
