#ifndef IMAGEPIPE_CWEBP_SHIM_H
#define IMAGEPIPE_CWEBP_SHIM_H
#include <webp/encode.h>
#include <webp/decode.h>
#include <webp/mux.h>
#include <webp/demux.h>
#endif
