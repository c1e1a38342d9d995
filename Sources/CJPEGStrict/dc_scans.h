#ifndef IMAGEPIPE_DC_SCANS_H
#define IMAGEPIPE_DC_SCANS_H

#include <stddef.h>
#include <stdio.h> /* before jpeglib.h (through jpeg_strict.h), which uses FILE */

#include "jpeg_strict.h"

/* A progressive JPEG's bytes without the AC scans of the components listed in `dc_only` (their
   component identifiers, `count` of them), for a decode that makes those components with a 1x1
   inverse DCT (at 1/8 of the size, luma; libjpeg-turbo makes 4:2:0 chroma at 1/8 with a 2x2 one,
   which reads AC coefficients): that IDCT reads only each block's DC coefficient, so those AC
   scans (most of a progressive file's bytes, and most of its Huffman decoding) make nothing the
   decode uses. Every marker segment, the DC scans and the other components' AC scans are kept as
   they are, in order; a dropped scan's header and data are passed over by a byte scan for the next
   marker (an AC scan holds one component). A file cut short ends where its bytes end, so libjpeg
   still sees it end early.

   The input is `data` (`size` bytes) when `descriptor` is negative, else the open file, read with
   pread from its start. `limits`' should_stop (when given) is asked every megabyte. Returns the
   kept bytes (malloc'd; their count in *length), or NULL when memory runs out, the file cannot be
   read or it is time to stop: then the file is decoded whole, and that decode stops as it does.
   (Not in include/: Swift does not see it.) */
unsigned char *imagepipe_jpeg_dc_scans(int descriptor, const unsigned char *data, size_t size, const int *dc_only, int count,
                                       const struct imagepipe_jpeg_limits *limits, size_t *length);

#endif
