function d = device(spec)
% clip.device  Chooses the device clip.* functions use: clip.device('gpu'), 'cpu', an index
%   from clip.devices, or a name substring. Arrays made earlier stay valid on their own device.
%   Returns the device's struct (as clip.devices). clip.device() returns the current one.
  if nargin == 0
    list = clip.Array.mex('devices');
    d = list([list.iscurrent]);
    return;
  end
  if isnumeric(spec)
    spec = sprintf('%d', spec);
  end
  d = clip.Array.mex('device', spec);
end
