#include "dc_scans.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The input, a byte at a time, from memory or through a buffer of the file. */
struct reader {
    int descriptor;
    const unsigned char *data;
    size_t size;
    size_t position; /* in data, or in the buffer */
    off_t offset;    /* the file's bytes read into the buffer so far */
    unsigned char buffer[64 << 10];
    int failed;
    const struct imagepipe_jpeg_limits *limits;
    size_t since_asked; /* bytes since should_stop was last asked */
};

/* The next byte, or -1 at the input's end (or when the file cannot be read, or it is time to stop). */
static int next(struct reader *in) {
    if (++in->since_asked >= (1 << 20)) {
        in->since_asked = 0;
        if (in->limits && in->limits->should_stop && in->limits->should_stop(in->limits->context)) in->failed = 1;
    }
    if (in->failed) return -1;
    if (in->position < in->size) return in->data[in->position++];
    if (in->descriptor < 0) return -1;
    ssize_t count;
    do {
        count = pread(in->descriptor, in->buffer, sizeof in->buffer, in->offset);
    } while (count < 0 && errno == EINTR);
    if (count <= 0) {
        if (count < 0) in->failed = 1;
        return -1;
    }
    in->offset += count;
    in->data = in->buffer;
    in->size = (size_t)count;
    in->position = 0;
    return in->data[in->position++];
}

struct writer {
    unsigned char *bytes;
    size_t length, capacity;
    int failed;
};

static void put(struct writer *out, int byte) {
    if (out->failed) return;
    if (out->length == out->capacity) {
        size_t capacity = out->capacity ? out->capacity * 2 : 64 << 10;
        unsigned char *grown = realloc(out->bytes, capacity);
        if (!grown) {
            out->failed = 1;
            return;
        }
        out->bytes = grown;
        out->capacity = capacity;
    }
    out->bytes[out->length++] = (unsigned char)byte;
}

/* Passes over (or, when `keep`, copies) entropy-coded data up to the next marker, and returns
   that marker's code (the 0xFF before it read, not written), or -1 at the input's end. A stuffed
   0xFF 0x00 and the restart markers belong to the data. */
static int entropy_data(struct reader *in, struct writer *out, int keep) {
    int byte;
    while ((byte = next(in)) >= 0) {
        if (byte != 0xFF) {
            if (keep) put(out, byte);
            continue;
        }
        int code = next(in);
        while (code == 0xFF) code = next(in); /* fill bytes before a marker */
        if (code < 0) return -1;
        if (code == 0x00 || (code >= 0xD0 && code <= 0xD7)) {
            if (keep) {
                put(out, 0xFF);
                put(out, code);
            }
            continue;
        }
        return code;
    }
    return -1;
}

/* Whether `id` is one of the `count` identifiers in `ids`. */
static int listed(int id, const int *ids, int count) {
    for (int i = 0; i < count; i++) {
        if (ids[i] == id) return 1;
    }
    return 0;
}

unsigned char *imagepipe_jpeg_dc_scans(int descriptor, const unsigned char *data, size_t size, const int *dc_only, int count,
                                       const struct imagepipe_jpeg_limits *limits, size_t *length) {
    struct reader *in = calloc(1, sizeof *in);
    if (!in) return NULL;
    in->limits = limits;
    in->descriptor = descriptor;
    in->data = descriptor < 0 ? data : NULL;
    in->size = descriptor < 0 ? size : 0;
    struct writer out = { 0 };
    int code = -1; /* a marker met at the end of entropy-coded data, not yet written */
    for (;;) {
        if (code < 0) {
            int byte = next(in);
            if (byte < 0) break;
            if (byte != 0xFF) { /* bytes between segments: libjpeg warns of them, so they stay */
                put(&out, byte);
                continue;
            }
            code = next(in);
            while (code == 0xFF) code = next(in);
            if (code < 0) {
                put(&out, 0xFF);
                break;
            }
        }
        int marker = code;
        code = -1;
        /* Markers without a length: SOI, the restart markers, TEM; EOI ends the file. */
        if (marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01 || marker == 0xD9) {
            put(&out, 0xFF);
            put(&out, marker);
            if (marker == 0xD9) break;
            continue;
        }
        int high = next(in), low = high < 0 ? -1 : next(in);
        if (low < 0) {
            put(&out, 0xFF);
            put(&out, marker);
            if (high >= 0) put(&out, high);
            break;
        }
        int body_length = (high << 8 | low) - 2;
        unsigned char body[65535];
        int got = 0;
        while (got < body_length) {
            int byte = next(in);
            if (byte < 0) break;
            body[got++] = (unsigned char)byte;
        }
        /* A scan's spectral selection starts after its components (1 + 2 a component bytes). */
        int ac_scan = marker == 0xDA && got >= 3 && got == body_length && body[0] == 1 && 1 + 2 * body[0] < got
            && body[1 + 2 * body[0]] > 0 && listed(body[1], dc_only, count);
        if (!ac_scan) {
            put(&out, 0xFF);
            put(&out, marker);
            put(&out, high);
            put(&out, low);
            for (int i = 0; i < got; i++) put(&out, body[i]);
        }
        if (got < body_length) break;
        if (marker == 0xDA) code = entropy_data(in, &out, !ac_scan);
        if (marker == 0xDA && code < 0) break;
    }
    int failed = in->failed || out.failed;
    free(in);
    if (failed) {
        free(out.bytes);
        return NULL;
    }
    *length = out.length;
    return out.bytes;
}
