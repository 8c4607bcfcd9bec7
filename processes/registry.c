/* The one place built-in processes are listed. Adding a process: one line here. */
#include "clip/process_author.h"

extern const clip_process_desc clip_process_scale;
extern const clip_process_desc clip_process_conv2;
extern const clip_process_desc clip_process_conv2sep;
extern const clip_process_desc clip_process_norm;
extern const clip_process_desc clip_process_dot;
extern const clip_process_desc clip_process_matmul;
extern const clip_process_desc clip_process_matpow;
extern const clip_process_desc clip_process_transpose;

void clip_register_builtin_processes(void);
void clip_register_builtin_processes(void) {
    static const clip_process_desc *const builtins[] = {
        &clip_process_scale,
        &clip_process_conv2,
        &clip_process_conv2sep,
        &clip_process_norm,
        &clip_process_dot,
        &clip_process_matmul,
        &clip_process_matpow,
        &clip_process_transpose,
    };
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        clip_process_register(builtins[i]);
}
