#include "tiff_codec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include <errno.h>
#include <unistd.h>

/* The name libtiff gives the handle, which it puts before some of its messages. */
static const char handle_name[] = "TIFF data";

/* Records one message: counted, and the first one kept as text, "module: message" unless the
 * module is only the handle's name. Returns 1 so that libtiff calls no global handler. */
static int record(int *count, char *text, size_t text_size, const char *module, const char *format, va_list arguments) {
    if ((*count)++ > 0) return 1;
    size_t used = 0;
    if (module && *module && strcmp(module, handle_name) != 0) {
        int written = snprintf(text, text_size, "%s: ", module);
        used = written > 0 && (size_t)written < text_size ? (size_t)written : 0;
    }
    vsnprintf(text + used, text_size - used, format, arguments);
    return 1;
}

static int record_error(TIFF *tiff, void *context, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    struct imagepipe_tiff_messages *messages = context;
    return record(&messages->errors, messages->error, sizeof messages->error, module, format, arguments);
}

static int record_warning(TIFF *tiff, void *context, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    struct imagepipe_tiff_messages *messages = context;
    return record(&messages->warnings, messages->warning, sizeof messages->warning, module, format, arguments);
}

static TIFFOpenOptions *options_for(struct imagepipe_tiff_messages *messages, int64_t max_alloc) {
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(options, record_error, messages);
    TIFFOpenOptionsSetWarningHandlerExtR(options, record_warning, messages);
    if (max_alloc > 0) TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)max_alloc);
    return options;
}

/* MARK: reading */

struct imagepipe_tiff_reader {
    TIFF *tiff;
    /* The data in memory, or (data NULL) the file behind descriptor, read with pread. */
    const unsigned char *data;
    int descriptor;
    uint64_t size, offset;
    struct imagepipe_tiff_messages messages;
    TIFFRGBAImage rgba;
    int rgba_begun;
};

static tmsize_t reader_read(thandle_t handle, void *buffer, tmsize_t size) {
    struct imagepipe_tiff_reader *reader = handle;
    if (size <= 0 || reader->offset >= reader->size) return 0;
    uint64_t left = reader->size - reader->offset;
    uint64_t count = (uint64_t)size < left ? (uint64_t)size : left;
    if (!reader->data) {
        uint64_t done = 0;
        while (done < count) {
            ssize_t got = pread(reader->descriptor, (unsigned char *)buffer + done, (size_t)(count - done), (off_t)(reader->offset + done));
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) break; /* the file ended early (or cannot be read): libtiff reports a short read */
            done += (uint64_t)got;
        }
        reader->offset += done;
        return (tmsize_t)done;
    }
    memcpy(buffer, reader->data + reader->offset, (size_t)count);
    reader->offset += count;
    return (tmsize_t)count;
}

static tmsize_t reader_write(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle; (void)buffer; (void)size;
    return -1;
}

static toff_t seek_in(uint64_t *offset, uint64_t size, toff_t to, int whence) {
    uint64_t base = whence == SEEK_CUR ? *offset : whence == SEEK_END ? size : 0;
    if (to > UINT64_MAX - base) return (toff_t)-1;
    *offset = base + to;
    return *offset;
}

static toff_t reader_seek(thandle_t handle, toff_t to, int whence) {
    struct imagepipe_tiff_reader *reader = handle;
    return seek_in(&reader->offset, reader->size, to, whence);
}

static int reader_close(thandle_t handle) { (void)handle; return 0; }

static toff_t reader_size(thandle_t handle) { return ((struct imagepipe_tiff_reader *)handle)->size; }

/* The data is "mapped": libtiff decodes strips straight from it and never copies a strip's raw
 * bytes into a buffer sized by the strip's byte count, which a damaged file can make huge. */
static int reader_map(thandle_t handle, void **base, toff_t *size) {
    struct imagepipe_tiff_reader *reader = handle;
    /* A file is not mapped: one cut short by another program while it is read would end the
     * process (SIGBUS) where a read gives an error. libtiff then reads each strip into a buffer
     * it grows as the data comes, never past the file's end. */
    if (!reader->data) return 0;
    *base = (void *)reader->data;
    *size = reader->size;
    return 1;
}

static void reader_unmap(thandle_t handle, void *base, toff_t size) { (void)handle; (void)base; (void)size; }

static imagepipe_tiff_reader *open_reader(const unsigned char *data, int descriptor, uint64_t size, int64_t max_alloc,
                                          struct imagepipe_tiff_messages *failure) {
    memset(failure, 0, sizeof *failure);
    struct imagepipe_tiff_reader *reader = calloc(1, sizeof *reader);
    if (!reader) {
        snprintf(failure->error, sizeof failure->error, "out of memory");
        failure->errors = 1;
        return NULL;
    }
    reader->data = data;
    reader->descriptor = descriptor;
    reader->size = size;
    TIFFOpenOptions *options = options_for(&reader->messages, max_alloc);
    if (options) {
        reader->tiff = TIFFClientOpenExt(handle_name, "r", reader, reader_read, reader_write, reader_seek, reader_close,
                                         reader_size, reader_map, reader_unmap, options);
        TIFFOpenOptionsFree(options);
    }
    if (!reader->tiff) {
        *failure = reader->messages;
        if (failure->errors == 0) {
            failure->errors = 1;
            snprintf(failure->error, sizeof failure->error, "libtiff could not open it");
        }
        free(reader);
        return NULL;
    }
    return reader;
}

imagepipe_tiff_reader *imagepipe_tiff_open(const unsigned char *data, size_t size, int64_t max_alloc,
                                           struct imagepipe_tiff_messages *failure) {
    return open_reader(data, -1, size, max_alloc, failure);
}

imagepipe_tiff_reader *imagepipe_tiff_open_descriptor(int descriptor, uint64_t size, int64_t max_alloc,
                                                      struct imagepipe_tiff_messages *failure) {
    return open_reader(NULL, descriptor, size, max_alloc, failure);
}

void imagepipe_tiff_close(imagepipe_tiff_reader *reader) {
    if (!reader) return;
    if (reader->rgba_begun) TIFFRGBAImageEnd(&reader->rgba);
    TIFFClose(reader->tiff);
    free(reader);
}

const struct imagepipe_tiff_messages *imagepipe_tiff_reader_messages(const imagepipe_tiff_reader *reader) {
    return &reader->messages;
}

int imagepipe_tiff_read_fields(imagepipe_tiff_reader *reader, struct imagepipe_tiff_fields *fields) {
    TIFF *tiff = reader->tiff;
    memset(fields, 0, sizeof *fields);
    if (!TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &fields->width) || !TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, &fields->height)) return -1;
    TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLESPERPIXEL, &fields->samples_per_pixel);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_BITSPERSAMPLE, &fields->bits_per_sample);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLEFORMAT, &fields->sample_format);
    if (!TIFFGetField(tiff, TIFFTAG_PHOTOMETRIC, &fields->photometric))
        fields->photometric = fields->samples_per_pixel >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    TIFFGetFieldDefaulted(tiff, TIFFTAG_PLANARCONFIG, &fields->planar_config);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_COMPRESSION, &fields->compression);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_ORIENTATION, &fields->orientation);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_INKSET, &fields->ink_set);
    uint16_t extra = 0, *types = NULL;
    TIFFGetFieldDefaulted(tiff, TIFFTAG_EXTRASAMPLES, &extra, &types);
    fields->extra_samples = extra;
    for (uint16_t index = 0; types && index < extra; index++) {
        if (types[index] == EXTRASAMPLE_ASSOCALPHA || types[index] == EXTRASAMPLE_UNASSALPHA) {
            fields->alpha_index = index;
            fields->alpha_kind = types[index];
            break;
        }
    }
    fields->tiled = TIFFIsTiled(tiff);
    if (fields->tiled) {
        TIFFGetField(tiff, TIFFTAG_TILEWIDTH, &fields->tile_width);
        TIFFGetField(tiff, TIFFTAG_TILELENGTH, &fields->tile_length);
        fields->chunk_count = TIFFNumberOfTiles(tiff);
        fields->chunk_size = TIFFTileSize64(tiff);
    } else {
        TIFFGetFieldDefaulted(tiff, TIFFTAG_ROWSPERSTRIP, &fields->rows_per_strip);
        fields->chunk_count = TIFFNumberOfStrips(tiff);
        fields->chunk_size = TIFFStripSize64(tiff);
    }
    uint32_t count = 0;
    void *bytes = NULL;
    if (TIFFGetField(tiff, TIFFTAG_ICCPROFILE, &count, &bytes) && bytes && count > 0) {
        fields->icc = bytes;
        fields->icc_size = count;
    }
    count = 0;
    bytes = NULL;
    if (TIFFGetField(tiff, TIFFTAG_XMLPACKET, &count, &bytes) && bytes && count > 0) {
        fields->xmp = bytes;
        fields->xmp_size = count;
    }
    return 0;
}

int imagepipe_tiff_levels(imagepipe_tiff_reader *reader, uint16_t *directories, uint32_t *widths, uint32_t *heights, int capacity) {
    TIFF *tiff = reader->tiff;
    uint32_t width = 0, height = 0;
    int count = 0;
    if (!TIFFSetDirectory(tiff, 0) || !TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, &height)) return 0;
    /* A directory count past 2^16 is not a pyramid's; stop well before libtiff's own bound. */
    for (uint16_t index = 1; count < capacity && index < 1024 && TIFFReadDirectory(tiff); index++) {
        uint32_t kind = 0, w = 0, h = 0;
        if (!TIFFGetField(tiff, TIFFTAG_SUBFILETYPE, &kind) || !(kind & FILETYPE_REDUCEDIMAGE)) break;
        if (!TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, &h)) break;
        if (w == 0 || h == 0 || w >= width || h >= height) break;
        directories[count] = index;
        widths[count] = width = w;
        heights[count] = height = h;
        count++;
    }
    TIFFSetDirectory(tiff, 0);
    return count;
}

int imagepipe_tiff_set_directory(imagepipe_tiff_reader *reader, uint16_t index) {
    return TIFFSetDirectory(reader->tiff, index) ? 0 : -1;
}

int imagepipe_tiff_jpeg_as_rgb(imagepipe_tiff_reader *reader) {
    return TIFFSetField(reader->tiff, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB) ? 0 : -1;
}

int64_t imagepipe_tiff_read_chunk(imagepipe_tiff_reader *reader, uint32_t index, void *buffer, size_t size) {
    TIFF *tiff = reader->tiff;
    if (TIFFIsTiled(tiff)) {
        if (index >= TIFFNumberOfTiles(tiff)) return -1;
        return TIFFReadEncodedTile(tiff, index, buffer, (tmsize_t)size);
    }
    if (index >= TIFFNumberOfStrips(tiff)) return -1;
    return TIFFReadEncodedStrip(tiff, index, buffer, (tmsize_t)size);
}

/* A reason of the RGBA interface's (not sent through the handlers) recorded as an error. */
static void record_reason(struct imagepipe_tiff_messages *messages, const char *reason) {
    if (messages->errors++ == 0) snprintf(messages->error, sizeof messages->error, "%s", reason);
}

int imagepipe_tiff_rgba_begin(imagepipe_tiff_reader *reader, int stop_on_error) {
    char reason[1024] = "";
    if (reader->rgba_begun) return 0;
    if (!TIFFRGBAImageOK(reader->tiff, reason) || !TIFFRGBAImageBegin(&reader->rgba, reader->tiff, stop_on_error, reason)) {
        record_reason(&reader->messages, reason[0] ? reason : "libtiff cannot read this kind of TIFF");
        return -1;
    }
    reader->rgba_begun = 1;
    /* Rows in storage order: the caller turns the picture by its orientation itself. */
    reader->rgba.req_orientation = reader->rgba.orientation;
    return 0;
}

int imagepipe_tiff_rgba_rows(imagepipe_tiff_reader *reader, uint32_t first, uint32_t count, unsigned char *rgba) {
    if (!reader->rgba_begun || first >= reader->rgba.height || count > reader->rgba.height - first) return -1;
    reader->rgba.row_offset = (int)first;
    reader->rgba.col_offset = 0;
    uint32_t *raster = (uint32_t *)rgba;
    if (!TIFFRGBAImageGet(&reader->rgba, raster, reader->rgba.width, count)) return -1;
    /* ABGR packed in a 32-bit word, whatever the machine's byte order: spelled out as bytes. */
    size_t pixels = (size_t)reader->rgba.width * count;
    for (size_t index = 0; index < pixels; index++) {
        uint32_t value = raster[index];
        rgba[index * 4] = (unsigned char)TIFFGetR(value);
        rgba[index * 4 + 1] = (unsigned char)TIFFGetG(value);
        rgba[index * 4 + 2] = (unsigned char)TIFFGetB(value);
        rgba[index * 4 + 3] = (unsigned char)TIFFGetA(value);
    }
    return 0;
}

/* MARK: writing */

struct imagepipe_tiff_writer {
    TIFF *tiff;
    /* The file written to (where libtiff asks, with pwrite), or -1 for memory. */
    int descriptor;
    unsigned char *buffer;
    uint64_t size, capacity, offset;
    struct imagepipe_tiff_messages messages;
    int closed;
};

static tmsize_t writer_write(thandle_t handle, void *data, tmsize_t count) {
    struct imagepipe_tiff_writer *writer = handle;
    if (count < 0) return -1;
    uint64_t end = writer->offset + (uint64_t)count;
    if (writer->descriptor >= 0) {
        if (end > (uint64_t)INT64_MAX) return -1;
        const unsigned char *bytes = data;
        tmsize_t done = 0;
        while (done < count) {
            ssize_t wrote = pwrite(writer->descriptor, bytes + done, (size_t)(count - done), (off_t)(writer->offset + (uint64_t)done));
            if (wrote < 0 && errno == EINTR) continue;
            if (wrote <= 0) return -1;
            done += wrote;
        }
        writer->offset = end;
        if (end > writer->size) writer->size = end;
        return count;
    }
    if (end > writer->capacity) {
        uint64_t capacity = writer->capacity ? writer->capacity : 1 << 16;
        while (capacity < end) {
            if (capacity > UINT64_MAX / 2) return -1;
            capacity *= 2;
        }
        if (capacity > SIZE_MAX) return -1;
        unsigned char *grown = realloc(writer->buffer, (size_t)capacity);
        if (!grown) return -1;
        writer->buffer = grown;
        writer->capacity = capacity;
    }
    /* A seek past the end leaves a gap: zeros, as a file would read. */
    if (writer->offset > writer->size) memset(writer->buffer + writer->size, 0, (size_t)(writer->offset - writer->size));
    memcpy(writer->buffer + writer->offset, data, (size_t)count);
    writer->offset = end;
    if (end > writer->size) writer->size = end;
    return count;
}

static tmsize_t writer_read(thandle_t handle, void *data, tmsize_t count) {
    struct imagepipe_tiff_writer *writer = handle;
    if (count <= 0 || writer->offset >= writer->size) return 0;
    uint64_t left = writer->size - writer->offset;
    uint64_t taken = (uint64_t)count < left ? (uint64_t)count : left;
    if (writer->descriptor >= 0) {
        ssize_t got = pread(writer->descriptor, data, (size_t)taken, (off_t)writer->offset);
        if (got < 0) return -1;
        writer->offset += (uint64_t)got;
        return (tmsize_t)got;
    }
    memcpy(data, writer->buffer + writer->offset, (size_t)taken);
    writer->offset += taken;
    return (tmsize_t)taken;
}

static toff_t writer_seek(thandle_t handle, toff_t to, int whence) {
    struct imagepipe_tiff_writer *writer = handle;
    return seek_in(&writer->offset, writer->size, to, whence);
}

static toff_t writer_size(thandle_t handle) { return ((struct imagepipe_tiff_writer *)handle)->size; }

static int writer_map(thandle_t handle, void **base, toff_t *size) { (void)handle; (void)base; (void)size; return 0; }

imagepipe_tiff_writer *imagepipe_tiff_writer_open(const struct imagepipe_tiff_encoding *encoding, int descriptor,
                                                  struct imagepipe_tiff_messages *failure) {
    memset(failure, 0, sizeof *failure);
    struct imagepipe_tiff_writer *writer = calloc(1, sizeof *writer);
    if (!writer) {
        failure->errors = 1;
        snprintf(failure->error, sizeof failure->error, "out of memory");
        return NULL;
    }
    writer->descriptor = descriptor;
    TIFFOpenOptions *options = options_for(&writer->messages, 0);
    if (options) {
        writer->tiff = TIFFClientOpenExt(handle_name, "w", writer, writer_read, writer_write, writer_seek, reader_close,
                                         writer_size, writer_map, reader_unmap, options);
        TIFFOpenOptionsFree(options);
    }
    if (!writer->tiff) {
        *failure = writer->messages;
        if (failure->errors == 0) {
            failure->errors = 1;
            snprintf(failure->error, sizeof failure->error, "libtiff could not start a TIFF");
        }
        free(writer->buffer);
        free(writer);
        return NULL;
    }
    TIFF *tiff = writer->tiff;
    int jpeg = encoding->compression == COMPRESSION_JPEG;
    /* RGB through JPEG is coded as YCbCr, as JPEG files are (libjpeg converts: JPEGCOLORMODE_RGB). */
    int ycbcr = jpeg && encoding->samples == 3;
    int ok = TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, encoding->width)
        && TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, encoding->height)
        && TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, 8)
        && TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, encoding->samples)
        && TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG)
        && TIFFSetField(tiff, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT)
        && TIFFSetField(tiff, TIFFTAG_COMPRESSION, encoding->compression)
        && TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC,
                        encoding->samples == 1 ? PHOTOMETRIC_MINISBLACK : ycbcr ? PHOTOMETRIC_YCBCR : PHOTOMETRIC_RGB);
    if (ok && encoding->samples == 4) {
        uint16_t alpha = EXTRASAMPLE_UNASSALPHA;
        ok = TIFFSetField(tiff, TIFFTAG_EXTRASAMPLES, 1, &alpha);
    }
    if (ok && (encoding->compression == COMPRESSION_ADOBE_DEFLATE || encoding->compression == COMPRESSION_LZW))
        ok = TIFFSetField(tiff, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
    if (ok && encoding->compression == COMPRESSION_ADOBE_DEFLATE)
        ok = TIFFSetField(tiff, TIFFTAG_ZIPQUALITY, encoding->deflate_level);
    if (ok && jpeg) ok = TIFFSetField(tiff, TIFFTAG_JPEGQUALITY, encoding->jpeg_quality);
    if (ok && ycbcr) ok = TIFFSetField(tiff, TIFFTAG_YCBCRSUBSAMPLING, 2, 2) && TIFFSetField(tiff, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    if (ok && encoding->tile > 0)
        ok = TIFFSetField(tiff, TIFFTAG_TILEWIDTH, encoding->tile) && TIFFSetField(tiff, TIFFTAG_TILELENGTH, encoding->tile);
    else if (ok)
        ok = TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, encoding->rows_per_strip);
    if (ok && encoding->icc && encoding->icc_size > 0)
        ok = TIFFSetField(tiff, TIFFTAG_ICCPROFILE, encoding->icc_size, encoding->icc);
    if (ok && encoding->xmp && encoding->xmp_size > 0)
        ok = TIFFSetField(tiff, TIFFTAG_XMLPACKET, encoding->xmp_size, encoding->xmp);
    if (!ok) {
        *failure = writer->messages;
        if (failure->errors == 0) {
            failure->errors = 1;
            snprintf(failure->error, sizeof failure->error, "libtiff refused the TIFF's fields");
        }
        imagepipe_tiff_writer_free(writer);
        return NULL;
    }
    return writer;
}

const struct imagepipe_tiff_messages *imagepipe_tiff_writer_messages(const imagepipe_tiff_writer *writer) {
    return &writer->messages;
}

int imagepipe_tiff_write_chunk(imagepipe_tiff_writer *writer, uint32_t index, const void *data, size_t size) {
    TIFF *tiff = writer->tiff;
    tmsize_t written = TIFFIsTiled(tiff) ? TIFFWriteEncodedTile(tiff, index, (void *)data, (tmsize_t)size)
                                         : TIFFWriteEncodedStrip(tiff, index, (void *)data, (tmsize_t)size);
    return written < 0 || writer->messages.errors > 0 ? -1 : 0;
}

int imagepipe_tiff_writer_finish(imagepipe_tiff_writer *writer, const unsigned char **bytes, size_t *size) {
    int ok = TIFFWriteDirectory(writer->tiff);
    TIFFClose(writer->tiff);
    writer->closed = 1;
    if (!ok || writer->messages.errors > 0) return -1;
    *bytes = writer->buffer;
    *size = (size_t)writer->size;
    return 0;
}

void imagepipe_tiff_writer_free(imagepipe_tiff_writer *writer) {
    if (!writer) return;
    if (!writer->closed) TIFFCleanup(writer->tiff);
    free(writer->buffer);
    free(writer);
}
