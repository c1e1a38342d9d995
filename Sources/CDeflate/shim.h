#ifndef IMAGEPIPE_CDEFLATE_SHIM_H
#define IMAGEPIPE_CDEFLATE_SHIM_H
#include <libdeflate.h>
#endif
