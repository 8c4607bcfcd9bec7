function clip = clip_tool(script)
% clip_tool  The clip command-line tool a matlab/ script runs: $CLIP (ctest sets it); without it an
% error naming the script.
  clip = getenv('CLIP');
  if isempty(clip)
    error('%s: set CLIP to the clip command-line tool', script);
  end
end
