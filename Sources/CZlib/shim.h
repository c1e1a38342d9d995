#ifndef IMAGEPIPE_CZLIB_SHIM_H
#define IMAGEPIPE_CZLIB_SHIM_H
#include <zlib.h>
#endif
