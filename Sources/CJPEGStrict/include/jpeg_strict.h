#ifndef IMAGEPIPE_JPEG_STRICT_H
#define IMAGEPIPE_JPEG_STRICT_H

#include <stddef.h>
#include "plane_resampler.h"

/* What a decode gives: the pixels and the metadata libjpeg kept. Every pointer is malloc'd (free
 * with imagepipe_jpeg_free) or NULL. */
struct imagepipe_jpeg_result {
    unsigned char *pixels;
    int width, height, rowstride;
    /* 3: RGB (a greyscale JPEG comes expanded to RGB, with grey set); 4: CMYK, 0 = no ink (the
     * inverted values Adobe's CMYK JPEGs store are turned the right way round here). */
    int channels;
    int grey;
    unsigned char *icc;  /* the ICC profile, put together from its APP2 chunks */
    size_t icc_size;
    unsigned char *exif; /* the TIFF-structured EXIF block, without its "Exif\0\0" marker */
    size_t exif_size;
    unsigned char *xmp;  /* the XMP packet of the first APP1 "http://ns.adobe.com/xap/1.0/" */
    size_t xmp_size;
    /* libjpeg's warnings below the fail-on level, which the decode went on through: how many,
     * and the first one's text (NULL when there was none). */
    int warnings;
    char *warning;
};

/* Someone reading a decode's rows while it runs, from another thread (the streamed run). Told
 * once size, layout and metadata are known and before any pixel buffer exists (started, with
 * result->pixels NULL), which answers how many rows the buffer holds: 0 for the whole picture, or
 * a ring of that many rows, row y in slot y % ring, so that memory does not grow with the picture.
 * Then told of the buffer (ready), and after each batch of rows (decoded, with how many rows of
 * the picture are done). With a ring, before writing row y the decoder asks room(context, y),
 * which returns once row y - ring is no longer needed (1), or 0 when the reader has stopped: the
 * decode then ends, returning -5. On a failure after started (failed), before the buffer, if
 * any, is freed: failed must return only once nothing reads the buffer any more. */
struct imagepipe_jpeg_watcher {
    void *context;
    int (*started)(void *context, const struct imagepipe_jpeg_result *result);
    void (*ready)(void *context, unsigned char *pixels);
    void (*decoded)(void *context, int rows);
    int (*room)(void *context, int row);
    void (*failed)(void *context);
};

/* Bounds on one decode's work, checked by libjpeg's progress monitor while it decodes: a
 * progressive JPEG of more than max_scans scans (when above 0) is refused, as libjpeg-turbo's
 * djpeg -maxscans does (10,000 tiny scans made a 341 KB file decode for minutes), and should_stop,
 * when not NULL, is asked every few rows or scans whether to give up (a deadline passed). */
struct imagepipe_jpeg_limits {
    int max_scans;
    int (*should_stop)(void *context);
    void *context;
};

/* The rectangle of the (reduced) picture a run reads, when it is less than the picture (its
 * first stage crops): the rows above it are skipped (jpeg_skip_scanlines: entropy-decoded, no
 * IDCT or color conversion), the decode stops after its last row, and only the iMCU columns
 * under it are made (jpeg_crop_scanline). Everything outside is left black; the result keeps
 * the picture's size. Ignored for a CMYK JPEG and a decode that resamples in the planes. */
struct imagepipe_jpeg_region {
    int x, y, width, height;
};

/* A decode that resamples as it decodes, in the JPEG's planes (`imagepipe_plane_resampler`):
 * once libjpeg has said the planes' sizes, plan fills each plane's x and y weights and returns
 * 1, or 0 to refuse. The picture, image_width × image_height, is decoded at 1/denominator in
 * the DCT as luma_width × luma_height (each side rounded up), which each plane covers whole at
 * its own resolution. The weights need stay valid only until plan's caller has copied them,
 * right after it returns. colors says what the planes are (IMAGEPIPE_PLANES_...). The result is
 * then the resampled picture, its size the weights' outputs. */
struct imagepipe_jpeg_resampling {
    void *context;
    int (*plan)(void *context, int count, int colors, int image_width, int image_height, int denominator,
                int luma_width, int luma_height, struct imagepipe_plane *planes);
};

/*
 * Decodes JPEG data with libjpeg, treating libjpeg's warnings as errors: corrupt entropy-coded
 * data ("bad Huffman code") and a premature end, which gdk-pixbuf's loader lets through as a
 * garbled or grey picture, fail here with libjpeg's message.
 *
 * With at_least_width/height above 0 it decodes reduced in the DCT, at the smallest of 1/2,
 * 1/4 and 1/8 that is still that large (in stored orientation). A picture of more than
 * max_pixels (when above 0) is refused from its header, returning -2. On success returns 0 and
 * fills *result. On failure returns -1 with the reason in message. fail_on says which of libjpeg's
 * warnings are errors (load fail=…): 0 none (damaged or cut data decodes as far as it goes),
 * 1 a premature end, 2 also corrupt data, 3 every warning.
 * watcher, when not NULL, is told of the rows as they come; limits, when not NULL, bound the work
 * (a decode they stop returns -3 for should_stop, -4 for too many scans, with the reason in message).
 * A decode into a ring (see the watcher) returns the ring as result->pixels, with the picture's
 * height in result->height: the caller frees it once the reader is done.
 * region, when not NULL, is the rectangle the caller reads (above).
 * resampling, when not NULL, resamples in the planes (above); a JPEG whose planes cannot be
 * (CMYK) returns -6 before the watcher hears of anything.
 */
int imagepipe_jpeg_decode(const unsigned char *data, size_t size, int at_least_width, int at_least_height,
                          long long max_pixels, int fail_on, const struct imagepipe_jpeg_limits *limits,
                          const struct imagepipe_jpeg_region *region, const struct imagepipe_jpeg_watcher *watcher, const struct imagepipe_jpeg_resampling *resampling,
                          struct imagepipe_jpeg_result *result, char *message, size_t message_size);

/* The same, streaming from the start of the file open on `descriptor` (which stays open), so
 * the compressed data is never all in memory (256 KiB of it at a time). */
int imagepipe_jpeg_decode_descriptor(int descriptor, int at_least_width, int at_least_height,
                                     long long max_pixels, int fail_on, const struct imagepipe_jpeg_limits *limits,
                                     const struct imagepipe_jpeg_region *region, const struct imagepipe_jpeg_watcher *watcher, const struct imagepipe_jpeg_resampling *resampling,
                                     struct imagepipe_jpeg_result *result, char *message, size_t message_size);

/* Frees everything a decode's result holds except the pixels (those go with the picture). */
void imagepipe_jpeg_free_metadata(struct imagepipe_jpeg_result *result);

/*
 * Encodes RGB pixels (rows of rowstride bytes) as a JPEG with libjpeg: quality 1-100 with
 * libjpeg's standard tables, chroma subsampling 420, 422 or 444, progressive or baseline, and
 * optimised Huffman tables or the standard ones. With grey set, the pixels are gray (R = G = B)
 * and are written as one gray component (libjpeg's luma of R = G = B is that value exactly). icc, exif (TIFF-structured, without the
 * "Exif\0\0" marker) and xmp are written when not NULL. On success returns 0 with the file in
 * *out (free with imagepipe_jpeg_free) and its length in *out_size; -1 with a message on failure.
 *
 * With rows_ready not NULL the rows are not all there yet: before writing a row past the ones it
 * was told of, the encoder calls rows_ready(rows_context, needed), which returns once at least
 * `needed` rows are ready and says how many are (fewer, when they will never come: the encode
 * then fails); every row before needed - 1 has then been written, and is no longer read. With
 * ring_rows above 0, pixels is a ring of that many rows: row y is read from slot y % ring_rows.
 *
 * With drain not NULL the file is not kept: its bytes are handed to drain(drain_context, bytes,
 * size) 64 KiB at a time as libjpeg makes them (drain answers 0 on a failure, which fails the
 * encode), and *out stays NULL.
 */
int imagepipe_jpeg_encode(const unsigned char *pixels, int width, int height, int rowstride, int ring_rows,
                          int quality, int subsampling, int grey, int progressive, int optimize,
                          const unsigned char *icc, size_t icc_size, const unsigned char *exif, size_t exif_size,
                          const unsigned char *xmp, size_t xmp_size,
                          int (*rows_ready)(void *rows_context, int needed), void *rows_context,
                          int (*drain)(void *drain_context, const unsigned char *bytes, size_t size), void *drain_context,
                          unsigned char **out, unsigned long *out_size, char *message, size_t message_size);

/* Frees decoded pixels; fits GdkPixbufDestroyNotify. */
void imagepipe_jpeg_free(unsigned char *pixels, void *unused);

#endif
