#include "growing_destination.h"

#include <stdlib.h>
#include <jerror.h>

static void growing_start(j_compress_ptr cinfo) {
    struct imagepipe_growing_destination *destination = (struct imagepipe_growing_destination *)cinfo->dest;
    destination->manager.next_output_byte = destination->buffer;
    destination->manager.free_in_buffer = destination->capacity;
}

/* Called when the buffer is full: drained, or twice the room with the bytes so far kept. */
static boolean growing_grow(j_compress_ptr cinfo) {
    struct imagepipe_growing_destination *destination = (struct imagepipe_growing_destination *)cinfo->dest;
    size_t used = destination->capacity;
    if (destination->drain) {
        if (!destination->drain(destination->drain_context, destination->buffer, used)) ERREXIT(cinfo, JERR_FILE_WRITE);
        destination->manager.next_output_byte = destination->buffer;
        destination->manager.free_in_buffer = destination->capacity;
        return TRUE;
    }
    if (used > ((size_t)-1) / 2) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    size_t larger = used * 2;
    unsigned char *grown = realloc(destination->buffer, larger);
    if (!grown) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    destination->buffer = grown;
    destination->capacity = larger;
    destination->manager.next_output_byte = grown + used;
    destination->manager.free_in_buffer = larger - used;
    return TRUE;
}

/* The bytes left in the buffer go to the drain, when there is one. */
static void growing_end(j_compress_ptr cinfo) {
    struct imagepipe_growing_destination *destination = (struct imagepipe_growing_destination *)cinfo->dest;
    size_t used = imagepipe_growing_destination_used(destination);
    if (!destination->drain || used == 0) return;
    if (!destination->drain(destination->drain_context, destination->buffer, used)) ERREXIT(cinfo, JERR_FILE_WRITE);
    destination->manager.next_output_byte = destination->buffer;
    destination->manager.free_in_buffer = destination->capacity;
}

void imagepipe_growing_destination_use(j_compress_ptr cinfo, struct imagepipe_growing_destination *destination) {
    destination->manager.init_destination = growing_start;
    destination->manager.empty_output_buffer = growing_grow;
    destination->manager.term_destination = growing_end;
    cinfo->dest = &destination->manager;
}

size_t imagepipe_growing_destination_used(const struct imagepipe_growing_destination *destination) {
    return destination->capacity - destination->manager.free_in_buffer;
}
