/* `clip bench` subcommand (tools/bench.c). */
#ifndef CLIP_TOOLS_BENCH_H
#define CLIP_TOOLS_BENCH_H
/* argv[0] is the process name. Returns the exit status. */
int clip_bench_main(int argc, char **argv);
#endif
