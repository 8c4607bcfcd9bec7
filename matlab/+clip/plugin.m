function plugin(file)
% clip.plugin  Load the processes of a plugin (a shared object built against clip's shared
%   library; docs/writing-a-process.md says how to write one).
%   clip.plugin(FILE), then clip.call('NAME', {IN...}, {PARAM, VALUE, ...}) runs its processes.
%   The plugins named in the environment variable CLIP_PLUGIN_PATH need no call: clip.call
%   loads them. Loading a file twice does nothing; plugins stay loaded until Octave exits.
  clip.Array.mex('plugin', file);
end
