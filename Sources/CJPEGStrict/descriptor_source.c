#include "descriptor_source.h"

#include <errno.h>
#include <unistd.h>
#include <jerror.h>

static void descriptor_start(j_decompress_ptr cinfo) {
    struct imagepipe_descriptor_source *source = (struct imagepipe_descriptor_source *)cinfo->src;
    source->offset = 0;
}

static boolean descriptor_fill(j_decompress_ptr cinfo) {
    struct imagepipe_descriptor_source *source = (struct imagepipe_descriptor_source *)cinfo->src;
    ssize_t count;
    do {
        count = pread(source->descriptor, source->buffer, source->capacity, source->offset);
    } while (count < 0 && errno == EINTR);
    if (count < 0) ERREXIT(cinfo, JERR_FILE_READ);
    if (count == 0) {
        if (source->offset == 0) ERREXIT(cinfo, JERR_INPUT_EMPTY);
        /* The file ended before the picture: say so, then end it, as libjpeg's own sources do. */
        WARNMS(cinfo, JWRN_JPEG_EOF);
        source->buffer[0] = (JOCTET)0xFF;
        source->buffer[1] = (JOCTET)JPEG_EOI;
        count = 2;
    } else {
        source->offset += count;
    }
    source->manager.next_input_byte = source->buffer;
    source->manager.bytes_in_buffer = (size_t)count;
    return TRUE;
}

static void descriptor_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *manager = cinfo->src;
    if (count <= 0) return;
    while (count > (long)manager->bytes_in_buffer) {
        count -= (long)manager->bytes_in_buffer;
        (void)(*manager->fill_input_buffer)(cinfo);
    }
    manager->next_input_byte += (size_t)count;
    manager->bytes_in_buffer -= (size_t)count;
}

static void descriptor_end(j_decompress_ptr cinfo) { (void)cinfo; }

void imagepipe_descriptor_source_use(j_decompress_ptr cinfo, struct imagepipe_descriptor_source *source) {
    source->manager.init_source = descriptor_start;
    source->manager.fill_input_buffer = descriptor_fill;
    source->manager.skip_input_data = descriptor_skip;
    source->manager.resync_to_restart = jpeg_resync_to_restart;
    source->manager.term_source = descriptor_end;
    source->manager.bytes_in_buffer = 0;
    source->manager.next_input_byte = NULL;
    cinfo->src = &source->manager;
}
