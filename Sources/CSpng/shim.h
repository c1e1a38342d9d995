#ifndef IMAGEPIPE_CSPNG_SHIM_H
#define IMAGEPIPE_CSPNG_SHIM_H
#include <spng.h>
#endif
