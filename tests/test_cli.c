/* The `clip` tool's contract: `clip devices` marks the default, `clip run` works on files and
 * prints `time NAME MS` with --time, `clip bench` prints and records its two clocks, and every
 * error is exactly one line on stderr with a non-zero exit status, never a crash. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static char out_text[8192], err_text[8192];

/* Runs `clip ARGS` with stdout to the file out, capturing stderr (and stdout where out is
 * cli_out.txt); returns the exit status (-1 if it crashed). */
static int run_to(const char *args, const char *out) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s >%s 2>cli_err.txt", CLIP_TOOL, args, out);
    int st = system(cmd);
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    const char *files[2] = {"cli_out.txt", "cli_err.txt"};
    char *bufs[2] = {out_text, err_text};
    out_text[0] = '\0';
    for (int i = strcmp(out, "cli_out.txt") != 0; i < 2; i++) {
        FILE *f = fopen(files[i], "r");
        size_t n = f ? fread(bufs[i], 1, sizeof out_text - 1, f) : 0;
        bufs[i][n] = '\0';
        if (f) fclose(f);
    }
    return rc;
}

static int run(const char *args) {
    return run_to(args, "cli_out.txt");
}

static int lines(const char *s) {
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* An error: non-zero, not a crash (exit codes 1 or 2), one line naming `needle`. */
static void expect_error(const char *args, const char *needle) {
    int rc = run(args);
    if (rc != 1 && rc != 2) fprintf(stderr, "clip %s: exit %d\n", args, rc);
    CHECK(rc == 1 || rc == 2);
    if (lines(err_text) != 1 || !strstr(err_text, needle))
        fprintf(stderr, "clip %s: stderr was \"%s\", want one line with \"%s\"\n", args, err_text,
                needle);
    CHECK(lines(err_text) == 1);
    CHECK(strstr(err_text, needle) != NULL);
}

/* A usage error: exit status 2 (README: "2 for usage, 1 otherwise"), one line naming needle. */
static void expect_usage(const char *args, const char *needle) {
    expect_error(args, needle);
    int rc = run(args);
    if (rc != 2) fprintf(stderr, "clip %s: exit %d, want 2 (usage)\n", args, rc);
    CHECK(rc == 2);
}

/* Output that cannot be written fails the command: exit 1 and one line saying why. */
static void expect_full(const char *args) {
    int rc = run_to(args, "/dev/full");
    if (rc != 1 || lines(err_text) != 1 || !strstr(err_text, "clip: writing the output: "))
        fprintf(stderr, "clip %s >/dev/full: exit %d, stderr \"%s\"\n", args, rc, err_text);
    CHECK(rc == 1);
    CHECK(lines(err_text) == 1);
    CHECK(strstr(err_text, "clip: writing the output: ") != NULL);
}

int main(void) {
    CHECK(run("devices") == 0);
    CHECK(strchr(out_text, '*') != NULL);
    CHECK(run("list") == 0 && strstr(out_text, "scale"));
    CHECK(run("help scale") == 0 && strstr(out_text, "--a"));

    /* A CFL file is always readable (no library needed): a 2x3 complex array. */
    clip_app *app = tu_app();
    size_t dims[2] = {2, 3};
    float v[12] = {1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0};
    clip_data *d = NULL;
    CHECK_OK(app, clip_data_create_from(app, CLIP_C32, 2, dims, v, &d));
    CHECK_OK(app, clip_save_cfl(app, "cli_in", d));

    CHECK(run("run scale cli_in.cfl --a 2 --b 1 --time --repeat 3") == 0);
    CHECK(strstr(out_text, "3+0i") && strstr(out_text, "13+0i"));
    double ms = -1;
    char name[32] = "";
    CHECK(sscanf(err_text, "time %31s %lf", name, &ms) == 2 && !strcmp(name, "scale") && ms >= 0);
    CHECK(run("run scale cli_in.cfl -o cli_out.cfl --a -1") == 0);
    clip_data *r = NULL;
    CHECK_OK(app, clip_load_cfl(app, "cli_out", &r));
    const float *h = NULL;
    CHECK_OK(app, clip_data_host(r, (const void **)&h));
    CHECK(h && h[10] == -6.0f);

    expect_error("", "usage");
    expect_error("frobnicate", "unknown command");
    expect_error("run", "usage");
    expect_error("run no_such_process x.mat", "no process named 'no_such_process'");
    expect_error("run scale", "takes 1 input");
    expect_error("run scale a.cfl b.cfl", "takes 1 input");
    expect_error("run scale a b c d e f g h i j k l m n o p q", "more than 16 inputs");
    expect_error("run scale missing_file.cfl", "missing_file");
    expect_error("run scale cli_in.cfl --nope 3", "no option --nope");
    expect_error("run scale cli_in.cfl --a", "needs a value");
    expect_error("run scale cli_in.cfl --a xyz", "expects a number");
    expect_error("run scale cli_in.cfl --repeat 0", "--repeat");
    expect_error("run scale cli_in.cfl --device no-such-device-xyz", "no-such-device-xyz");
    /* 2^32 + 1 must not wrap onto device 1. */
    expect_error("run scale cli_in.cfl --device 4294967297", "no OpenCL device matches");
    expect_error("run scale cli_in.cfl -o out.unknownext", "out.unknownext");
    expect_error("run scale cli_in.cfl -o /nonexistent-dir/out.cfl", "nonexistent-dir");
    /* A tile within every other bound whose unrolled K loop takes PoCL half a minute to build. */
    size_t sq[2] = {2, 2};
    clip_data *s = NULL;
    CHECK_OK(app, clip_data_create_from(app, CLIP_C32, 2, sq, v, &s));
    CHECK_OK(app, clip_save_cfl(app, "cli_sq", s));
    clip_data_destroy(s);
    expect_error("run matmul cli_sq.cfl cli_sq.cfl --variant tiled --mwg 32 --nwg 16 --mdimc 1 "
                 "--ndimc 1 --kwg 1024",
                 "at most 8192");
    /* and one of many accumulators in a short slice (fuzz_cli: 211 s to build) */
    expect_error("run matmul cli_sq.cfl cli_sq.cfl --variant small --mwg 10 --nwg 32 --mdimc 1 "
                 "--ndimc 1",
                 "at most 32 where");
    FILE *f = fopen("cli_bad.hdr", "w");
    fputs("# Dimensions\nnot numbers\n", f);
    fclose(f);
    f = fopen("cli_bad.cfl", "w");
    fputs("xx", f);
    fclose(f);
    expect_error("run scale cli_bad.cfl", "cli_bad");
    expect_error("help no_such_process", "no_such_process");
    expect_error("bench scale", "usage");

    /* Bad values are usage errors (2), named, whether the parameter table refuses them or only
     * the process's init does; a device spec that does not parse too, as in bench and tune. */
    expect_usage("run scale cli_in.cfl --repeat 99999999999999999999", "--repeat");
    expect_usage("run scale cli_in.cfl --repeat 3abc", "--repeat");
    expect_usage("run scale cli_in.cfl --device 0", "--device");
    expect_usage("run scale cli_in.cfl --device -1", "--device");
    expect_usage("run scale cli_in.cfl --device 1,1", "--device");
    expect_usage("run scale cli_in.cfl --device ''", "--device");
    expect_usage("run scale cli_in.cfl --a xyz", "expects a number");
    expect_usage("run matpow cli_sq.cfl --power abc", "power");
    expect_usage("run matpow cli_sq.cfl --power 2.5", "power");
    expect_usage("run matpow cli_sq.cfl --power -1", "power");
    expect_usage("run matpow cli_sq.cfl --power nan", "power");
    expect_usage("run norm cli_in.cfl --p 0", "p must be");
    /* The common options as --opt=VALUE, as the parameters take them. */
    remove("cli_eq.cfl");
    CHECK(run("run scale cli_in.cfl --a=2 --repeat=2 --time --output=cli_eq.cfl") == 0);
    f = fopen("cli_eq.cfl", "r");
    CHECK(f != NULL);
    if (f) fclose(f);
    expect_error("run scale cli_in.cfl --device=no-such-device-xyz", "no OpenCL device matches");
    expect_usage("run scale cli_in.cfl --repeat=0", "--repeat");
    expect_usage("run scale cli_in.cfl --time=1", "--time takes no value");
    expect_usage("bench scale 64x64 --repeat 3abc", "--repeat");
    expect_usage("bench scale 64x64 --repeat 99999999999999999999", "--repeat");
    expect_usage("bench scale 64x64 --repeat 0", "--repeat");
    expect_usage("bench scale 64x64 --warmup 9223372036854775807", "--warmup");
    expect_usage("bench scale 64x64 --warmup -1", "--warmup");
    expect_usage("bench scale 64x64 --rank1 -7", "--rank1");
    expect_usage("bench scale 64x64 --rank1 1", "--rank1");
    expect_usage("bench scale 5x", "bad shape '5x'");
    expect_usage("bench scale -5x4", "bad shape '-5x4'");
    expect_usage("bench scale 1x1x1x1x1x1x1x1x1", "bad shape");
    expect_usage("bench matpow 4x4 --power 2.5", "power");
    /* clip tune's errors: one line each, before any device opens or any tuning starts. */
    expect_usage("tune --bogus 1", "unknown option '--bogus'");
    expect_usage("tune --process conv2 --bogus 1", "unknown option '--bogus'");
    expect_usage("tune --budget", "needs a value");
    expect_usage("tune --device=cpu", "'--device cpu'");
    expect_usage("tune --budget 10abc", "--budget");
    expect_usage("tune --budget -1", "--budget");
    expect_usage("tune --types f33", "--types");
    expect_usage("tune --device 0", "--device");
    expect_usage("tune --shapes -5x4x4", "--shapes");
    expect_usage("tune --shapes 5x4", "--shapes");
    expect_usage("tune --process conv2 --image -1x5", "--image");
    expect_usage("tune --process conv2 --filters 3x3,-5", "--filters");
    expect_usage("tune --process conv2 --budget 1e999", "--budget");
    CHECK(run("tune --help") == 0 && strstr(out_text, "usage: clip tune"));
    /* Every command's --help prints its usage (devices: how the default is chosen, as
     * clip/app.h says), and `clip help` names every option the commands accept. */
    CHECK(run("devices --help") == 0 && strstr(out_text, "usage: clip devices") &&
          strstr(out_text, "score = "));
    CHECK(run("list --help") == 0 && strstr(out_text, "usage: clip list"));
    CHECK(run("run --help") == 0 && strstr(out_text, "usage: clip devices"));
    CHECK(run("run scale --help") == 0 && strstr(out_text, "usage: clip run scale"));
    CHECK(run("bench --help") == 0 && strstr(out_text, "usage: clip bench"));
    CHECK(run("help --help") == 0 && strstr(out_text, "usage: clip devices"));
    CHECK(run("help") == 0 && strstr(out_text, "--rank1") && strstr(out_text, "--warmup") &&
          strstr(out_text, "matmul|matpow") && strstr(out_text, "gpu:all"));
    expect_usage("devices extra", "takes no arguments");
    expect_usage("list extra", "takes no arguments");
    /* --version, and help for each command by name. */
    CHECK(run("--version") == 0 && !strncmp(out_text, "clip ", 5) && strstr(out_text, "commit: ") &&
          strstr(out_text, "formats:") && strstr(out_text, "default device: "));
    expect_usage("--version extra", "takes no arguments");
    CHECK(run("help run") == 0 && strstr(out_text, "--clamp") && strstr(out_text, "FILE.mat:NAME"));
    CHECK(run("help bench") == 0 && strstr(out_text, "usage: clip bench"));
    CHECK(run("help tune") == 0 && strstr(out_text, "usage: clip tune"));
    CHECK(run("help devices") == 0 && strstr(out_text, "usage: clip devices"));
    /* Save options and FILE:SELECTOR words that cannot apply are usage errors. */
    expect_usage("run scale cli_in.cfl -o x.png --clamp --scale", "exclude each other");
    expect_usage("run scale cli_in.cfl -o x.png --sample int64", "--sample expects");
    expect_usage("run scale cli_in.cfl -o x.png --stack rows", "--stack expects");
    expect_usage("run scale cli_in.cfl -o x.tif:2", "a page cannot be chosen for a save");
    expect_usage("run scale x.tif:0", "a page is a whole number from 1");
    expect_usage("run scale cli_in.cfl -o x.mat --sample uint8", "does not apply to this format");
    if (clip_io_has("mat")) { /* a MAT variable named on save and on load */
        CHECK(run("run scale cli_in.cfl -o cli_named.mat:first --a 2") == 0);
        CHECK(run("run scale cli_named.mat:first --a 0.5") == 0);
        char *direct = strdup(out_text);
        CHECK(run("run scale cli_in.cfl") == 0 && direct && !strcmp(direct, out_text));
        free(direct);
        expect_error("run scale cli_named.mat:nope", "no variable named 'nope': the file holds "
                                                     "first (single)");
    }

    /* A full disk under stdout fails the command instead of losing the values quietly. */
    if (access("/dev/full", W_OK) == 0) {
        expect_full("devices");
        expect_full("help");
        expect_full("run scale cli_in.cfl");
        expect_full("bench scale 64x64 --repeat 2 --no-chain");
    }

    /* clip bench: the events' median and the chain's time (a wall clock, so above 0) on one
     * line, and the same two in its CSV row's fifth and eighth fields. */
    remove("cli_bench.csv");
    CHECK(run("bench scale 64x64 --repeat 3 --csv cli_bench.csv") == 0);
    const char *med_at = strstr(out_text, " median_ms="),
               *chain_at = strstr(out_text, " chain_ms=");
    double med = -1, chain = -1, csv_med = -2, csv_chain = -2;
    CHECK(med_at && sscanf(med_at, " median_ms=%lf", &med) == 1 && med >= 0);
    CHECK(chain_at && sscanf(chain_at, " chain_ms=%lf", &chain) == 1 && chain > 0);
    f = fopen("cli_bench.csv", "r");
    char row[512] = "";
    CHECK(f && fgets(row, sizeof row, f));
    if (f) fclose(f);
    CHECK(sscanf(row, "scale,64x64,f32,%*[^,],%lf,%*f,%*f,%lf", &csv_med, &csv_chain) == 2);
    CHECK(fabs(csv_med - med) < 1e-4 && fabs(csv_chain - chain) < 1e-4);
    /* --no-chain: no chain_ms on the line, and the row's eighth field empty (still 8 fields). */
    remove("cli_bench.csv");
    CHECK(run("bench scale 64x64 --repeat 3 --no-chain --csv cli_bench.csv") == 0);
    CHECK(strstr(out_text, " median_ms=") && !strstr(out_text, " chain_ms="));
    f = fopen("cli_bench.csv", "r");
    row[0] = '\0';
    CHECK(f && fgets(row, sizeof row, f));
    if (f) fclose(f);
    int commas = 0;
    for (const char *c = row; *c; c++)
        commas += *c == ',';
    size_t len = strlen(row);
    CHECK(commas == 7 && len >= 2 && !strcmp(row + len - 2, ",\n"));
    /* A CSV that cannot be appended to fails the run and names the file. */
    CHECK(run("bench scale 64x64 --repeat 3 --no-chain --csv no_such_dir/b.csv") == 1);
    CHECK(strstr(err_text, "cannot append to no_such_dir/b.csv") != NULL);

    clip_data_destroy(d);
    clip_data_destroy(r);
    clip_app_destroy(app);
    return tu_finish("test_cli");
}
