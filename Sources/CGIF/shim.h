#ifndef IMAGEPIPE_CGIF_SHIM_H
#define IMAGEPIPE_CGIF_SHIM_H
#include <cgif.h>
#endif
