% The gamma plugin from Octave through clip's gateway: clip.call('gamma', ...) for single, double
% and their complex forms, against Octave's own x.^g. Run with the plugin in CLIP_PLUGIN_PATH and
% the installed gateway on the path:
%   CLIP_PLUGIN_PATH=libgamma.so octave-cli --path PREFIX/share/clip/matlab gamma_octave.m
rand('seed', 5);
x = rand(30, 20) * 3;
z = complex(rand(30, 20) * 4 - 2, rand(30, 20) * 4 - 2);
cases = {single(x), 'single', 2e-5; x, 'double', 1e-12; single(z), 'complex single', 2e-5; ...
         z, 'complex double', 1e-12};
bad = 0;
for c = 1:rows(cases)
  a = cases{c, 1};
  for g = [0.5 2.5]
    y = clip.call('gamma', {a}, {'g', g});
    ref = double(a) .^ g;
    err = max(abs(double(y(:)) - ref(:)) ./ max(abs(ref(:)), realmin));
    printf('octave: gamma %s g=%.1f: class %s, largest relative error %.2e\n', cases{c, 2}, g, ...
           class(y), err);
    if !(err <= cases{c, 3}) || !strcmp(class(y), class(a)) || isreal(y) != isreal(a)
      bad = bad + 1;
    end
  end
end
% The table's open range reaches Octave as the process's error.
try
  clip.call('gamma', {x}, {'g', 0});
  bad = bad + 1;
  printf('octave: g = 0 was accepted\n');
catch err
  printf('octave: g = 0 refused: %s\n', err.message);
end
% clip.plugin: the file already loaded through CLIP_PLUGIN_PATH is skipped; a missing one is an
% error that names it.
clip.plugin(getenv('CLIP_PLUGIN_PATH'));
try
  clip.plugin('/nonexistent/libnothing.so');
  bad = bad + 1;
  printf('octave: a missing plugin was accepted\n');
catch err
  printf('octave: missing plugin refused: %s\n', err.message);
  bad = bad + isempty(strfind(err.message, 'libnothing.so'));
end
exit(bad != 0);
