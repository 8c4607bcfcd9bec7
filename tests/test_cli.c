/* The `clip` tool's contract: `clip devices` marks the default, `clip run` works on files and
 * prints `time NAME MS` with --time, `clip bench` prints and records its two clocks, and every
 * error is exactly one line on stderr with a non-zero exit status, never a crash. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "testutil.h"

static char out_text[8192], err_text[8192];

/* Runs `clip ARGS`, capturing stdout and stderr; returns the exit status (-1 if it crashed). */
static int run(const char *args) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s >cli_out.txt 2>cli_err.txt", CLIP_TOOL, args);
    int st = system(cmd);
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    const char *files[2] = {"cli_out.txt", "cli_err.txt"};
    char *bufs[2] = {out_text, err_text};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "r");
        size_t n = f ? fread(bufs[i], 1, sizeof out_text - 1, f) : 0;
        bufs[i][n] = '\0';
        if (f) fclose(f);
    }
    return rc;
}

static int lines(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* An error: non-zero, not a crash (exit codes 1 or 2), one line naming `needle`. */
static void expect_error(const char *args, const char *needle) {
    int rc = run(args);
    if (rc != 1 && rc != 2) fprintf(stderr, "clip %s: exit %d\n", args, rc);
    CHECK(rc == 1 || rc == 2);
    if (lines(err_text) != 1 || !strstr(err_text, needle))
        fprintf(stderr, "clip %s: stderr was \"%s\", want one line with \"%s\"\n", args, err_text, needle);
    CHECK(lines(err_text) == 1);
    CHECK(strstr(err_text, needle) != NULL);
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
