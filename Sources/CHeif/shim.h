#ifndef IMAGEPIPE_CHEIF_SHIM_H
#define IMAGEPIPE_CHEIF_SHIM_H
#include <libheif/heif.h>
#endif
