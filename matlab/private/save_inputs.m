function files = save_inputs(inputs)
% save_inputs  Each array of the cell `inputs` into in1.mat, in2.mat, ... (MAT v7; clip reads the
% first numeric variable of a file, whatever its name); files is ' in1.mat in2.mat ...', to follow
% the process's name on a `clip run` line.
  files = '';
  for k = 1:numel(inputs)
    X = inputs{k};
    f = sprintf('in%d.mat', k);
    save('-v7', f, 'X');
    files = [files ' ' f];
  end
end
