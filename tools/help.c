/* The clip tool's usage, command help and version (help.h). */
#include "help.h"

#include <string.h>

#include "bench.h"
#include "clip/clip.h"
#include "clip_commit.h"
#include "tune.h"

int help_usage(FILE *f) {
    if (f == stderr) {
        fprintf(stderr, "clip: usage: clip devices | list | help [NAME] | run NAME IN... [-o OUT] "
                        "[--PARAM V]... | bench NAME SHAPE... | tune | --version (clip help for "
                        "more)\n");
        return 2;
    }
    fprintf(f,
            "usage: clip devices\n"
            "       clip run NAME IN... [-o OUT] [--PARAM VALUE]... [--device SPEC] [--time] "
            "[--repeat R]\n"
            "                [--sample TYPE] [--clamp | --scale] [--stack pages|channels] "
            "(clip help run)\n"
            "       " CLIP_BENCH_SYNOPSIS "\n"
            "       clip tune [--device SPEC] [--budget SECONDS] [--process matmul|matpow] "
            "[--types T,...] [--shapes MxNxK,...]\n"
            "       clip tune --process conv2 [--device SPEC] [--budget SECONDS] [--types T,...] "
            "[--filters 3x3,7x7,...] [--image RxC]\n"
            "       clip help [NAME | run | bench | tune | devices | list]\n"
            "       clip list\n"
            "       clip --version\n"
            "       clip --plugin FILE COMMAND ...  (processes from a plugin; also "
            "CLIP_PLUGIN_PATH)\n"
            "Without -o (or --output), run prints the output's values. Options of run also take "
            "--opt=VALUE.\n"
            "SPEC: gpu | cpu | index | name substring, or several devices: all | gpu:all | 1,2.\n"
            "Formats by extension: .mat .tif/.tiff .png .cfl; FILE.mat:NAME picks a variable, "
            "FILE.tif:N a page (clip help run).\n");
    return 0;
}

static void help_run(void) {
    help_usage(stdout);
    printf(
        "\nclip run NAME IN... [-o OUT]: loads the inputs, runs process NAME, saves or prints the "
        "outputs.\n"
        "  clip run NAME --help (or clip help NAME) lists the process's inputs and parameters.\n"
        "\nFiles (by extension, case-insensitive):\n"
        "  .mat         MAT 5 or 7.3. An input is the first numeric variable, or the one named:\n"
        "               FILE.mat:NAME. An output holds one variable, 'result' unless -o "
        "FILE.mat:NAME.\n"
        "               Struct, cell, char and sparse variables are not loaded (the message "
        "lists what\n"
        "               the file holds).\n"
        "  .tif .tiff   Pages stack along the last dimension; FILE.tif:N loads page N alone "
        "(needed where\n"
        "               the pages differ in size, e.g. a thumbnail). A palette TIFF loads its "
        "indices.\n"
        "  .png         rows x cols x 1..4 channels; a palette PNG loads as RGB(A). An animated "
        "PNG is\n"
        "               refused unless FILE.png:1 asks for its default image alone.\n"
        "  .cfl         BART's pair base.cfl + base.hdr, complex float.\n"
        "\nSaving images (PNG, TIFF): values are kept exactly or the save is refused.\n"
        "  The sample type, unless --sample says: whole numbers -> the narrowest integer type "
        "holding them all\n"
        "  (uint8 0..255, int8, uint16 0..65535, int16, uint32, int32; PNG: uint8 and uint16 "
        "only); anything\n"
        "  else -> float in TIFF (32-bit for single data, 64-bit for double) and an error in "
        "PNG.\n"
        "  --sample uint8|uint16|uint32|int8|int16|int32|float32|float64   store this type (PNG: "
        "uint8, uint16).\n"
        "                 Values it cannot hold (out of range, fractional, NaN) are an error "
        "naming how\n"
        "                 many and the range, and no file is written.\n"
        "  --clamp        clamp to the range, round to nearest, NaN -> 0 (uint16 unless --sample "
        "or the\n"
        "                 values fit a narrower type); says on stderr what it changed.\n"
        "  --scale        map the values' [min, max] linearly onto the whole range (uint16 unless "
        "--sample),\n"
        "                 then round; says on stderr what it did.\n"
        "  --stack pages|channels   what a TIFF's third dimension is: by default 3 or 4 are RGB / "
        "RGBA\n"
        "                 channels and any other size is pages (rows x cols x C x P: P pages of C "
        "channels).\n"
        "\nCommon options: --device SPEC, --time (device ms per process on stderr), --repeat R.\n");
}

int help_command(const char *name) {
    if (!strcmp(name, "run")) {
        help_run();
        return 0;
    }
    static char help[] = "--help";
    char *argv[] = {help, NULL};
    if (!strcmp(name, "bench")) return clip_bench_main(1, argv);
    if (!strcmp(name, "tune")) return clip_tune_main(1, argv);
    if (!strcmp(name, "help")) return help_usage(stdout);
    return -1;
}

int help_version(void) {
    printf("clip %s\ncommit: %s\nbuilt with: %s\nformats:", CLIP_VERSION_STRING, CLIP_COMMIT,
           CLIP_BUILT_WITH[0] ? CLIP_BUILT_WITH : "(no optional dependency)");
    static const char *const formats[] = {"tiff", "png", "mat", "mat73", "cfl"};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (clip_io_has(formats[i])) printf(" %s", formats[i]);
    clip_device_info devs[64];
    size_t n = 0;
    int def = -1;
    if (clip_devices_list(devs, 64, &n) != CLIP_OK || clip_device_select(NULL, &def) != CLIP_OK) {
        printf("\ndefault device: none (%s)\n", clip_app_last_error(NULL));
        return 0;
    }
    for (size_t i = 0; i < n && i < 64; i++)
        if (devs[i].index == def)
            printf("\ndefault device: %d %s | %s | %s\n", def, devs[i].name, devs[i].platform,
                   devs[i].version);
    return 0;
}
