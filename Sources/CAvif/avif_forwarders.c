/* The libavif functions ImagePipe and its tests call, each opening libavif on first use. */
#include "CAvif.h"

#include <library_loader.h>

const char *imagepipe_open_libavif(void) {
    const char *reason = NULL;
    return imagepipe_open_library(IMAGEPIPE_LIBAVIF, &reason) ? NULL : reason;
}

IMAGEPIPE_FORWARD(IMAGEPIPE_LIBAVIF, avifDecoder *, avifDecoderCreate, (void), ())
IMAGEPIPE_FORWARD_VOID(IMAGEPIPE_LIBAVIF, avifDecoderDestroy, (avifDecoder *a0), (a0))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBAVIF, avifResult, avifDecoderNextImage, (avifDecoder *a0), (a0))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBAVIF, avifResult, avifDecoderNthImageTiming, (const avifDecoder *a0, uint32_t a1, avifImageTiming *a2), (a0, a1, a2))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBAVIF, avifResult, avifDecoderParse, (avifDecoder *a0), (a0))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBAVIF, avifResult, avifDecoderSetIOMemory, (avifDecoder *a0, const uint8_t *a1, size_t a2), (a0, a1, a2))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBAVIF, avifResult, avifEncoderAddImage, (avifEncoder *a0, const avifImage *a1, uint64_t a2, avifAddImageFlags a3), (a0, a1, a2, a3))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBAVIF, avifEncoder *, avifEncoderCreate, (void), ())
IMAGEPIPE_FORWARD_VOID(IMAGEPIPE_LIBAVIF, avifEncoderDestroy, (avifEncoder *a0), (a0))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBAVIF, avifResult, avifEncoderFinish, (avifEncoder *a0, avifRWData *a1), (a0, a1))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBAVIF, avifResult, avifEncoderWrite, (avifEncoder *a0, const avifImage *a1, avifRWData *a2), (a0, a1, a2))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBAVIF, avifResult, avifImageAllocatePlanes, (avifImage *a0, avifPlanesFlags a1), (a0, a1))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBAVIF, avifImage *, avifImageCreate, (uint32_t a0, uint32_t a1, uint32_t a2, avifPixelFormat a3), (a0, a1, a2, a3))
IMAGEPIPE_FORWARD_VOID(IMAGEPIPE_LIBAVIF, avifImageDestroy, (avifImage *a0), (a0))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBAVIF, avifResult, avifImageRGBToYUV, (avifImage *a0, const avifRGBImage *a1), (a0, a1))
IMAGEPIPE_FORWARD_VOID(IMAGEPIPE_LIBAVIF, avifImageSetMetadataExif, (avifImage *a0, const uint8_t *a1, size_t a2), (a0, a1, a2))
IMAGEPIPE_FORWARD_VOID(IMAGEPIPE_LIBAVIF, avifImageSetMetadataXMP, (avifImage *a0, const uint8_t *a1, size_t a2), (a0, a1, a2))
IMAGEPIPE_FORWARD_VOID(IMAGEPIPE_LIBAVIF, avifImageSetProfileICC, (avifImage *a0, const uint8_t *a1, size_t a2), (a0, a1, a2))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBAVIF, avifResult, avifImageYUVToRGB, (const avifImage *a0, avifRGBImage *a1), (a0, a1))
IMAGEPIPE_FORWARD_VOID(IMAGEPIPE_LIBAVIF, avifRGBImageAllocatePixels, (avifRGBImage *a0), (a0))
IMAGEPIPE_FORWARD_VOID(IMAGEPIPE_LIBAVIF, avifRGBImageFreePixels, (avifRGBImage *a0), (a0))
IMAGEPIPE_FORWARD_VOID(IMAGEPIPE_LIBAVIF, avifRGBImageSetDefaults, (avifRGBImage *a0, const avifImage *a1), (a0, a1))
IMAGEPIPE_FORWARD_VOID(IMAGEPIPE_LIBAVIF, avifRWDataFree, (avifRWData *a0), (a0))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBAVIF, const char *, avifResultToString, (avifResult a0), (a0))
