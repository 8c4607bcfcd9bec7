function s = stats()
% clip.stats  Host<->device copies of the current device since it was opened (to_device,
%   to_host and their bytes) and the number of live clip.Array objects (live_arrays): chains on
%   clip.Array inputs add no copies until gather.
  s = clip.Array.mex('stats');
end
