#include "plane_resampler.h"
#include "pixel_kernels.h"

#include <stdlib.h>
#include <string.h>

/* A plane's ring, weights and working rows. Row weights are padded with zeros to `row_taps`, a
 * multiple of 8, as imagepipe_filter_plane_row takes them. */
struct plane_state {
    int width, height, row_bytes, ring_rows;
    unsigned char *ring;
    int outputs, row_taps;
    int32_t *row_first;
    int16_t *row_weights;   /* outputs × row_taps */
    int rows_out, column_taps;
    int32_t *column_first, *column_used;
    int16_t *column_weights; /* rows_out × column_taps */
    const uint8_t **sources; /* column_taps + 1 row pointers, for one output row */
    int16_t *pair_weights;   /* their weights, the odd one out at 0 */
    int32_t *sums;           /* width */
    int16_t *levels;         /* width + row_taps, zero past the width */
    int32_t *values;         /* outputs: the plane's output row in 64ths of a level */
};

struct imagepipe_plane_resampler {
    int count, colors;
    struct plane_state planes[3];
    uint8_t *bytes; /* an output row's red, green and blue, each a row of its own */
};

static void free_plane(struct plane_state *plane) {
    free(plane->ring);
    free(plane->row_first);
    free(plane->row_weights);
    free(plane->column_first);
    free(plane->column_used);
    free(plane->column_weights);
    free(plane->sources);
    free(plane->pair_weights);
    free(plane->sums);
    free(plane->levels);
    free(plane->values);
}

void imagepipe_plane_resampler_free(struct imagepipe_plane_resampler *resampler) {
    if (!resampler) return;
    for (int p = 0; p < resampler->count; p++) free_plane(&resampler->planes[p]);
    free(resampler->bytes);
    free(resampler);
}

static int valid_plane(const struct imagepipe_plane *plane) {
    const struct imagepipe_axis_weights *x = &plane->x, *y = &plane->y;
    if (plane->width <= 0 || plane->height <= 0 || plane->row_bytes < plane->width || plane->band_rows <= 0 ||
        x->taps <= 0 || y->taps <= 0 || x->outputs <= 0 || y->outputs <= 0) return 0;
    for (int i = 0; i < x->outputs; i++) {
        if (x->first[i] < 0 || x->used[i] < 1 || x->used[i] > x->taps || x->first[i] + x->used[i] > plane->width) return 0;
    }
    for (int i = 0; i < y->outputs; i++) {
        if (y->first[i] < 0 || y->used[i] < 1 || y->used[i] > y->taps || y->first[i] + y->used[i] > plane->height) return 0;
        /* The ring holds rows from the lowest one a later output row reads: the firsts never go back. */
        if (i > 0 && y->first[i] < y->first[i - 1]) return 0;
    }
    return 1;
}

/* Each plane's ring rows, found by running the decode's order ahead of it: a band comes in,
 * then every output row whose rows are all in is made. A band must not overwrite a row that the
 * next output row still reads, and that row may be held back by another plane (a chroma plane's
 * window reaches a row further down than the luma's), so a kernel's taps plus a band need not
 * be enough. */
static void ring_rows_needed(int count, const struct imagepipe_plane *planes, int *ring_rows) {
    int decoded[3] = {0, 0, 0}, made = 0, rows_out = planes[0].y.outputs;
    for (int p = 0; p < count; p++) ring_rows[p] = planes[p].band_rows;
    while (made < rows_out) {
        int complete = 1;
        for (int p = 0; p < count; p++) {
            if (decoded[p] >= planes[p].height) continue;
            complete = 0;
            int span = decoded[p] + planes[p].band_rows - planes[p].y.first[made];
            if (span > ring_rows[p]) ring_rows[p] = span;
            decoded[p] += planes[p].band_rows;
            if (decoded[p] > planes[p].height) decoded[p] = planes[p].height;
        }
        for (; made < rows_out; made++) {
            int ready = 1;
            for (int p = 0; p < count; p++) ready &= decoded[p] >= planes[p].y.first[made] + planes[p].y.used[made];
            if (!ready) break;
        }
        if (complete) break;
    }
}

static int setup_plane(struct plane_state *state, const struct imagepipe_plane *plane, int ring_rows) {
    const struct imagepipe_axis_weights *x = &plane->x, *y = &plane->y;
    state->width = plane->width;
    state->height = plane->height;
    state->row_bytes = plane->row_bytes;
    state->ring_rows = ring_rows;
    state->outputs = x->outputs;
    state->row_taps = (x->taps + 7) & ~7;
    state->rows_out = y->outputs;
    state->column_taps = y->taps;
    state->ring = malloc((size_t)state->ring_rows * (size_t)plane->row_bytes);
    state->row_first = malloc(sizeof(int32_t) * (size_t)x->outputs);
    state->row_weights = calloc((size_t)x->outputs * (size_t)state->row_taps, sizeof(int16_t));
    state->column_first = malloc(sizeof(int32_t) * (size_t)y->outputs);
    state->column_used = malloc(sizeof(int32_t) * (size_t)y->outputs);
    state->column_weights = malloc(sizeof(int16_t) * (size_t)y->outputs * (size_t)y->taps);
    state->sources = malloc(sizeof(uint8_t *) * (size_t)(y->taps + 1));
    state->pair_weights = malloc(sizeof(int16_t) * (size_t)(y->taps + 1));
    state->sums = malloc(sizeof(int32_t) * (size_t)plane->width);
    state->levels = calloc((size_t)plane->width + (size_t)state->row_taps, sizeof(int16_t));
    state->values = malloc(sizeof(int32_t) * (size_t)x->outputs);
    if (!state->ring || !state->row_first || !state->row_weights || !state->column_first || !state->column_used ||
        !state->column_weights || !state->sources || !state->pair_weights || !state->sums || !state->levels || !state->values) return 0;
    for (int i = 0; i < x->outputs; i++) {
        state->row_first[i] = x->first[i];
        memcpy(state->row_weights + (size_t)i * state->row_taps, x->weights + (size_t)i * x->taps, sizeof(int16_t) * (size_t)x->used[i]);
    }
    memcpy(state->column_first, y->first, sizeof(int32_t) * (size_t)y->outputs);
    memcpy(state->column_used, y->used, sizeof(int32_t) * (size_t)y->outputs);
    memcpy(state->column_weights, y->weights, sizeof(int16_t) * (size_t)y->outputs * (size_t)y->taps);
    return 1;
}

struct imagepipe_plane_resampler *imagepipe_plane_resampler_new(int count, const struct imagepipe_plane *planes, int colors) {
    int expected = colors == IMAGEPIPE_PLANES_GRAY ? 1 : colors == IMAGEPIPE_PLANES_YCBCR || colors == IMAGEPIPE_PLANES_RGB ? 3 : 0;
    if (count != expected) return NULL;
    for (int p = 0; p < count; p++) {
        if (!valid_plane(&planes[p]) || planes[p].x.outputs != planes[0].x.outputs || planes[p].y.outputs != planes[0].y.outputs) return NULL;
    }
    int ring_rows[3];
    ring_rows_needed(count, planes, ring_rows);
    struct imagepipe_plane_resampler *resampler = calloc(1, sizeof *resampler);
    if (!resampler) return NULL;
    resampler->count = count;
    resampler->colors = colors;
    resampler->bytes = malloc(3 * (size_t)planes[0].x.outputs);
    for (int p = 0; p < count; p++) {
        if (!resampler->bytes || !setup_plane(&resampler->planes[p], &planes[p], ring_rows[p])) {
            imagepipe_plane_resampler_free(resampler);
            return NULL;
        }
    }
    return resampler;
}

unsigned char *imagepipe_plane_resampler_row(struct imagepipe_plane_resampler *resampler, int plane, int y) {
    struct plane_state *state = &resampler->planes[plane];
    return state->ring + (size_t)(y % state->ring_rows) * (size_t)state->row_bytes;
}

int imagepipe_plane_resampler_ready(const struct imagepipe_plane_resampler *resampler, int row, const int *decoded) {
    for (int p = 0; p < resampler->count; p++) {
        const struct plane_state *state = &resampler->planes[p];
        if (decoded[p] < state->column_first[row] + state->column_used[row]) return 0;
    }
    return 1;
}

/* The loops below are plain C that the compiler vectorizes; on x86-64 it also makes an AVX2
 * copy of each, which the loader picks on a CPU that has it (twice the lanes of the SSE2 that
 * every x86-64 has, and a 32-bit multiply SSE2 lacks). Integer arithmetic: both copies give
 * the same bytes. */
#if defined(__x86_64__)
#define VECTORIZED __attribute__((target_clones("avx2", "default")))
#else
#define VECTORIZED
#endif

/* The column pass's sums (the column weights' 14 bits on bytes) narrowed to 64ths of a level. */
VECTORIZED static void narrow(const int32_t *sums, int width, int16_t *levels) {
    for (int c = 0; c < width; c++) levels[c] = (int16_t)((sums[c] + 128) >> 8);
}

/* One plane's output row, in 64ths of a level, into its `values`. */
static void make_plane_row(struct plane_state *plane, int row) {
    int first = plane->column_first[row], used = plane->column_used[row], pairs = (used + 1) / 2;
    const int16_t *weights = plane->column_weights + (size_t)row * (size_t)plane->column_taps;
    for (int k = 0; k < 2 * pairs; k++) {
        int y = first + (k < used ? k : used - 1);
        plane->sources[k] = plane->ring + (size_t)(y % plane->ring_rows) * (size_t)plane->row_bytes;
        plane->pair_weights[k] = k < used ? weights[k] : 0;
    }
    imagepipe_weighted_row_sums(plane->sources, plane->pair_weights, pairs, plane->width, plane->sums);
    narrow(plane->sums, plane->width, plane->levels);
    imagepipe_filter_plane_row(plane->levels, plane->row_first, plane->row_weights, plane->row_taps, plane->outputs, plane->values);
}

/* 64ths of a level to a byte, rounded and clamped (the kernel's lobes overshoot). */
static inline uint8_t byte_of(int32_t value) {
    value = (value + 32) >> 6;
    return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
}

static inline int32_t clamp_chroma(int32_t value) { return value < -128 * 64 ? -128 * 64 : value > 128 * 64 ? 128 * 64 : value; }

/* The planes' output row (64ths of a level) as RGB bytes: each channel into a row of its own,
 * which vectorizes, then interleaved. */
VECTORIZED static void to_rgb(int colors, const int32_t *a, const int32_t *b, const int32_t *c, int width, uint8_t *red, uint8_t *rgb) {
    uint8_t *green = red + width, *blue = green + width;
    if (colors == IMAGEPIPE_PLANES_GRAY) {
        for (int i = 0; i < width; i++) red[i] = byte_of(a[i]);
        for (int i = 0; i < width; i++) rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = red[i];
        return;
    }
    if (colors == IMAGEPIPE_PLANES_RGB) {
        for (int i = 0; i < width; i++) {
            red[i] = byte_of(a[i]);
            green[i] = byte_of(b[i]);
            blue[i] = byte_of(c[i]);
        }
    } else {
        /* JFIF: R = Y + 1.402 Cr', G = Y - 0.34414 Cb' - 0.71414 Cr', B = Y + 1.772 Cb' (Cb',
         * Cr' centred on 128), libjpeg's constants in 16-bit fixed point, on 64ths of a level. */
        for (int i = 0; i < width; i++) {
            /* Chroma within -128 ... 128 levels of its centre (64ths) keeps the products in 32
             * bits; only a kernel's overshoot past a saturated edge goes beyond it. */
            int32_t y = a[i], cb = clamp_chroma(b[i] - 128 * 64), cr = clamp_chroma(c[i] - 128 * 64);
            red[i] = byte_of(y + ((91881 * cr + 32768) >> 16));
            green[i] = byte_of(y + ((-22554 * cb - 46802 * cr + 32768) >> 16));
            blue[i] = byte_of(y + ((116130 * cb + 32768) >> 16));
        }
    }
    for (int i = 0; i < width; i++) {
        rgb[3 * i] = red[i];
        rgb[3 * i + 1] = green[i];
        rgb[3 * i + 2] = blue[i];
    }
}

void imagepipe_plane_resampler_make(struct imagepipe_plane_resampler *resampler, int row, uint8_t *rgb) {
    for (int p = 0; p < resampler->count; p++) make_plane_row(&resampler->planes[p], row);
    const int32_t *a = resampler->planes[0].values;
    const int32_t *b = resampler->count == 3 ? resampler->planes[1].values : a, *c = resampler->count == 3 ? resampler->planes[2].values : a;
    to_rgb(resampler->colors, a, b, c, resampler->planes[0].outputs, resampler->bytes, rgb);
}
