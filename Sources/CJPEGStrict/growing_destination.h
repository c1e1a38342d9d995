#ifndef IMAGEPIPE_GROWING_DESTINATION_H
#define IMAGEPIPE_GROWING_DESTINATION_H

#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>

/* An encoder's output, grown in memory as libjpeg fills it. Not jpeg_mem_dest: that one frees its
   buffer when it grows and tells the caller only at the end, so after an error the caller holds a
   freed pointer (a double free on every encode stopped halfway). Here the live buffer is always
   the one in `buffer`, `capacity` bytes long; the caller allocates the first one and frees the
   last. (Not in include/: the C files of this target share it; Swift does not see it.)
   With a `drain`, the buffer does not grow: each time it is full, and at the end, its bytes are
   handed to `drain` (which answers 0 on a failure) and it is filled again from the start, so an
   encoder writing to a file holds only the buffer. */
struct imagepipe_growing_destination {
    struct jpeg_destination_mgr manager;
    unsigned char *buffer;
    size_t capacity;
    int (*drain)(void *context, const unsigned char *bytes, size_t size);
    void *drain_context;
};

/* Makes `destination` (its buffer allocated) the output of `cinfo`. */
void imagepipe_growing_destination_use(j_compress_ptr cinfo, struct imagepipe_growing_destination *destination);

/* The bytes written so far (since the last drain, with one). */
size_t imagepipe_growing_destination_used(const struct imagepipe_growing_destination *destination);

#endif
