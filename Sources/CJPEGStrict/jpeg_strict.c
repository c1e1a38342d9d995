#include "jpeg_strict.h"

#include <stdio.h> /* before jpeglib.h, which uses FILE */
#include <jpeglib.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

struct strict_error {
    struct jpeg_error_mgr manager;
    jmp_buf escape;
    char *message;
    size_t message_size;
    int tolerant;
};

static void fail(j_common_ptr cinfo) {
    struct strict_error *error = (struct strict_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    snprintf(error->message, error->message_size, "%s", text);
    longjmp(error->escape, 1);
}

/* msg_level -1 is a warning (corrupt data, premature end): an error here, unless tolerant, when
 * libjpeg goes on as libvips' fail=false and Pillow let it: a cut file ends in grey (baseline) or
 * in the coarser scans it has (progressive). Trace messages pass. */
static void emit(j_common_ptr cinfo, int level) {
    struct strict_error *error = (struct strict_error *)cinfo->err;
    if (level < 0 && !error->tolerant) fail(cinfo);
}

/* Decodes from memory (data, size) or, when file is not NULL, from that stream. */
static int decode(FILE *file, const unsigned char *data, size_t size, int at_least_width, int at_least_height,
                  long long max_pixels, int tolerant, unsigned char **pixels, int *width, int *height, int *rowstride,
                  char *message, size_t message_size) {
    struct jpeg_decompress_struct cinfo;
    struct strict_error error;
    unsigned char *volatile buffer = NULL;
    cinfo.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = fail;
    error.manager.emit_message = emit;
    error.message = message;
    error.message_size = message_size;
    error.tolerant = tolerant;
    if (setjmp(error.escape)) {
        jpeg_destroy_decompress(&cinfo);
        free(buffer);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    if (file) {
        jpeg_stdio_src(&cinfo, file);
    } else {
        jpeg_mem_src(&cinfo, data, (unsigned long)size);
    }
    jpeg_read_header(&cinfo, TRUE);
    if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    long long stored = (long long)cinfo.image_width * cinfo.image_height;
    if (max_pixels > 0 && stored > max_pixels) {
        snprintf(message, message_size, "%ux%u is %lld pixels, more than the limit of %lld",
                 cinfo.image_width, cinfo.image_height, stored, max_pixels);
        jpeg_destroy_decompress(&cinfo);
        return -2;
    }
    unsigned int denominator = 1;
    if (at_least_width > 0 && at_least_height > 0) {
        for (unsigned int d = 8; d >= 2; d /= 2) {
            if ((cinfo.image_width + d - 1) / d >= (unsigned int)at_least_width &&
                (cinfo.image_height + d - 1) / d >= (unsigned int)at_least_height) { denominator = d; break; }
        }
    }
    cinfo.out_color_space = JCS_RGB;
    cinfo.scale_num = 1;
    cinfo.scale_denom = denominator;
    jpeg_start_decompress(&cinfo);
    int stride = (int)((cinfo.output_width * 3 + 3) & ~3u);
    buffer = malloc((size_t)stride * cinfo.output_height);
    if (!buffer) {
        snprintf(message, message_size, "not enough memory for a %ux%u picture", cinfo.output_width, cinfo.output_height);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = buffer + (size_t)stride * cinfo.output_scanline;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    *pixels = buffer;
    *width = (int)cinfo.output_width;
    *height = (int)cinfo.output_height;
    *rowstride = stride;
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

int imagepipe_jpeg_decode(const unsigned char *data, size_t size, int at_least_width, int at_least_height,
                          long long max_pixels, int tolerant, unsigned char **pixels, int *width, int *height, int *rowstride,
                          char *message, size_t message_size) {
    return decode(NULL, data, size, at_least_width, at_least_height, max_pixels, tolerant, pixels, width, height, rowstride,
                  message, message_size);
}

int imagepipe_jpeg_decode_file(const char *path, int at_least_width, int at_least_height,
                               long long max_pixels, int tolerant, unsigned char **pixels, int *width, int *height, int *rowstride,
                               char *message, size_t message_size) {
    FILE *file = fopen(path, "rb");
    if (!file) {
        snprintf(message, message_size, "cannot open the file");
        return -1;
    }
    /* libjpeg reads 4 KiB at a time: a large buffer saves thousands of system calls. */
    setvbuf(file, NULL, _IOFBF, 1 << 20);
    int status = decode(file, NULL, 0, at_least_width, at_least_height, max_pixels, tolerant, pixels, width, height, rowstride,
                        message, message_size);
    fclose(file);
    return status;
}

void imagepipe_jpeg_free(unsigned char *pixels, void *unused) {
    (void)unused;
    free(pixels);
}
