/* `clip bench` subcommand (tools/bench.c). */
#ifndef CLIP_TOOLS_BENCH_H
#define CLIP_TOOLS_BENCH_H
/* argv[0] is the process name. Returns the exit status. */
int clip_bench_main(int argc, char **argv);

/* Its synopsis, for its own usage and the tool's. */
#define CLIP_BENCH_SYNOPSIS                                                                        \
    "clip bench NAME SHAPE... [--type T] [--PARAM V]... [--repeat R] [--warmup W] "                \
    "[--device SPEC] [--csv FILE] [--rank1 I] [--no-chain]"
#endif
