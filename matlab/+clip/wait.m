function wait()
% clip.wait  Waits until the device work of earlier clip.* calls has finished. Calls on
%   clip.Array inputs return as soon as their work is enqueued (gather and calls with ordinary
%   array results wait on their own); use clip.wait before timing with toc.
  clip.Array.mex('wait');
end
