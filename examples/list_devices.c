/* Lists every OpenCL device clip sees and marks the one an app would open by default. */
#include <stdio.h>

#include "clip/clip.h"

int main(void) {
    clip_device_info devs[32];
    size_t n = 0;
    if (clip_devices_list(devs, 32, &n) != CLIP_OK) {
        fprintf(stderr, "list_devices: %s\n", clip_app_last_error(NULL));
        return 1;
    }
    int def = 0;
    clip_device_select(NULL, &def);
    for (size_t i = 0; i < n && i < 32; i++)
        printf("%c %d %s (%s, %s, %u compute units, fp64 %s, score %.0f)\n",
               devs[i].index == def ? '*' : ' ', devs[i].index, devs[i].name, devs[i].platform,
               devs[i].version, devs[i].compute_units, devs[i].fp64 ? "yes" : "no", devs[i].score);
    printf("default choice: %s\n", clip_device_score_doc);
    return 0;
}
