#ifndef IMAGEPIPE_DESCRIPTOR_SOURCE_H
#define IMAGEPIPE_DESCRIPTOR_SOURCE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <jpeglib.h>

/* A decoder's input read from an open file, from its start, in large chunks of our own buffer.
   Not jpeg_stdio_src: that one hands libjpeg 4 KiB at a time, and libjpeg-turbo takes its fast
   Huffman decoder only while a whole MCU's worst case (512 bytes a block, 3 KiB for 4:2:0) is
   left in the buffer, so three MCUs in four went the slow way (a decode through stdio took 3 %
   longer than one from memory, which this source now matches).
   Reads with pread from offset 0: the descriptor's own offset is neither used nor moved. A file
   that ends early gets libjpeg's premature-end warning and a fake EOI marker, as stdio's source
   does, so a cut file is told apart from damage. (Not in include/: Swift does not see it.) */
struct imagepipe_descriptor_source {
    struct jpeg_source_mgr manager;
    int descriptor;
    off_t offset;
    unsigned char *buffer;
    size_t capacity;
};

/* Makes `source` (its buffer of `capacity` bytes allocated) the input of `cinfo`. */
void imagepipe_descriptor_source_use(j_decompress_ptr cinfo, struct imagepipe_descriptor_source *source);

#endif
