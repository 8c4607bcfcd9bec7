/* gamma: Y = X.^g, a user's process (gamma.c). */
#ifndef GAMMA_H
#define GAMMA_H
#include <clip/clip.h>

/* Registers the process "gamma" (what the plugin's entry point does when libgamma.so is loaded).
 * Errors: clip_process_register's. */
clip_status gamma_register(void);
#endif
