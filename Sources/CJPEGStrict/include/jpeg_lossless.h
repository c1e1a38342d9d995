#ifndef IMAGEPIPE_JPEG_LOSSLESS_H
#define IMAGEPIPE_JPEG_LOSSLESS_H

#include <stddef.h>
#include "jpeg_strict.h" /* struct imagepipe_jpeg_limits */

/* What a lossless transform does to the picture, as seen after decoding (clockwise turns). */
enum imagepipe_jpeg_lossless_op {
    IMAGEPIPE_LOSSLESS_NONE = 0,      /* coefficients copied as they are (metadata-only changes) */
    IMAGEPIPE_LOSSLESS_ROTATE_90 = 1,
    IMAGEPIPE_LOSSLESS_ROTATE_180 = 2,
    IMAGEPIPE_LOSSLESS_ROTATE_270 = 3,
    IMAGEPIPE_LOSSLESS_FLIP = 4,      /* top to bottom (mirror about the horizontal axis) */
    IMAGEPIPE_LOSSLESS_FLOP = 5,      /* left to right (mirror about the vertical axis) */
    IMAGEPIPE_LOSSLESS_TRANSPOSE = 6, /* about the top-left to bottom-right diagonal */
    IMAGEPIPE_LOSSLESS_TRANSVERSE = 7 /* about the top-right to bottom-left diagonal */
};

/* Return codes */
#define IMAGEPIPE_LOSSLESS_OK 0
#define IMAGEPIPE_LOSSLESS_FAILED (-1)        /* libjpeg error or damaged data: message says why */
#define IMAGEPIPE_LOSSLESS_NOT_PERFECT (-2)   /* the transform or crop would need partial iMCU blocks: message says which side and the iMCU size */
#define IMAGEPIPE_LOSSLESS_STOPPED (-3)       /* limits->should_stop said to stop (a deadline passed) */
#define IMAGEPIPE_LOSSLESS_REFUSED (-4)       /* the file is refused whatever is done with it: more scans than limits->max_scans */

struct imagepipe_jpeg_lossless_crop { int x, y, width, height; }; /* in the OUTPUT picture's pixels, i.e. after the op */

/* With trim: the pixels of the picture asked for (the turned picture, or the crop of it) that were
   dropped at its left and top, where a trim drops them (the right and bottom are never trimmed). */
struct imagepipe_jpeg_lossless_trim { int left, top; };

/*
 * Turns, mirrors and crops a JPEG without decoding it, by moving its DCT coefficient blocks, as
 * jpegtran -perfect does: the result holds the same coefficients, so nothing is lost to a second
 * quantization. Only a transform that keeps every partial block at the right or bottom edge is
 * done; any other returns IMAGEPIPE_LOSSLESS_NOT_PERFECT, and the caller decodes and re-encodes
 * instead. The iMCU, the unit that must divide the sides, is 8 pixels times the largest sampling
 * factor on that axis (16x16 for 4:2:0, 16x8 for 4:2:2, 8x16 for 4:4:0, 32x8 for 4:1:1; 8x8 for
 * greyscale, 4:4:4 and CMYK, and whenever all components are sampled alike). The input's width
 * must be a multiple of it for FLOP, ROTATE_180, ROTATE_270 and TRANSVERSE, its height for FLIP,
 * ROTATE_90, ROTATE_180 and TRANSVERSE, neither for NONE and TRANSPOSE. A crop must start on the
 * output's iMCU grid (the input's, with width and height swapped, after a quarter turn, TRANSPOSE
 * or TRANSVERSE); its size is free.
 *
 * With trim, as jpegtran -trim: a mirrored side that is not a multiple of the iMCU loses its partial
 * iMCU (which would land at the output's left or top), and a crop's corner moves right and down to
 * the next iMCU boundary of what is left (its far edges stay), so the transform is always exact and
 * the picture a few pixels smaller; *trimmed (when not NULL) says how many pixels went at the left
 * and the top. Only a picture or a crop that holds no whole iMCU is still refused.
 *
 * None of the input's markers is kept: icc, exif (TIFF-structured, without "Exif\0\0") and xmp,
 * each written when not NULL (exif and xmp only when they fit one 64 KiB marker), are all the
 * metadata the output has, besides libjpeg's JFIF header (or, for CMYK, the Adobe marker when the
 * input had one). A progressive input gives a progressive output. Corrupt or cut data,
 * which libjpeg only warns of, fails; so does an input whose coefficients need more than 4 GiB.
 * A picture of more than max_pixels (when above 0) is refused from its header
 * (IMAGEPIPE_LOSSLESS_FAILED). With limits (may be NULL): an input of more than max_scans scans
 * is refused before any is read (IMAGEPIPE_LOSSLESS_REFUSED), and should_stop is asked every few
 * steps of reading and writing the coefficients (IMAGEPIPE_LOSSLESS_STOPPED).
 *
 * On IMAGEPIPE_LOSSLESS_OK, *out is the new file (malloc'd: free with free() or
 * imagepipe_jpeg_free) and *out_size its length; otherwise *out is NULL and message says why.
 */
int imagepipe_jpeg_lossless_transform(const unsigned char *data, size_t size,
                                      int op, const struct imagepipe_jpeg_lossless_crop *crop /* NULL: none */,
                                      int trim, /* drop the partial blocks that cannot move, as jpegtran -trim, rather than refuse */
                                      struct imagepipe_jpeg_lossless_trim *trimmed, /* what the trim dropped; may be NULL */
                                      long long max_pixels, /* refuse pictures with more pixels than this (header check before any coefficient is read); <= 0: no limit */
                                      const struct imagepipe_jpeg_limits *limits, /* NULL: none */
                                      const unsigned char *icc, size_t icc_size,   /* written with jpeg_write_icc_profile; NULL: none */
                                      const unsigned char *exif, size_t exif_size, /* TIFF-structured block WITHOUT the "Exif\0\0" prefix; written as APP1 "Exif\0\0"+data when it fits one marker; NULL: none */
                                      const unsigned char *xmp, size_t xmp_size,   /* XMP packet; written as APP1 "http://ns.adobe.com/xap/1.0/\0"+data when it fits; NULL: none */
                                      unsigned char **out, unsigned long *out_size, /* malloc'd on success; free with free() or the existing imagepipe_jpeg_free */
                                      char *message, size_t message_size);

#endif
