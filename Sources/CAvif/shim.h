#ifndef IMAGEPIPE_CAVIF_SHIM_H
#define IMAGEPIPE_CAVIF_SHIM_H
#include <avif/avif.h>
#endif
