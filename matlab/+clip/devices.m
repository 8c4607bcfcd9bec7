function d = devices()
% clip.devices  The OpenCL devices clip sees. Without an output, prints one line per device,
%   '*' marking the default and '>' the one clip.* functions use now; with one, returns a struct
%   array (index, name, vendor, type, version, isdefault, iscurrent).
  list = clip.Array.mex('devices');
  if nargout > 0
    d = list;
    return;
  end
  for i = 1:numel(list)
    mark = ' ';
    if list(i).iscurrent
      mark = '>';
    elseif list(i).isdefault
      mark = '*';
    end
    fprintf('%s %d  %-5s %s | %s | %s\n', mark, list(i).index, list(i).type, list(i).name, ...
           list(i).vendor, list(i).version);
  end
end
