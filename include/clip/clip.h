/* clip — image processing and linear algebra on OpenCL devices. The umbrella header. */
#ifndef CLIP_H
#define CLIP_H

#include "app.h"
#include "data.h"
#include "io.h"
#include "plugin.h"
#include "process.h"
#include "status.h"

#define CLIP_VERSION_MAJOR 0
#define CLIP_VERSION_MINOR 1
#define CLIP_VERSION_PATCH 0

#endif
