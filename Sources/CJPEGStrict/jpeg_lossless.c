#include "jpeg_lossless.h"
#include "growing_destination.h"

#include <stdio.h> /* before jpeglib.h, which uses FILE */
#include <jpeglib.h>
#include <jerror.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Both sets of coefficients (input and output) must fit: 16 bytes a pixel for a 4:4:4 CMYK
   picture, so 4 GiB lets through everything under the default pixel limit (~179 million) and
   stops a forged header from asking for more when the caller sets no limit. */
#define LOSSLESS_MAX_MEMORY (4096LL << 20)
/* libjpeg's cap is a long: a 32-bit one cannot say 4 GiB, nor could it use that much. */
#define LOSSLESS_MEMORY_CAP ((long)(LOSSLESS_MAX_MEMORY < LONG_MAX ? LOSSLESS_MAX_MEMORY : LONG_MAX))

struct lossless_error {
    struct jpeg_error_mgr manager; /* first: libjpeg hands back a pointer to it */
    jmp_buf escape;
    char *message;
    size_t message_size;
    int status;
    int in_header; /* reading the segments before the first scan */
};

/* Every op is a transpose (or not) followed by mirrors in the output's own coordinates: the one
   form in which block positions and coefficient signs are easy to get right for all eight. */
struct lossless_geometry {
    int transpose, mirror_x, mirror_y;
};

/* On the heap rather than the stack: whatever the handler after setjmp reads must not be an
   automatic variable changed since setjmp, whose value C leaves undefined after longjmp. */
struct lossless_job {
    struct jpeg_decompress_struct input;
    struct jpeg_compress_struct output;
    struct lossless_error error;
    struct jpeg_progress_mgr progress;
    const struct imagepipe_jpeg_limits *limits;
    unsigned int calls;
    struct imagepipe_growing_destination destination;
};

static _Noreturn void lossless_refuse(struct lossless_error *error, int status, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    if (error->message && error->message_size) vsnprintf(error->message, error->message_size, format, arguments);
    va_end(arguments);
    error->status = status;
    longjmp(error->escape, 1);
}

static void lossless_fail(j_common_ptr cinfo) {
    struct lossless_error *error = (struct lossless_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    lossless_refuse(error, IMAGEPIPE_LOSSLESS_FAILED, "%s", text);
}

/* Level -1 is libjpeg noticing damage (corrupt entropy data, a premature end) and going on with
   made-up coefficients: a transform must not pass those off as the picture, so it is an error.
   Bytes between two segments before the first scan that start no marker are passed over, as
   the decode passes over them (jpeg_strict.c): no coefficient comes from them. */
static void lossless_emit(j_common_ptr cinfo, int level) {
    struct lossless_error *error = (struct lossless_error *)cinfo->err;
    if (level < 0 && !(error->in_header && cinfo->err->msg_code == JWRN_EXTRANEOUS_DATA)) lossless_fail(cinfo);
}

/* libjpeg calls this for each step of reading the coefficients and of writing them: the one place
   a long transform can be stopped from inside (the deadline, every 16th call). The scans were
   counted before any was read (lossless_count_scans); this is the backstop. */
static void lossless_monitor(j_common_ptr cinfo) {
    struct lossless_job *job = (struct lossless_job *)((char *)cinfo->progress - offsetof(struct lossless_job, progress));
    const struct imagepipe_jpeg_limits *limits = job->limits;
    if (!limits) return;
    if (cinfo->is_decompressor && limits->max_scans > 0 && ((j_decompress_ptr)cinfo)->input_scan_number > limits->max_scans)
        lossless_refuse(&job->error, IMAGEPIPE_LOSSLESS_REFUSED, "more than %d scans (a progressive JPEG needs at most a few dozen)",
                        limits->max_scans);
    if (limits->should_stop && (job->calls++ & 15) == 0 && limits->should_stop(limits->context))
        lossless_refuse(&job->error, IMAGEPIPE_LOSSLESS_STOPPED, "the lossless transform went past the time limit");
}

/* The scans (SOS markers) of a JPEG, counted by walking its segments by their lengths and its
   entropy-coded data byte by byte (where 0xFF is always followed by a stuffed 0x00, a restart
   marker or the next marker), up to just past `limit`: so a scan bomb is refused before libjpeg
   reads a single scan, and a marker-like pair inside an EXIF thumbnail is not counted. */
static int lossless_count_scans(const unsigned char *data, size_t size, int limit) {
    int scans = 0;
    size_t at = 2; /* past SOI */
    while (at + 1 < size) {
        if (data[at] != 0xFF) { at++; continue; }
        unsigned char marker = data[at + 1];
        if (marker == 0xFF) { at++; continue; }                                     /* fill byte */
        if (marker == 0x00 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) { /* stuffed, TEM, RSTn */
            at += 2;
            continue;
        }
        if (marker == 0xD9 || at + 3 >= size) break; /* EOI, or a cut segment header libjpeg will refuse */
        if (marker == 0xDA && ++scans > limit) break;
        at += 2 + ((size_t)data[at + 2] << 8 | data[at + 3]);
    }
    return scans;
}

static int lossless_gcd(int a, int b) {
    while (b) {
        int rest = a % b;
        a = b;
        b = rest;
    }
    return a;
}

/* The step, in pixels, at which every component's blocks end together on one axis. A picture side
   that is a multiple of it has no partial block in any component; a crop starting on it starts on
   a block boundary in every component. That is the iMCU (8 x the largest sampling factor) for the
   usual layouts, and 8 when all components are sampled alike, greyscale included: such blocks hold
   whole pixels, whatever factor the header declares. */
static int lossless_step(j_decompress_ptr input, int vertical) {
    int largest = DCTSIZE * (vertical ? input->max_v_samp_factor : input->max_h_samp_factor);
    int step = 1;
    for (int c = 0; c < input->num_components; c++) {
        int factor = vertical ? input->comp_info[c].v_samp_factor : input->comp_info[c].h_samp_factor;
        int needed = largest / lossless_gcd(largest, factor);
        step = step / lossless_gcd(step, needed) * needed;
    }
    return step;
}

/* A name for the layout that a user knows from image tools, for the messages. */
static void lossless_describe(j_decompress_ptr input, char *text, size_t size) {
    const jpeg_component_info *c = input->comp_info;
    int chroma_whole = 1;
    for (int i = 1; i < input->num_components; i++)
        if (c[i].h_samp_factor != 1 || c[i].v_samp_factor != 1) chroma_whole = 0;
    if (input->num_components == 1) {
        snprintf(text, size, "greyscale");
    } else if (input->num_components == 3 && chroma_whole) {
        static const struct { int h, v; const char *name; } names[] = {
            {1, 1, "4:4:4"}, {2, 1, "4:2:2"}, {2, 2, "4:2:0"}, {1, 2, "4:4:0"}, {4, 1, "4:1:1"}, {4, 2, "4:1:0"}};
        snprintf(text, size, "%dx%d-sampled", c[0].h_samp_factor, c[0].v_samp_factor);
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (names[i].h == c[0].h_samp_factor && names[i].v == c[0].v_samp_factor) snprintf(text, size, "%s", names[i].name);
    } else if (input->num_components == 4 && chroma_whole && c[0].h_samp_factor == 1 && c[0].v_samp_factor == 1) {
        snprintf(text, size, input->jpeg_color_space == JCS_YCCK ? "YCCK" : "CMYK");
    } else {
        snprintf(text, size, "%d-component", input->num_components);
    }
}

static const char *lossless_verb(int op) {
    switch (op) {
    case IMAGEPIPE_LOSSLESS_ROTATE_90: return "turns 90\u00b0";
    case IMAGEPIPE_LOSSLESS_ROTATE_180: return "turns 180\u00b0";
    case IMAGEPIPE_LOSSLESS_ROTATE_270: return "turns 270\u00b0";
    case IMAGEPIPE_LOSSLESS_FLIP: return "flips top to bottom";
    case IMAGEPIPE_LOSSLESS_FLOP: return "flips left to right";
    default: return "transverses";
    }
}

/* Mirroring moves the blocks of one side to the other: a partial block (the picture ends inside
   it, the decoder drops the rest) would land at the left or top, where its dropped part shows and
   the picture slides. Only the right and bottom may end inside a block, so each mirrored side must
   be a multiple of the step. */
static void lossless_check_perfect(struct lossless_job *job, int op, struct lossless_geometry geometry) {
    j_decompress_ptr input = &job->input;
    /* A mirror across the output comes from the input's rows when the picture is transposed. */
    int mirrors_width = geometry.transpose ? geometry.mirror_y : geometry.mirror_x;
    int mirrors_height = geometry.transpose ? geometry.mirror_x : geometry.mirror_y;
    int step_x = lossless_step(input, 0), step_y = lossless_step(input, 1);
    int width_bad = mirrors_width && input->image_width % (unsigned int)step_x != 0;
    int height_bad = mirrors_height && input->image_height % (unsigned int)step_y != 0;
    if (!width_bad && !height_bad) return;
    char kind[32];
    lossless_describe(input, kind, sizeof kind);
    if (width_bad && height_bad)
        lossless_refuse(&job->error, IMAGEPIPE_LOSSLESS_NOT_PERFECT,
                        "a %s JPEG %s losslessly only when its width is a multiple of %d and its height of %d "
                        "(this one is %ux%u)", kind, lossless_verb(op), step_x, step_y,
                        input->image_width, input->image_height);
    if (width_bad)
        lossless_refuse(&job->error, IMAGEPIPE_LOSSLESS_NOT_PERFECT,
                        "a %s JPEG %s losslessly only when its width is a multiple of %d (this one is %u wide)",
                        kind, lossless_verb(op), step_x, input->image_width);
    lossless_refuse(&job->error, IMAGEPIPE_LOSSLESS_NOT_PERFECT,
                    "a %s JPEG %s losslessly only when its height is a multiple of %d (this one is %u high)",
                    kind, lossless_verb(op), step_y, input->image_height);
}

/* Where each of the 64 coefficients of an output block comes from, and its sign. Transposing the
   pixels of a block transposes its coefficients; mirroring it across reverses the sign of the
   basis functions that are odd across (odd horizontal frequency), and down likewise. */
static void lossless_block_map(struct lossless_geometry geometry, int source[DCTSIZE2], int sign[DCTSIZE2]) {
    for (int v = 0; v < DCTSIZE; v++) {     /* vertical frequency: the row */
        for (int u = 0; u < DCTSIZE; u++) { /* horizontal frequency: the column */
            int k = v * DCTSIZE + u;
            source[k] = geometry.transpose ? u * DCTSIZE + v : k;
            int negate = (geometry.mirror_x && (u & 1)) ^ (geometry.mirror_y && (v & 1));
            sign[k] = negate ? -1 : 1;
        }
    }
}

static JDIMENSION lossless_blocks(JDIMENSION pixels, int factor, int largest) {
    long long samples = (long long)pixels * factor;
    long long per_block = (long long)largest * DCTSIZE;
    return (JDIMENSION)((samples + per_block - 1) / per_block);
}

static JDIMENSION lossless_round_up(JDIMENSION value, int multiple) {
    return (value + (JDIMENSION)multiple - 1) / (JDIMENSION)multiple * (JDIMENSION)multiple;
}

/* The output's sampling factors: a transposed picture swaps rows for columns in every component.
   A lone component's factors mean nothing (its blocks hold whole pixels), so it gets the plain
   1x1 that every reader expects of greyscale. */
static void lossless_output_factors(j_decompress_ptr input, struct lossless_geometry geometry, int c, int *h, int *v) {
    *h = geometry.transpose ? input->comp_info[c].v_samp_factor : input->comp_info[c].h_samp_factor;
    *v = geometry.transpose ? input->comp_info[c].h_samp_factor : input->comp_info[c].v_samp_factor;
    if (input->num_components == 1) *h = *v = 1;
}

/* What the coefficients of both pictures take, for a clear refusal before libjpeg would fail to
   place them (its arrays are all in memory: this build has no backing store). */
static long long lossless_memory_needed(j_decompress_ptr input, struct lossless_geometry geometry, int copies,
                                        JDIMENSION out_width, JDIMENSION out_height) {
    long long total = 0;
    int max_h = 1, max_v = 1;
    for (int c = 0; c < input->num_components; c++) {
        int h, v;
        lossless_output_factors(input, geometry, c, &h, &v);
        if (h > max_h) max_h = h;
        if (v > max_v) max_v = v;
    }
    for (int c = 0; c < input->num_components; c++) {
        const jpeg_component_info *component = &input->comp_info[c];
        long long in_w = lossless_round_up(lossless_blocks(input->image_width, component->h_samp_factor, input->max_h_samp_factor),
                                           component->h_samp_factor);
        long long in_h = lossless_round_up(lossless_blocks(input->image_height, component->v_samp_factor, input->max_v_samp_factor),
                                           component->v_samp_factor);
        total += in_w * in_h * (long long)sizeof(JBLOCK);
        if (!copies) continue;
        int h, v;
        lossless_output_factors(input, geometry, c, &h, &v);
        long long out_w = lossless_round_up(lossless_blocks(out_width, h, max_h), h);
        long long out_h = lossless_round_up(lossless_blocks(out_height, v, max_v), v);
        total += out_w * out_h * (long long)sizeof(JBLOCK);
    }
    return total;
}

/* Fills the output's arrays, row by row from the top, as libjpeg requires of a first write. */
static void lossless_move_blocks(struct lossless_job *job, jvirt_barray_ptr *source_arrays, jvirt_barray_ptr *arrays,
                                 struct lossless_geometry geometry, JDIMENSION frame_width, JDIMENSION frame_height,
                                 JDIMENSION crop_x, JDIMENSION crop_y) {
    j_decompress_ptr input = &job->input;
    j_compress_ptr output = &job->output;
    int source_index[DCTSIZE2], sign[DCTSIZE2];
    lossless_block_map(geometry, source_index, sign);
    for (int c = 0; c < output->num_components; c++) {
        const jpeg_component_info *in = &input->comp_info[c];
        const jpeg_component_info *out = &output->comp_info[c];
        /* The transposed input's size in blocks: the frame the mirrors work in. A mirrored side is
           whole steps (checked, or trimmed to them), so its blocks are exact; a side not mirrored
           keeps its partial block at the end, where it stays. */
        JDIMENSION frame_w = geometry.mirror_x ? (JDIMENSION)((long long)frame_width * out->h_samp_factor / (output->max_h_samp_factor * DCTSIZE))
                                               : geometry.transpose ? in->height_in_blocks : in->width_in_blocks;
        JDIMENSION frame_h = geometry.mirror_y ? (JDIMENSION)((long long)frame_height * out->v_samp_factor / (output->max_v_samp_factor * DCTSIZE))
                                               : geometry.transpose ? in->width_in_blocks : in->height_in_blocks;
        /* The crop starts on a block boundary of every component (checked), so this is exact. */
        JDIMENSION skip_x = (JDIMENSION)((long long)crop_x * out->h_samp_factor / (output->max_h_samp_factor * DCTSIZE));
        JDIMENSION skip_y = (JDIMENSION)((long long)crop_y * out->v_samp_factor / (output->max_v_samp_factor * DCTSIZE));
        JDIMENSION rows = lossless_round_up(out->height_in_blocks, out->v_samp_factor);
        for (JDIMENSION oy = 0; oy < rows; oy++) {
            JBLOCKROW row = (*output->mem->access_virt_barray)((j_common_ptr)output, arrays[c], oy, 1, TRUE)[0];
            /* The arrays are rounded up to whole MCUs; libjpeg writes its own dummy blocks there,
               so these stay as they came: zero. */
            if (oy >= out->height_in_blocks) continue;
            JDIMENSION fy = oy + skip_y;
            JDIMENSION frame_y = geometry.mirror_y ? frame_h - 1 - fy : fy;
            JBLOCKROW source_row = NULL;
            if (!geometry.transpose)
                source_row = (*input->mem->access_virt_barray)((j_common_ptr)input, source_arrays[c], frame_y, 1, FALSE)[0];
            for (JDIMENSION ox = 0; ox < out->width_in_blocks; ox++) {
                JDIMENSION fx = ox + skip_x;
                JDIMENSION frame_x = geometry.mirror_x ? frame_w - 1 - fx : fx;
                JCOEFPTR from;
                if (geometry.transpose) {
                    /* Frame column frame_x is input row frame_x. */
                    from = (*input->mem->access_virt_barray)((j_common_ptr)input, source_arrays[c], frame_x, 1, FALSE)[0][frame_y];
                } else {
                    from = source_row[frame_x];
                }
                JCOEFPTR to = row[ox];
                for (int k = 0; k < DCTSIZE2; k++) to[k] = (JCOEF)(sign[k] * from[source_index[k]]);
            }
        }
    }
}

/* An APP1 marker of `prefix` then `data`, written a byte at a time so that nothing is allocated
   that a longjmp could leak. */
static void lossless_write_app1(j_compress_ptr output, const char *prefix, size_t prefix_size,
                                const unsigned char *data, size_t size) {
    if (!data || size == 0 || size + prefix_size > 65533) return;
    jpeg_write_m_header(output, JPEG_APP0 + 1, (unsigned int)(size + prefix_size));
    for (size_t i = 0; i < prefix_size; i++) jpeg_write_m_byte(output, (unsigned char)prefix[i]);
    for (size_t i = 0; i < size; i++) jpeg_write_m_byte(output, data[i]);
}

static struct lossless_geometry lossless_geometry_of(int op) {
    struct lossless_geometry geometry = {0, 0, 0};
    switch (op) {
    case IMAGEPIPE_LOSSLESS_ROTATE_90: geometry = (struct lossless_geometry){1, 1, 0}; break;
    case IMAGEPIPE_LOSSLESS_ROTATE_180: geometry = (struct lossless_geometry){0, 1, 1}; break;
    case IMAGEPIPE_LOSSLESS_ROTATE_270: geometry = (struct lossless_geometry){1, 0, 1}; break;
    case IMAGEPIPE_LOSSLESS_FLIP: geometry = (struct lossless_geometry){0, 0, 1}; break;
    case IMAGEPIPE_LOSSLESS_FLOP: geometry = (struct lossless_geometry){0, 1, 0}; break;
    case IMAGEPIPE_LOSSLESS_TRANSPOSE: geometry = (struct lossless_geometry){1, 0, 0}; break;
    case IMAGEPIPE_LOSSLESS_TRANSVERSE: geometry = (struct lossless_geometry){1, 1, 1}; break;
    default: break;
    }
    return geometry;
}

static void lossless_run(struct lossless_job *job, const unsigned char *data, size_t size, int op,
                         const struct imagepipe_jpeg_lossless_crop *crop, int trim, struct imagepipe_jpeg_lossless_trim *trimmed,
                         long long max_pixels,
                         const struct imagepipe_jpeg_limits *limits,
                         const unsigned char *icc, size_t icc_size, const unsigned char *exif, size_t exif_size,
                         const unsigned char *xmp, size_t xmp_size) {
    static const char exif_prefix[] = "Exif\0\0";                      /* 6 bytes */
    static const char xmp_prefix[] = "http://ns.adobe.com/xap/1.0/"; /* + NUL: 29 bytes */
    j_decompress_ptr input = &job->input;
    j_compress_ptr output = &job->output;
    struct lossless_error *error = &job->error;
    if (op < IMAGEPIPE_LOSSLESS_NONE || op > IMAGEPIPE_LOSSLESS_TRANSVERSE)
        lossless_refuse(error, IMAGEPIPE_LOSSLESS_FAILED, "unknown lossless transform %d", op);
    /* The chunk count is one byte: libjpeg would wrap it past 255 chunks. */
    if (icc && icc_size > 255u * 65519u)
        lossless_refuse(error, IMAGEPIPE_LOSSLESS_FAILED, "an ICC profile of %zu bytes does not fit in a JPEG", icc_size);
    if (!data || size == 0) lossless_refuse(error, IMAGEPIPE_LOSSLESS_FAILED, "the JPEG data is empty");
    job->limits = limits;
    if (limits && limits->max_scans > 0 && lossless_count_scans(data, size, limits->max_scans) > limits->max_scans)
        lossless_refuse(error, IMAGEPIPE_LOSSLESS_REFUSED, "more than %d scans (a progressive JPEG needs at most a few dozen)",
                        limits->max_scans);
    struct lossless_geometry geometry = lossless_geometry_of(op);

    input->err = jpeg_std_error(&error->manager);
    error->manager.error_exit = lossless_fail;
    error->manager.emit_message = lossless_emit;
    jpeg_create_decompress(input);
    input->mem->max_memory_to_use = LOSSLESS_MEMORY_CAP;
    job->progress.progress_monitor = lossless_monitor;
    input->progress = &job->progress;
    jpeg_mem_src(input, data, (unsigned long)size);
    /* No jpeg_save_markers: the caller hands over all the metadata the output is to have. */
    error->in_header = 1;
    jpeg_read_header(input, TRUE);
    error->in_header = 0;
    long long pixels = (long long)input->image_width * input->image_height;
    if (max_pixels > 0 && pixels > max_pixels)
        lossless_refuse(error, IMAGEPIPE_LOSSLESS_FAILED, "%ux%u is %lld pixels, more than the limit of %lld",
                        input->image_width, input->image_height, pixels, max_pixels);
    if (!trim) lossless_check_perfect(job, op, geometry);

    /* The turned picture, and the step of its block grid on each axis. */
    JDIMENSION full_width = geometry.transpose ? input->image_height : input->image_width;
    JDIMENSION full_height = geometry.transpose ? input->image_width : input->image_height;
    int step_x = lossless_step(input, geometry.transpose), step_y = lossless_step(input, !geometry.transpose);
    /* A mirrored side that is not whole steps brings its partial block to the turned picture's
       left or top: trimmed, those pixels are dropped (what jpegtran -trim drops), and the block
       grid starts after them. Without trim the check above refused it, so they are 0. */
    JDIMENSION partial_x = geometry.mirror_x ? full_width % (JDIMENSION)step_x : 0;
    JDIMENSION partial_y = geometry.mirror_y ? full_height % (JDIMENSION)step_y : 0;
    if (partial_x >= full_width || partial_y >= full_height)
        lossless_refuse(error, IMAGEPIPE_LOSSLESS_NOT_PERFECT,
                        "a %ux%u JPEG is smaller than one whole block of %d by %d pixels: trimming its partial blocks leaves nothing",
                        input->image_width, input->image_height, step_x, step_y);
    JDIMENSION frame_width = full_width - partial_x, frame_height = full_height - partial_y;
    JDIMENSION out_width = frame_width, out_height = frame_height, crop_x = 0, crop_y = 0;
    int trim_left = (int)partial_x, trim_top = (int)partial_y;
    if (crop) {
        if (crop->x < 0 || crop->y < 0 || crop->width < 1 || crop->height < 1 ||
            (long long)crop->x + crop->width > full_width || (long long)crop->y + crop->height > full_height)
            lossless_refuse(error, IMAGEPIPE_LOSSLESS_FAILED, "the crop %dx%d at %d,%d does not fit in the %ux%u picture%s",
                            crop->width, crop->height, crop->x, crop->y, full_width, full_height,
                            op == IMAGEPIPE_LOSSLESS_NONE ? "" : " (after the transform)");
        if (!trim && (crop->x % step_x != 0 || crop->y % step_y != 0)) {
            char kind[32];
            lossless_describe(input, kind, sizeof kind);
            lossless_refuse(error, IMAGEPIPE_LOSSLESS_NOT_PERFECT,
                            "a %s JPEG crops losslessly only at multiples of its iMCU, %d across by %d down%s "
                            "(this crop starts at %d,%d)", kind, step_x, step_y,
                            op == IMAGEPIPE_LOSSLESS_NONE ? "" : " after the transform", crop->x, crop->y);
        }
        /* In the trimmed picture: the corner moved in to the next block boundary, the far edges
           kept (a partial block may end the picture at the right and bottom). */
        long long start_x = (long long)crop->x > partial_x ? crop->x - (long long)partial_x : 0;
        long long start_y = (long long)crop->y > partial_y ? crop->y - (long long)partial_y : 0;
        start_x = (start_x + step_x - 1) / step_x * step_x;
        start_y = (start_y + step_y - 1) / step_y * step_y;
        long long end_x = (long long)crop->x + crop->width - partial_x, end_y = (long long)crop->y + crop->height - partial_y;
        if (end_x <= start_x || end_y <= start_y)
            lossless_refuse(error, IMAGEPIPE_LOSSLESS_NOT_PERFECT,
                            "the crop %dx%d at %d,%d holds no whole block of the %ux%u picture%s (its blocks are %d by %d pixels): "
                            "trimming leaves nothing", crop->width, crop->height, crop->x, crop->y, full_width, full_height,
                            op == IMAGEPIPE_LOSSLESS_NONE ? "" : " (after the transform)", step_x, step_y);
        out_width = (JDIMENSION)(end_x - start_x);
        out_height = (JDIMENSION)(end_y - start_y);
        crop_x = (JDIMENSION)start_x;
        crop_y = (JDIMENSION)start_y;
        trim_left = (int)(start_x + partial_x - crop->x);
        trim_top = (int)(start_y + partial_y - crop->y);
    }
    if (trimmed) {
        trimmed->left = trim_left;
        trimmed->top = trim_top;
    }
    /* Without a change of place, the input's arrays are written as they are: no second copy. */
    int copies = op != IMAGEPIPE_LOSSLESS_NONE || crop_x || crop_y || out_width != frame_width || out_height != frame_height;
    long long needed = lossless_memory_needed(input, geometry, copies, out_width, out_height);
    if (needed > LOSSLESS_MAX_MEMORY)
        lossless_refuse(error, IMAGEPIPE_LOSSLESS_FAILED,
                        "a %ux%u JPEG needs %lld MiB for its coefficients, more than the limit of %lld MiB",
                        input->image_width, input->image_height, needed >> 20, LOSSLESS_MAX_MEMORY >> 20);

    jvirt_barray_ptr *source_arrays = jpeg_read_coefficients(input);

    output->err = &error->manager;
    jpeg_create_compress(output);
    output->mem->max_memory_to_use = LOSSLESS_MEMORY_CAP;
    output->progress = &job->progress;
    /* Output is usually about the input's size: start there and seldom grow. */
    size_t start = size + icc_size + exif_size + xmp_size + 4096;
    job->destination.capacity = start < 65536 ? 65536 : start;
    job->destination.buffer = malloc(job->destination.capacity);
    if (!job->destination.buffer) lossless_refuse(error, IMAGEPIPE_LOSSLESS_FAILED, "not enough memory for the output");
    imagepipe_growing_destination_use(output, &job->destination);

    jpeg_copy_critical_parameters(input, output);
    output->image_width = out_width;
    output->image_height = out_height;
    for (int c = 0; c < output->num_components; c++) {
        int h, v;
        lossless_output_factors(input, geometry, c, &h, &v);
        output->comp_info[c].h_samp_factor = h;
        output->comp_info[c].v_samp_factor = v;
    }
    if (geometry.transpose) {
        /* The coefficients are transposed, so each step size must go with its coefficient: the
           table is stored in natural order, entry row * 8 + column. */
        for (int t = 0; t < NUM_QUANT_TBLS; t++) {
            JQUANT_TBL *table = output->quant_tbl_ptrs[t];
            if (!table) continue;
            for (int row = 0; row < DCTSIZE; row++) {
                for (int column = row + 1; column < DCTSIZE; column++) {
                    UINT16 swap = table->quantval[row * DCTSIZE + column];
                    table->quantval[row * DCTSIZE + column] = table->quantval[column * DCTSIZE + row];
                    table->quantval[column * DCTSIZE + row] = swap;
                }
            }
        }
        /* A pixel that was wide is now tall. */
        UINT16 density = output->X_density;
        output->X_density = output->Y_density;
        output->Y_density = density;
    }
    /* Readers, this project's decoder among them, take a CMYK JPEG with an Adobe marker to be
       stored inverted, as Photoshop writes them. libjpeg puts the marker on every CMYK output,
       which would turn the ink of a file written without one inside out. */
    if (input->jpeg_color_space == JCS_CMYK) output->write_Adobe_marker = input->saw_Adobe_marker;
    output->optimize_coding = TRUE;
    output->arith_code = FALSE;
    /* progressive_mode, not jpeg_has_multiple_scans: a sequential file with one scan per
       component is not progressive and would otherwise turn into one. */
    if (input->progressive_mode) jpeg_simple_progression(output);

    jvirt_barray_ptr *arrays = source_arrays;
    if (copies) {
        arrays = (*output->mem->alloc_small)((j_common_ptr)output, JPOOL_IMAGE, sizeof(jvirt_barray_ptr) * (size_t)output->num_components);
        int max_h = 1, max_v = 1;
        for (int c = 0; c < output->num_components; c++) {
            if (output->comp_info[c].h_samp_factor > max_h) max_h = output->comp_info[c].h_samp_factor;
            if (output->comp_info[c].v_samp_factor > max_v) max_v = output->comp_info[c].v_samp_factor;
        }
        for (int c = 0; c < output->num_components; c++) {
            int h = output->comp_info[c].h_samp_factor, v = output->comp_info[c].v_samp_factor;
            /* Rounded up to whole MCUs, as libjpeg reads a row of MCUs (v block rows) at a time. */
            JDIMENSION columns = lossless_round_up(lossless_blocks(out_width, h, max_h), h);
            JDIMENSION rows = lossless_round_up(lossless_blocks(out_height, v, max_v), v);
            arrays[c] = (*output->mem->request_virt_barray)((j_common_ptr)output, JPOOL_IMAGE, TRUE, columns, rows, (JDIMENSION)v);
        }
    }
    /* Realizes the arrays requested above, which are filled only after it. */
    jpeg_write_coefficients(output, arrays);
    if (copies) lossless_move_blocks(job, source_arrays, arrays, geometry, frame_width, frame_height, crop_x, crop_y);
    lossless_write_app1(output, exif_prefix, 6, exif, exif_size);
    lossless_write_app1(output, xmp_prefix, 29, xmp, xmp_size);
    if (icc && icc_size > 0) jpeg_write_icc_profile(output, icc, (unsigned int)icc_size);
    jpeg_finish_compress(output);
    /* Reads on to the EOI marker, where damage after the last scan would still show. */
    jpeg_finish_decompress(input);
}

int imagepipe_jpeg_lossless_transform(const unsigned char *data, size_t size,
                                      int op, const struct imagepipe_jpeg_lossless_crop *crop,
                                      int trim, struct imagepipe_jpeg_lossless_trim *trimmed,
                                      long long max_pixels, const struct imagepipe_jpeg_limits *limits,
                                      const unsigned char *icc, size_t icc_size,
                                      const unsigned char *exif, size_t exif_size,
                                      const unsigned char *xmp, size_t xmp_size,
                                      unsigned char **out, unsigned long *out_size,
                                      char *message, size_t message_size) {
    *out = NULL;
    *out_size = 0;
    if (message && message_size) message[0] = '\0';
    if (trimmed) trimmed->left = trimmed->top = 0;
    /* volatile: kept in memory across setjmp, as gcc's -Wclobbered asks of any local used after it. */
    struct lossless_job *volatile job = calloc(1, sizeof *job);
    if (!job) {
        if (message && message_size) snprintf(message, message_size, "not enough memory for a lossless transform");
        return IMAGEPIPE_LOSSLESS_FAILED;
    }
    job->error.message = message;
    job->error.message_size = message_size;
    job->error.status = IMAGEPIPE_LOSSLESS_FAILED;
    if (setjmp(job->error.escape)) {
        /* Both are safe to destroy whether or not they were ever created: calloc left mem NULL. */
        jpeg_destroy_compress(&job->output);
        jpeg_destroy_decompress(&job->input);
        free(job->destination.buffer);
        int status = job->error.status;
        free(job);
        return status;
    }
    lossless_run(job, data, size, op, crop, trim, trimmed, max_pixels, limits, icc, icc_size, exif, exif_size, xmp, xmp_size);
    size_t used = imagepipe_growing_destination_used(&job->destination);
    jpeg_destroy_compress(&job->output);
    jpeg_destroy_decompress(&job->input);
    /* Give back the slack of the last doubling; the file is handed on, maybe kept a while. */
    unsigned char *file = realloc(job->destination.buffer, used ? used : 1);
    *out = file ? file : job->destination.buffer;
    *out_size = (unsigned long)used;
    free(job);
    return IMAGEPIPE_LOSSLESS_OK;
}
