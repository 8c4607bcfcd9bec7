function clip_fails(script, clip, args, msg)
% clip_fails  `clip run ARGS` must exit non-zero with `msg` in its message on stderr; else an error
% naming the script and the case (ARGS and the message wanted).
  [st, out] = system(sprintf('%s run %s 2>err.txt', clip, args));
  err = fileread('err.txt');
  if st == 0
    error('%s: "run %s" succeeded, expected an error with "%s"', script, args, msg);
  end
  if isempty(strfind(err, msg))
    error('%s: "run %s": message "%s" lacks "%s"', script, args, strtrim(err), msg);
  end
end
