#include "jpeg_strict.h"
#include "dc_scans.h"
#include "descriptor_source.h"
#include "growing_destination.h"

#include <stdio.h> /* before jpeglib.h, which uses FILE */
#include <jpeglib.h>
#include <jerror.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

struct strict_error {
    struct jpeg_error_mgr manager;
    jmp_buf escape;
    char *message;
    size_t message_size;
    int fail_on; /* the fail-on level: 0 none, 1 truncated, 2 error, 3 warning */
    int stopped; /* what stopped the decode, when not damage: 3, the deadline; 4, too many scans; 5, the reader */
    struct imagepipe_jpeg_result *result; /* where a decode's warnings below the fail-on level are told; NULL when encoding */
    int in_header; /* reading the segments before the first scan */
};

struct bounded_progress {
    struct jpeg_progress_mgr manager; /* first: libjpeg hands back a pointer to it */
    const struct imagepipe_jpeg_limits *limits;
    unsigned int calls;
};

/* libjpeg calls this every few rows, and for each scan it reads while buffering a progressive
   image: the one place a long decode can be stopped from inside. */
static void monitor(j_common_ptr cinfo) {
    struct bounded_progress *progress = (struct bounded_progress *)cinfo->progress;
    struct strict_error *error = (struct strict_error *)cinfo->err;
    const struct imagepipe_jpeg_limits *limits = progress->limits;
    j_decompress_ptr decompress = (j_decompress_ptr)cinfo;
    if (limits->max_scans > 0 && decompress->input_scan_number > limits->max_scans) {
        snprintf(error->message, error->message_size, "more than %d scans (a progressive JPEG needs at most a few dozen)",
                 limits->max_scans);
        error->stopped = 4;
        longjmp(error->escape, 1);
    }
    if (limits->should_stop && (progress->calls++ & 15) == 0 && limits->should_stop(limits->context)) {
        snprintf(error->message, error->message_size, "decoding went past the time limit");
        error->stopped = 3;
        longjmp(error->escape, 1);
    }
}

static char *copy_text(const char *text) {
    size_t size = strlen(text) + 1;
    char *copy = malloc(size);
    if (copy) memcpy(copy, text, size);
    return copy;
}

static void fail(j_common_ptr cinfo) {
    struct strict_error *error = (struct strict_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    snprintf(error->message, error->message_size, "%s", text);
    longjmp(error->escape, 1);
}

/* The fail-on level from which a libjpeg warning is an error: a premature end is a cut file; an
 * unknown JFIF version or Adobe transform, or a bad ICC marker (the profile is dropped), leave
 * the pixels whole, and so do bytes between two segments before the first scan that start no
 * marker (libjpeg passes over them; libvips at fail-on=error and browsers read such files);
 * every other warning is damaged data, among them bytes left over after a scan's entropy-coded
 * data (what flipped bits in it leave). */
static int warning_level(int code, int in_header) {
    switch (code) {
    case JWRN_JPEG_EOF: return 1;
    case JWRN_JFIF_MAJOR: case JWRN_ADOBE_XFORM: case JWRN_BOGUS_ICC: return 3;
    case JWRN_EXTRANEOUS_DATA: return in_header ? 3 : 2;
    default: return 2;
    }
}

/* msg_level -1 is a warning: an error from its level on; below it libjpeg goes on, as libvips'
 * fail-on and Pillow let it: a cut file ends in grey (baseline) or in the coarser scans it has
 * (progressive), and the first such warning is kept in the result for the run to tell. Trace
 * messages pass. */
static void emit(j_common_ptr cinfo, int level) {
    struct strict_error *error = (struct strict_error *)cinfo->err;
    if (level >= 0) return;
    if (error->fail_on >= warning_level(cinfo->err->msg_code, error->in_header)) fail(cinfo);
    struct imagepipe_jpeg_result *result = error->result;
    if (!result) return;
    if (result->warnings++ == 0) {
        char text[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, text);
        result->warning = copy_text(text);
    }
}

static void ignore(j_common_ptr cinfo, int level) {
    (void)cinfo;
    (void)level;
}

static const char exif_marker[] = "Exif\0\0";        /* 6 bytes */
static const char xmp_marker[] = "http://ns.adobe.com/xap/1.0/"; /* + NUL: 29 bytes */

static unsigned char *copy_bytes(const unsigned char *bytes, size_t size) {
    unsigned char *copy = malloc(size ? size : 1);
    if (copy) memcpy(copy, bytes, size);
    return copy;
}

/* The EXIF and XMP blocks of the APP1 markers libjpeg kept, and the ICC profile of the APP2 ones. */
static void keep_metadata(j_decompress_ptr cinfo, struct imagepipe_jpeg_result *result) {
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker; marker = marker->next) {
        if (marker->marker != JPEG_APP0 + 1) continue;
        if (!result->exif && marker->data_length > 6 && memcmp(marker->data, exif_marker, 6) == 0) {
            result->exif = copy_bytes(marker->data + 6, marker->data_length - 6);
            if (result->exif) result->exif_size = marker->data_length - 6;
        } else if (!result->xmp && marker->data_length > 29 && memcmp(marker->data, xmp_marker, 29) == 0) {
            result->xmp = copy_bytes(marker->data + 29, marker->data_length - 29);
            if (result->xmp) result->xmp_size = marker->data_length - 29;
        }
    }
    JOCTET *icc = NULL;
    unsigned int icc_size = 0;
    /* A damaged chunk sequence is only a warning, and strict decoding fails on warnings: a broken
     * profile is dropped, not the picture. */
    void (*strict)(j_common_ptr, int) = cinfo->err->emit_message;
    cinfo->err->emit_message = ignore;
    boolean found = jpeg_read_icc_profile(cinfo, &icc, &icc_size);
    cinfo->err->emit_message = strict;
    if (found && icc) {
        result->icc = icc;
        result->icc_size = icc_size;
    }
}

void imagepipe_jpeg_free_metadata(struct imagepipe_jpeg_result *result) {
    free(result->icc);
    free(result->exif);
    free(result->xmp);
    free(result->warning);
    result->icc = result->exif = result->xmp = NULL;
    result->warning = NULL;
    result->icc_size = result->exif_size = result->xmp_size = 0;
    result->warnings = 0;
}

/* The plane resampler for a decode started with raw_data_out: each component's plane as
 * libjpeg writes it (after any DCT reduction), its weights from the plan. NULL, with the reason
 * in message, when the plan refuses or memory runs out. */
static struct imagepipe_plane_resampler *planned(j_decompress_ptr cinfo, int colors, const struct imagepipe_jpeg_resampling *resampling,
                                                 int *width, int *height, char *message, size_t message_size) {
    struct imagepipe_plane planes[3];
    memset(planes, 0, sizeof planes);
    int count = cinfo->num_components;
    for (int c = 0; c < count; c++) {
        jpeg_component_info *component = &cinfo->comp_info[c];
        planes[c].width = (int)component->downsampled_width;
        planes[c].height = (int)component->downsampled_height;
        planes[c].band_rows = component->v_samp_factor * component->DCT_scaled_size;
        planes[c].row_bytes = (int)component->width_in_blocks * component->DCT_scaled_size;
    }
    if (!resampling->plan(resampling->context, count, colors, (int)cinfo->image_width, (int)cinfo->image_height, (int)cinfo->scale_denom,
                          (int)cinfo->output_width, (int)cinfo->output_height, planes)) {
        snprintf(message, message_size, "its planes (sampled %dx%d) cannot be resampled", cinfo->max_h_samp_factor, cinfo->max_v_samp_factor);
        return NULL;
    }
    struct imagepipe_plane_resampler *resampler = imagepipe_plane_resampler_new(count, planes, colors);
    if (!resampler) {
        snprintf(message, message_size, "not enough memory to resample its planes");
        return NULL;
    }
    *width = planes[0].x.outputs;
    *height = planes[0].y.outputs;
    return resampler;
}

/* Before a ring's slot is written with row `last`: the reader hears of every row made before
   `made` (so that it can go on and make the room), then the decoder waits until row
   last - ring is let go; a reader that has stopped ends the decode. */
static void wait_for_room(const struct imagepipe_jpeg_watcher *watcher, unsigned int *told, unsigned int made, unsigned int last,
                          struct strict_error *error) {
    if (*told < made) {
        *told = made;
        watcher->decoded(watcher->context, (int)made);
    }
    if (!watcher->room(watcher->context, (int)last)) {
        snprintf(error->message, error->message_size, "the reader of the rows stopped");
        error->stopped = 5;
        longjmp(error->escape, 1);
    }
}

/* The decode's planes, band by band, into the resampler, and each output row into `buffer` as
 * soon as its planes' rows are in, telling the watcher as the RGB rows' loop below does. */
static void resample_rows(j_decompress_ptr cinfo, struct imagepipe_plane_resampler *planes, unsigned char *buffer, int stride,
                          int height, int ring, const struct imagepipe_jpeg_watcher *watcher, struct strict_error *error) {
    int count = cinfo->num_components, decoded[3] = {0, 0, 0}, band_rows[3], made = 0;
    unsigned int told = 0;
    JSAMPROW rows[3][4 * DCTSIZE];
    JSAMPARRAY bands[3];
    JDIMENSION band = (JDIMENSION)(cinfo->max_v_samp_factor * cinfo->min_DCT_scaled_size);
    for (int c = 0; c < count; c++) {
        band_rows[c] = cinfo->comp_info[c].v_samp_factor * cinfo->comp_info[c].DCT_scaled_size;
        bands[c] = rows[c];
    }
    while (cinfo->output_scanline < cinfo->output_height) {
        for (int c = 0; c < count; c++) {
            for (int k = 0; k < band_rows[c]; k++) rows[c][k] = imagepipe_plane_resampler_row(planes, c, decoded[c] + k);
        }
        jpeg_read_raw_data(cinfo, bands, band);
        for (int c = 0; c < count; c++) {
            decoded[c] += band_rows[c];
            if (decoded[c] > (int)cinfo->comp_info[c].downsampled_height) decoded[c] = (int)cinfo->comp_info[c].downsampled_height;
        }
        while (made < height && imagepipe_plane_resampler_ready(planes, made, decoded)) {
            if (ring && made >= ring) wait_for_room(watcher, &told, (unsigned int)made, (unsigned int)made, error);
            imagepipe_plane_resampler_make(planes, made, buffer + (size_t)stride * (size_t)(ring ? made % ring : made));
            made++;
            if (watcher && ((unsigned int)made - told >= 16 || made == height)) {
                told = (unsigned int)made;
                watcher->decoded(watcher->context, made);
            }
        }
    }
    if (made < height) {
        snprintf(error->message, error->message_size, "its planes ended before the resampled picture did");
        longjmp(error->escape, 1);
    }
}

/* Decodes from memory (data, size) or, when source is not NULL, from that file; *dc_scans holds
   the bytes read instead when only the DC scans are (the caller frees them). */
static int decode_reading(unsigned char **dc_scans, struct imagepipe_descriptor_source *source, const unsigned char *data, size_t size,
                          int at_least_width, int at_least_height, long long max_pixels, int fail_on, const struct imagepipe_jpeg_limits *limits,
                          const struct imagepipe_jpeg_region *region, const struct imagepipe_jpeg_watcher *watcher,
                          const struct imagepipe_jpeg_resampling *resampling, struct imagepipe_jpeg_result *result, char *message, size_t message_size) {
    struct jpeg_decompress_struct cinfo;
    struct strict_error error;
    struct bounded_progress progress;
    unsigned char *volatile buffer = NULL;
    struct imagepipe_plane_resampler *volatile planes = NULL;
    volatile int watched = 0; /* the watcher was told of the buffer: it may be reading it */
    memset(result, 0, sizeof *result);
    cinfo.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = fail;
    error.manager.emit_message = emit;
    error.message = message;
    error.message_size = message_size;
    error.fail_on = fail_on;
    error.stopped = 0;
    error.result = result;
    error.in_header = 0;
    if (setjmp(error.escape)) {
        if (watched) watcher->failed(watcher->context);
        jpeg_destroy_decompress(&cinfo);
        free(buffer);
        imagepipe_plane_resampler_free(planes);
        result->pixels = NULL;
        imagepipe_jpeg_free_metadata(result);
        return error.stopped ? -error.stopped : -1;
    }
    jpeg_create_decompress(&cinfo);
    if (limits) {
        memset(&progress, 0, sizeof progress);
        progress.manager.progress_monitor = monitor;
        progress.limits = limits;
        cinfo.progress = &progress.manager;
    }
    if (source) {
        imagepipe_descriptor_source_use(&cinfo, source);
    } else {
        jpeg_mem_src(&cinfo, data, (unsigned long)size);
    }
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 2, 0xFFFF);
    error.in_header = 1;
    jpeg_read_header(&cinfo, TRUE);
    error.in_header = 0;
    long long stored = (long long)cinfo.image_width * cinfo.image_height;
    if (max_pixels > 0 && stored > max_pixels) {
        snprintf(message, message_size, "%ux%u is %lld pixels, more than the limit of %lld",
                 cinfo.image_width, cinfo.image_height, stored, max_pixels);
        jpeg_destroy_decompress(&cinfo);
        return -2;
    }
    keep_metadata(&cinfo, result);
    unsigned int denominator = 1;
    if (at_least_width > 0 && at_least_height > 0) {
        for (unsigned int d = 8; d >= 2; d /= 2) {
            if ((cinfo.image_width + d - 1) / d >= (unsigned int)at_least_width &&
                (cinfo.image_height + d - 1) / d >= (unsigned int)at_least_height) { denominator = d; break; }
        }
    }
    /* A progressive file decoded at 1/8 needs only the DC scans of the components made with a
       1x1 inverse DCT (dc_scans.h): the header is read again from the bytes kept, its warnings
       already told. Block smoothing, which guesses AC coefficients a file lacks, stays off, so
       the picture is the whole file's. */
    int dc_only[MAX_COMPONENTS], dc_only_count = 0;
    if (denominator == 8 && cinfo.progressive_mode) {
        cinfo.scale_num = 1;
        cinfo.scale_denom = denominator;
        jpeg_calc_output_dimensions(&cinfo);
        for (int c = 0; c < cinfo.num_components; c++) {
            if (cinfo.comp_info[c].DCT_scaled_size == 1) dc_only[dc_only_count++] = cinfo.comp_info[c].component_id;
        }
    }
    if (dc_only_count > 0) {
        size_t length = 0;
        *dc_scans = imagepipe_jpeg_dc_scans(source ? source->descriptor : -1, data, size, dc_only, dc_only_count, limits, &length);
        if (*dc_scans) {
            jpeg_abort_decompress(&cinfo);
            cinfo.src = source ? NULL : cinfo.src; /* jpeg_mem_src takes over only its own manager */
            jpeg_mem_src(&cinfo, *dc_scans, (unsigned long)length);
            void (*strict)(j_common_ptr, int) = cinfo.err->emit_message;
            cinfo.err->emit_message = ignore;
            error.in_header = 1;
            jpeg_read_header(&cinfo, TRUE);
            error.in_header = 0;
            cinfo.err->emit_message = strict;
            cinfo.do_block_smoothing = FALSE;
        }
    }
    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    result->grey = cinfo.jpeg_color_space == JCS_GRAYSCALE;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    cinfo.scale_num = 1;
    cinfo.scale_denom = denominator;
    int colors = 0;
    if (resampling) {
        colors = cinfo.num_components == 1 && cinfo.jpeg_color_space == JCS_GRAYSCALE ? IMAGEPIPE_PLANES_GRAY
            : cinfo.num_components == 3 && cinfo.jpeg_color_space == JCS_YCbCr ? IMAGEPIPE_PLANES_YCBCR
            : cinfo.num_components == 3 && cinfo.jpeg_color_space == JCS_RGB ? IMAGEPIPE_PLANES_RGB : 0;
        if (!colors) {
            snprintf(message, message_size, "its color components cannot be resampled as planes");
            jpeg_destroy_decompress(&cinfo);
            imagepipe_jpeg_free_metadata(result);
            return -6;
        }
        cinfo.raw_data_out = TRUE;
    }
    jpeg_start_decompress(&cinfo);
    int resampling_width = 0, resampling_height = 0;
    if (resampling) planes = planned(&cinfo, colors, resampling, &resampling_width, &resampling_height, message, message_size);
    if (resampling && !planes) {
        jpeg_destroy_decompress(&cinfo);
        imagepipe_jpeg_free_metadata(result);
        return -6;
    }
    int channels = cmyk ? 4 : 3;
    int output_width = planes ? resampling_width : (int)cinfo.output_width, output_height = planes ? resampling_height : (int)cinfo.output_height;
    int stride = (int)((output_width * channels + 3) & ~3);
    result->width = output_width;
    result->height = output_height;
    result->rowstride = stride;
    result->channels = channels;
    /* The rows [first, end) are decoded, and of them the columns from crop_x, crop_width wide
       (whole iMCUs, as jpeg_crop_scanline widens them); the rest stays black. */
    unsigned int first = 0, end = cinfo.output_height;
    JDIMENSION crop_x = 0, crop_width = (JDIMENSION)output_width;
    int in_region = region && region->width > 0 && region->height > 0 && !planes && !cmyk;
    if (in_region) {
        int x = region->x < 0 ? 0 : region->x, y = region->y < 0 ? 0 : region->y;
        int right = region->x + region->width > output_width ? output_width : region->x + region->width;
        int bottom = region->y + region->height > output_height ? output_height : region->y + region->height;
        if (x >= right || y >= bottom) { x = 0; y = 0; right = 1; bottom = 1; }
        first = (unsigned int)y;
        end = (unsigned int)bottom;
        /* libjpeg makes the crop as a picture of its own: the chroma at its sides is upsampled
           from the crop's edge, not from the neighbors beyond. One iMCU more on each side
           keeps the region's own columns those of the whole decode. */
        int imcu = cinfo.max_h_samp_factor * cinfo.min_DCT_scaled_size;
        x = x > imcu ? x - imcu : 0;
        right = right + imcu < output_width ? right + imcu : output_width;
        if (x > 0 || right < output_width) {
            crop_x = (JDIMENSION)x;
            crop_width = (JDIMENSION)(right - x);
            jpeg_crop_scanline(&cinfo, &crop_x, &crop_width);
        }
    }
    /* A ring is for RGB rows only: CMYK is turned around after the whole decode, below. */
    int ring = watcher ? watcher->started(watcher->context, result) : 0;
    if (ring < 0 || ring >= output_height || cmyk) ring = 0;
    size_t buffer_size = (size_t)stride * (size_t)(ring ? ring : output_height);
    buffer = in_region ? calloc(1, buffer_size) : malloc(buffer_size);
    if (!buffer) {
        snprintf(message, message_size, "not enough memory for a %dx%d picture", output_width, output_height);
        if (watcher) watcher->failed(watcher->context);
        jpeg_destroy_decompress(&cinfo);
        imagepipe_jpeg_free_metadata(result);
        return -1;
    }
    if (watcher) {
        watched = 1;
        watcher->ready(watcher->context, buffer);
    }
    /* The watcher hears of every 16 rows: often enough to keep its thread busy, seldom enough
       that telling it costs nothing. */
    unsigned int told = 0;
    if (planes) {
        resample_rows(&cinfo, planes, buffer, stride, output_height, ring, watcher, &error);
        imagepipe_plane_resampler_free(planes);
        planes = NULL;
    }
    /* Rows above the region are read past without being made: they stay black (in a ring, the
       slots rows below them use are still untouched, so black too). */
    if (first > 0) jpeg_skip_scanlines(&cinfo, first);
    while (cinfo.output_scanline < end) {
        /* The rows up to the next multiple of 16 in one call (a row a call cost 3% more
           decode time on the benchmark's photos), never past the ring's end; room for the
           last is room for them all. Before waiting for it, the reader hears of every row
           made, so that it can go on and make the room. */
        unsigned int y = cinfo.output_scanline, count = 16 - y % 16;
        if (count > end - y) count = end - y;
        if (ring && count > (unsigned int)ring - y % (unsigned int)ring) count = (unsigned int)ring - y % (unsigned int)ring;
        unsigned int last = y + count - 1;
        if (ring && last >= (unsigned int)ring) wait_for_room(watcher, &told, y, last, &error);
        JSAMPROW rows[16];
        for (unsigned int i = 0; i < count; i++) {
            rows[i] = buffer + (size_t)stride * (ring ? (y + i) % (unsigned int)ring : y + i) + (size_t)crop_x * (size_t)channels;
        }
        jpeg_read_scanlines(&cinfo, rows, count);
        if (watcher && (cinfo.output_scanline - told >= 16 || cinfo.output_scanline == cinfo.output_height)) {
            told = cinfo.output_scanline;
            watcher->decoded(watcher->context, (int)told);
        }
    }
    /* Rows below the region are not decoded: black, which in a ring means clearing the columns
       that rows of the region left in the slots. */
    for (unsigned int y = end, count; in_region && y < (unsigned int)output_height; y += count) {
        count = (unsigned int)output_height - y < 16 ? (unsigned int)output_height - y : 16;
        if (ring) {
            if (count > (unsigned int)ring - y % (unsigned int)ring) count = (unsigned int)ring - y % (unsigned int)ring;
            if (y + count - 1 >= (unsigned int)ring) wait_for_room(watcher, &told, y, y + count - 1, &error);
            for (unsigned int i = 0; i < count; i++) {
                memset(buffer + (size_t)stride * ((y + i) % (unsigned int)ring) + (size_t)crop_x * (size_t)channels, 0,
                       (size_t)crop_width * (size_t)channels);
            }
        }
    }
    if (in_region && watcher && told < (unsigned int)output_height) watcher->decoded(watcher->context, output_height);
    /* Photoshop writes CMYK JPEGs inverted (0 = full ink) and says so with its Adobe marker. */
    if (cmyk && cinfo.saw_Adobe_marker) {
        for (unsigned int y = 0; y < cinfo.output_height; y++) {
            unsigned char *row = buffer + (size_t)stride * y;
            for (unsigned int i = 0; i < cinfo.output_width * 4; i++) row[i] = 255 - row[i];
        }
    }
    /* A decode stopped after the region has not read the rest of the file, which libjpeg's
       finish would demand. */
    if (end < cinfo.output_height) jpeg_abort_decompress(&cinfo);
    else jpeg_finish_decompress(&cinfo);
    result->pixels = buffer;
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

static int decode(struct imagepipe_descriptor_source *source, const unsigned char *data, size_t size, int at_least_width, int at_least_height,
                  long long max_pixels, int fail_on, const struct imagepipe_jpeg_limits *limits,
                  const struct imagepipe_jpeg_region *region, const struct imagepipe_jpeg_watcher *watcher, const struct imagepipe_jpeg_resampling *resampling,
                  struct imagepipe_jpeg_result *result, char *message, size_t message_size) {
    unsigned char *dc_scans = NULL;
    int status = decode_reading(&dc_scans, source, data, size, at_least_width, at_least_height, max_pixels, fail_on, limits, region, watcher,
                                resampling, result, message, message_size);
    free(dc_scans);
    return status;
}

int imagepipe_jpeg_decode(const unsigned char *data, size_t size, int at_least_width, int at_least_height,
                          long long max_pixels, int fail_on, const struct imagepipe_jpeg_limits *limits,
                          const struct imagepipe_jpeg_region *region, const struct imagepipe_jpeg_watcher *watcher, const struct imagepipe_jpeg_resampling *resampling,
                          struct imagepipe_jpeg_result *result, char *message, size_t message_size) {
    return decode(NULL, data, size, at_least_width, at_least_height, max_pixels, fail_on, limits, region, watcher, resampling, result, message, message_size);
}

int imagepipe_jpeg_decode_descriptor(int descriptor, int at_least_width, int at_least_height,
                                     long long max_pixels, int fail_on, const struct imagepipe_jpeg_limits *limits,
                                     const struct imagepipe_jpeg_region *region, const struct imagepipe_jpeg_watcher *watcher, const struct imagepipe_jpeg_resampling *resampling,
                                     struct imagepipe_jpeg_result *result, char *message, size_t message_size) {
    memset(result, 0, sizeof *result);
    enum { read_buffer_size = 256 << 10 };
    struct imagepipe_descriptor_source source = { .descriptor = descriptor, .capacity = read_buffer_size };
    source.buffer = malloc(read_buffer_size);
    if (!source.buffer) {
        snprintf(message, message_size, "not enough memory to read the file");
        return -1;
    }
    int status = decode(&source, NULL, 0, at_least_width, at_least_height, max_pixels, fail_on, limits, region, watcher, resampling, result, message, message_size);
    free(source.buffer);
    return status;
}

/* An APP1 marker of `prefix` then `data`, when there is data and it fits in one marker. The
   buffer is held in *marker while libjpeg may jump out, so that the caller can free it. */
static void write_app1(j_compress_ptr cinfo, unsigned char *volatile *marker, const char *prefix, size_t prefix_size,
                       const unsigned char *data, size_t size) {
    if (!data || size == 0 || size + prefix_size > 65533) return;
    *marker = malloc(size + prefix_size);
    if (!*marker) return;
    memcpy(*marker, prefix, prefix_size);
    memcpy(*marker + prefix_size, data, size);
    jpeg_write_marker(cinfo, JPEG_APP0 + 1, *marker, (unsigned int)(size + prefix_size));
    free(*marker);
    *marker = NULL;
}

int imagepipe_jpeg_encode(const unsigned char *pixels, int width, int height, int rowstride, int ring_rows,
                          int quality, int subsampling, int grey, int progressive, int optimize,
                          const unsigned char *icc, size_t icc_size, const unsigned char *exif, size_t exif_size,
                          const unsigned char *xmp, size_t xmp_size,
                          int (*rows_ready)(void *rows_context, int needed), void *rows_context,
                          int (*drain)(void *drain_context, const unsigned char *bytes, size_t size), void *drain_context,
                          unsigned char **out, unsigned long *out_size, char *message, size_t message_size) {
    struct jpeg_compress_struct cinfo;
    struct strict_error error;
    unsigned char *volatile marker = NULL;
    *out = NULL;
    *out_size = 0;
    cinfo.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = fail;
    error.message = message;
    error.message_size = message_size;
    error.fail_on = 3;
    error.result = NULL;
    error.in_header = 0;
    struct imagepipe_growing_destination destination;
    memset(&destination, 0, sizeof destination);
    destination.drain = drain;
    destination.drain_context = drain_context;
    if (setjmp(error.escape)) {
        jpeg_destroy_compress(&cinfo);
        free(marker);
        /* Read through memory: the buffer may have grown since setjmp. */
        free(((volatile struct imagepipe_growing_destination *)&destination)->buffer);
        return -1;
    }
    destination.capacity = 1 << 16;
    destination.buffer = malloc(destination.capacity);
    if (!destination.buffer) {
        snprintf(message, message_size, "not enough memory for the encoder's output");
        return -1;
    }
    jpeg_create_compress(&cinfo);
    imagepipe_growing_destination_use(&cinfo, &destination);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (grey) {
        jpeg_set_colorspace(&cinfo, JCS_GRAYSCALE);
        cinfo.comp_info[0].h_samp_factor = cinfo.comp_info[0].v_samp_factor = 1;
    } else {
        /* Luma at 1x1 always; chroma sampled at half resolution across (422) or both ways (420). */
        int h = subsampling == 444 ? 1 : 2, v = subsampling == 420 ? 2 : 1;
        cinfo.comp_info[0].h_samp_factor = h;
        cinfo.comp_info[0].v_samp_factor = v;
        cinfo.comp_info[1].h_samp_factor = cinfo.comp_info[1].v_samp_factor = 1;
        cinfo.comp_info[2].h_samp_factor = cinfo.comp_info[2].v_samp_factor = 1;
    }
    cinfo.optimize_coding = optimize ? TRUE : FALSE;
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    write_app1(&cinfo, &marker, exif_marker, 6, exif, exif_size);
    write_app1(&cinfo, &marker, xmp_marker, 29, xmp, xmp_size);
    /* The chunk count is one byte: libjpeg would wrap it past 255 chunks and write a profile no
       reader can put together. The Swift side refuses such profiles first; this is the backstop. */
    if (icc && icc_size > 255u * 65519u) {
        snprintf(message, message_size, "an ICC profile of %zu bytes does not fit in a JPEG", icc_size);
        longjmp(error.escape, 1);
    }
    if (icc && icc_size > 0) jpeg_write_icc_profile(&cinfo, icc, (unsigned int)icc_size);
    int ready = rows_ready ? 0 : height;
    while (cinfo.next_scanline < cinfo.image_height) {
        int next = (int)cinfo.next_scanline;
        if (next >= ready) {
            ready = rows_ready(rows_context, next + 1);
            if (ready <= next) {
                snprintf(message, message_size, "row %d of the picture never came", next);
                longjmp(error.escape, 1);
            }
        }
        unsigned int slot = ring_rows > 0 ? cinfo.next_scanline % (unsigned int)ring_rows : cinfo.next_scanline;
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)rowstride * slot);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    if (drain) {
        free(destination.buffer);
        return 0;
    }
    *out = destination.buffer;
    *out_size = (unsigned long)imagepipe_growing_destination_used(&destination);
    return 0;
}

void imagepipe_jpeg_free(unsigned char *pixels, void *unused) {
    (void)unused;
    free(pixels);
}
