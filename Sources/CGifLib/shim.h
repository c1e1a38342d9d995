#ifndef IMAGEPIPE_CGIFLIB_SHIM_H
#define IMAGEPIPE_CGIFLIB_SHIM_H
#include <gif_lib.h>
#endif
