/* Writes the seed corpus of fuzz_cli: `cli_seeds DIR` -> DIR/cli-NNN, one argv each in
 * fuzz_cli.c's form (every word ended by a 0 byte, the process name first). The command lines
 * are those of tests/test_cli.c, matlab/check_*.m and the README, then the same options with
 * values at the edges of what strtod/strtol and the tables accept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_WORDS 24

/* Each line: words up to a NULL. */
static const char *const lines[][MAX_WORDS] = {
    /* tests/test_cli.c */
    {"scale", "cli_in.cfl", "--a", "2", "--b", "1", "--time", "--repeat", "3", NULL},
    {"scale", "cli_in.cfl", "-o", "cli_out.cfl", "--a", "-1", NULL},
    {"no_such_process", "x.mat", NULL},
    {"scale", NULL},
    {"scale", "a.cfl", "b.cfl", NULL},
    {"scale", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q",
     NULL},
    {"scale", "cli_in.cfl", "--nope", "3", NULL},
    {"scale", "cli_in.cfl", "--a", NULL},
    {"scale", "cli_in.cfl", "--a", "xyz", NULL},
    {"scale", "cli_in.cfl", "--repeat", "0", NULL},
    {"scale", "cli_in.cfl", "--device", "no-such-device-xyz", NULL},
    {"scale", "cli_in.cfl", "-o", "out.unknownext", NULL},
    /* README */
    {"matmul", "A.mat", "B.mat", "-o", "C.mat", NULL},
    {"matpow", "A.mat", "--power", "13", "-o", "C.mat", NULL},
    {"norm", "v.mat", "--p", "inf", "-o", "n.mat", NULL},
    {"dot", "a.mat", "b.mat", "-o", "d.mat", NULL},
    {"conv2", "IMG", "K.mat", "-o", "OUT", "--shape", "valid", "--pad", "circular", "--correlate",
     "--normalize", NULL},
    {"scale", "x.mat", "--device", "cpu", "--time", "--repeat", "5", NULL},
    /* matlab/check_*.m */
    {"conv2", "a.mat", "k.mat", "-o", "out.mat", "--shape", "same", NULL},
    {"conv2", "a.mat", "k.mat", "--shape", "middle", NULL},
    {"conv2", "a.mat", "k.mat", "--pad", "mirror", NULL},
    {"conv2", "a", "k", "--shape", "same", "--pad", "symmetric", "--variant", "local", NULL},
    {"conv2", "a", "k", "--correlate", "--shape", "valid", "--variant", "global", NULL},
    {"conv2", "a", "k", "--shape", "full", "--variant", "block", NULL},
    {"conv2", "a", "k", "--shape", "same", "--pad", "symmetric", "--correlate", NULL},
    {"conv2", "a", "k", "--shape", "same", "--normalize", NULL},
    {"conv2", "a", "k", "--variant", "fft", "--shape", "same", "--pad", "replicate", "--correlate",
     NULL},
    {"conv2", "a", "k", "--separable", "on", "--shape", "full", "--pad", "circular", NULL},
    {"conv2", "a", "k", "-o", "c.mat", "--separable", "off", NULL},
    {"dot", "a", "b", "--variant", "vector16", NULL},
    {"dot", "a", "b", "--local", "256", "--unroll", "2", NULL},
    {"dot", "a", "b", "--local", "64", "--unroll", "3", "--groups", "1", NULL},
    {"dot", "a", "b", "--unroll", "8", "--sum", "plain", NULL},
    {"dot", "a", "b", "--variant", "huge", NULL},
    {"dot", "a", "b", "--local", "6", NULL},
    {"scale", "in.mat", "-o", "out.mat", "--a", "0.5", "--b", "3", NULL},
    {"matmul", "a", "b", "--variant", "tiled", "--mwg", "32", "--nwg", "16", "--kwg", "8",
     "--mdimc", "4", "--ndimc", "4", "--ksplit", "3", NULL},
    {"matmul", "a",       "b", "--variant", "tiled", "--mwg", "16", "--nwg",    "32", "--kwg",
     "4",      "--mdimc", "4", "--ndimc",   "4",     "--vwn", "4",  "--stages", "1",  NULL},
    {"matmul", "a", "b", "--variant", "fastest", NULL},
    {"matmul", "a", "b", "--variant", "direct", "--vw", "3", NULL},
    {"matmul", "a", "b", "--variant", "direct", "--ksplit", "2", NULL},
    {"matmul", "a", "b", "--variant", "tiled", "--stages", "3", NULL},
    {"matmul", "a", "b", "--variant", "tiled", "--stages", "4", NULL},
    {"matmul", "a", "b", "--variant", "small", NULL},
    {"matpow", "a", "--power", "0", NULL},
    {"matpow", "a", "--power", "2.5", NULL},
    {"matpow", "a", "--power", "13", "--variant", "direct", NULL},
    {"norm", "v", "--p", "3", NULL},
    {"norm", "v", "--p", "1", "--variant", "scalar", NULL},
    {"norm", "v", "--p", "-inf", NULL},
    {"norm", "v", "--p", "2.5", "--method", "twopass", NULL},
    {"norm", "v", "--p", "4", "--unroll", "2", "--local", "64", "--groups", "2", NULL},
    /* '=' forms, bare and repeated flags, '--' alone, empty words */
    {"scale", "x", "--a=2", "--b", "-1", NULL},
    {"scale", "x", "--a=", "--b=", NULL},
    {"scale", "x", "--=3", NULL},
    {"scale", "x", "--a=--b", NULL},
    {"scale", "--", NULL},
    {"scale", "x", "--", NULL},
    {"scale", "", NULL},
    {"scale", "x", "--a", "", NULL},
    {"conv2", "a", "k", "--correlate=yes", "--normalize=off", NULL},
    {"conv2", "a", "k", "--correlate", "maybe", NULL},
    {"conv2", "a", "k", "--shape=", NULL},
    {"scale", "x", "--time", "--time", "--a", "1", "--a", "2", NULL},
    {"", NULL},
    {"norm", NULL},
    /* numbers at the edges */
    {"scale", "x", "--a", "nan", "--b", "inf", NULL},
    {"scale", "x", "--a", "1e400", "--b", "-1e-400", NULL},
    {"scale", "x", "--a", "-0", "--b", "0x1p-1074", NULL},
    {"scale", "x", "--a", "-INFINITY", "--b", "NaN(123)", NULL},
    {"scale", "x", "--a", " 2", "--b", "2 ", NULL},
    {"matpow", "a", "--power", "1e400", NULL},
    {"matpow", "a", "--power", "nan", NULL},
    {"matpow", "a", "--power", "-1", NULL},
    {"matpow", "a", "--power", "9223372036854775807", NULL},
    {"matpow", "a", "--power", "1e18", NULL},
    {"norm", "v", "--p", "nan", NULL},
    {"norm", "v", "--p", "0.5", NULL},
    {"norm", "v", "--p", "1e308", NULL},
    {"matmul", "a", "b", "--mwg", "99999999999999999999", NULL},
    {"matmul", "a", "b", "--mwg", "-1", "--nwg", "1025", NULL},
    {"matmul", "a", "b", "--variant", "direct", "--mwg", "8", "--nwg", "8", "--mdimc", "2",
     "--ndimc", "2", "--vw", "4", NULL},
    {"dot", "a", "b", "--local", "0x40", NULL},
    {"dot", "a", "b", "--groups", "64", "--unroll", "8", "--local", "1024", NULL},
    {"scale", "x", "--repeat", "99999999999999999999", NULL},
    {"scale", "x", "--repeat", "-1", NULL},
    {"scale", "x", "--repeat", "1x", NULL},
    {"scale", "x", "--repeat", "", NULL},
    {"scale", "x", "--device", "0", NULL},
    {"scale", "x", "--device", "4294967297", NULL},
    {"scale", "x", "--device", "gpu", NULL},
    {"scale", "x", "--device", "", NULL},
    {"scale", "x", "-o", NULL},
    {"scale", "x", "--output", "y.mat", "-o", "z.mat", NULL},
};

static int write_words(const char *dir, int index, const char *const *words, int n) {
    char path[512];
    snprintf(path, sizeof path, "%s/cli-%03d", dir, index);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return 1;
    }
    for (int i = 0; i < n; i++)
        fwrite(words[i], 1, strlen(words[i]) + 1, f);
    return fclose(f) != 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: cli_seeds DIR\n");
        return 2;
    }
    mkdir(argv[1], 0777);
    int n = 0, err = 0;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        int w = 0;
        while (w < MAX_WORDS && lines[i][w])
            w++;
        err |= write_words(argv[1], n++, lines[i], w);
    }
    /* Long words: a process name, an option name (plain and '=' form) and a value of 4000
     * characters, past any fixed buffer a parser might keep. */
    static char lng[4001], eq[4010];
    memset(lng, 'a', sizeof lng - 1);
    snprintf(eq, sizeof eq, "--%s=1", lng);
    const char *long_name[] = {lng, "x"};
    const char *long_opt[] = {"scale", "x", eq};
    char dashed[4003];
    snprintf(dashed, sizeof dashed, "--%s", lng);
    const char *long_bare[] = {"scale", "x", dashed, "1"};
    const char *long_value[] = {"conv2", "a", "k", "--shape", lng};
    err |= write_words(argv[1], n++, long_name, 2);
    err |= write_words(argv[1], n++, long_opt, 3);
    err |= write_words(argv[1], n++, long_bare, 4);
    err |= write_words(argv[1], n++, long_value, 5);
    /* Many words: 300 bare flags. */
    const char *many[302] = {"conv2", "a"};
    for (int i = 2; i < 302; i++)
        many[i] = "--correlate";
    err |= write_words(argv[1], n++, many, 302);
    printf("cli_seeds: %d seeds in %s\n", n, argv[1]);
    return err;
}
