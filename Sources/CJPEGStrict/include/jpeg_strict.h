#ifndef IMAGEPIPE_JPEG_STRICT_H
#define IMAGEPIPE_JPEG_STRICT_H

#include <stddef.h>

/*
 * Decodes JPEG data with libjpeg, treating libjpeg's warnings as errors: corrupt entropy-coded
 * data ("bad Huffman code") and a premature end, which gdk-pixbuf's loader lets through as a
 * garbled or grey picture, fail here with libjpeg's message.
 *
 * With at_least_width/height above 0 it decodes reduced in the DCT, at the smallest of 1/2,
 * 1/4 and 1/8 that is still that large (in stored orientation). A picture of more than
 * max_pixels (when above 0) is refused from its header, returning -2. On success returns 0 and
 * sets *pixels (RGB, rows of *rowstride bytes, free with imagepipe_jpeg_free), *width, *height.
 * On failure returns -1 with the reason in message; returns 1 when the data needs gdk-pixbuf's
 * own loader instead (CMYK, which libjpeg cannot turn into RGB). With tolerant set, libjpeg's
 * warnings are not errors: damaged or cut data decodes as far as it goes (load fail=false).
 */
int imagepipe_jpeg_decode(const unsigned char *data, size_t size, int at_least_width, int at_least_height,
                          long long max_pixels, int tolerant, unsigned char **pixels, int *width, int *height, int *rowstride,
                          char *message, size_t message_size);

/* The same, streaming from a file, so the compressed data is never all in memory. */
int imagepipe_jpeg_decode_file(const char *path, int at_least_width, int at_least_height,
                               long long max_pixels, int tolerant, unsigned char **pixels, int *width, int *height, int *rowstride,
                               char *message, size_t message_size);

/* Frees decoded pixels; fits GdkPixbufDestroyNotify. */
void imagepipe_jpeg_free(unsigned char *pixels, void *unused);

#endif
