function x = clip_run(script, clip, process, inputs, opts)
% clip_run  `clip run PROCESS in1.mat ... -o out.mat OPTS` on the arrays of the cell `inputs`
% (save_inputs) and the result read back from out.mat. A failure is an error naming the script,
% the command and clip's messages.
  files = save_inputs(inputs);
  if exist('out.mat', 'file')
    delete('out.mat');
  end
  cmd = sprintf('%s run %s%s -o out.mat %s', clip, process, files, opts);
  [st, out] = system([cmd ' 2>err.txt']);
  if st ~= 0
    error('%s: clip failed (%d): %s: %s %s', script, st, cmd, out, fileread('err.txt'));
  end
  r = load('out.mat');
  x = r.result;
end
