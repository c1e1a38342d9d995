#include "plane_resampler.h"
#include "pixel_kernels.h"

#include <stdlib.h>
#include <string.h>

/* A plane's ring, weights and working rows. Row weights are padded with zeros to `row_taps`, a
 * multiple of 16, so that the row pass takes sixteen taps a step with no tail. */
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

static int setup_plane(struct plane_state *state, const struct imagepipe_plane *plane) {
    const struct imagepipe_axis_weights *x = &plane->x, *y = &plane->y;
    if (plane->width <= 0 || plane->height <= 0 || plane->row_bytes < plane->width || plane->band_rows <= 0 ||
        x->taps <= 0 || y->taps <= 0 || x->outputs <= 0 || y->outputs <= 0) return 0;
    state->width = plane->width;
    state->height = plane->height;
    state->row_bytes = plane->row_bytes;
    /* The taps an output row reads beside a band being written: the band never overwrites a
     * row that an output row not yet made still reads. */
    state->ring_rows = y->taps + plane->band_rows;
    state->outputs = x->outputs;
    state->row_taps = (x->taps + 15) & ~15;
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
        if (x->first[i] < 0 || x->used[i] < 1 || x->used[i] > x->taps || x->first[i] + x->used[i] > plane->width) return 0;
        state->row_first[i] = x->first[i];
        memcpy(state->row_weights + (size_t)i * state->row_taps, x->weights + (size_t)i * x->taps, sizeof(int16_t) * (size_t)x->used[i]);
    }
    for (int i = 0; i < y->outputs; i++) {
        if (y->first[i] < 0 || y->used[i] < 1 || y->used[i] > y->taps || y->first[i] + y->used[i] > plane->height) return 0;
        /* The ring holds rows from the lowest one a later output row reads: the firsts never go back. */
        if (i > 0 && y->first[i] < y->first[i - 1]) return 0;
    }
    memcpy(state->column_first, y->first, sizeof(int32_t) * (size_t)y->outputs);
    memcpy(state->column_used, y->used, sizeof(int32_t) * (size_t)y->outputs);
    memcpy(state->column_weights, y->weights, sizeof(int16_t) * (size_t)y->outputs * (size_t)y->taps);
    return 1;
}

struct imagepipe_plane_resampler *imagepipe_plane_resampler_new(int count, const struct imagepipe_plane *planes, int colors) {
    int expected = colors == IMAGEPIPE_PLANES_GRAY ? 1 : colors == IMAGEPIPE_PLANES_YCBCR || colors == IMAGEPIPE_PLANES_RGB ? 3 : 0;
    if (count != expected) return NULL;
    for (int p = 1; p < count; p++) {
        if (planes[p].x.outputs != planes[0].x.outputs || planes[p].y.outputs != planes[0].y.outputs) return NULL;
    }
    struct imagepipe_plane_resampler *resampler = calloc(1, sizeof *resampler);
    if (!resampler) return NULL;
    resampler->count = count;
    resampler->colors = colors;
    resampler->bytes = malloc(3 * (size_t)planes[0].x.outputs);
    for (int p = 0; p < count; p++) {
        if (!resampler->bytes || !setup_plane(&resampler->planes[p], &planes[p])) {
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

/* The row pass: each output pixel's row_taps levels times its weights, summed, in 64ths of a
 * level. Portable: a tap at a time. */
static void filter_row_portable(const int16_t *levels, const int32_t *first, const int16_t *weights, int taps, int outputs, int32_t *values) {
    for (int i = 0; i < outputs; i++) {
        const int16_t *from = levels + first[i], *w = weights + (size_t)i * (size_t)taps;
        int32_t total = 0;
        for (int k = 0; k < taps; k++) total += (int32_t)from[k] * w[k];
        values[i] = (total + (1 << 13)) >> 14;
    }
}

#if defined(__x86_64__)
#include <immintrin.h>
/* AVX2: sixteen taps a step (pmaddwd on levels and weights side by side), eight output
 * pixels at a time, whose sums one tree of horizontal adds finishes: the shuffles of that tree,
 * not the multiplications, bound the pass, and eight pixels share them best. */
__attribute__((target("avx2")))
static void filter_row_avx2(const int16_t *levels, const int32_t *first, const int16_t *weights, int taps, int outputs, int32_t *values) {
    int i = 0;
    for (; i + 8 <= outputs; i += 8) {
        __m256i sums[8];
        for (int j = 0; j < 8; j++) {
            const int16_t *from = levels + first[i + j], *w = weights + (size_t)(i + j) * (size_t)taps;
            __m256i total = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)from), _mm256_loadu_si256((const __m256i *)w));
            for (int k = 16; k < taps; k += 16) {
                total = _mm256_add_epi32(total, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(from + k)),
                                                                  _mm256_loadu_si256((const __m256i *)(w + k))));
            }
            sums[j] = total;
        }
        /* Each 128-bit half ends up with pixels 0-3 (low) and 4-7 (high) of its own half's sums. */
        __m256i low = _mm256_hadd_epi32(_mm256_hadd_epi32(sums[0], sums[1]), _mm256_hadd_epi32(sums[2], sums[3]));
        __m256i high = _mm256_hadd_epi32(_mm256_hadd_epi32(sums[4], sums[5]), _mm256_hadd_epi32(sums[6], sums[7]));
        __m256i total = _mm256_add_epi32(_mm256_permute2x128_si256(low, high, 0x20), _mm256_permute2x128_si256(low, high, 0x31));
        total = _mm256_srai_epi32(_mm256_add_epi32(total, _mm256_set1_epi32(1 << 13)), 14);
        _mm256_storeu_si256((__m256i *)(values + i), total);
    }
    filter_row_portable(levels, first + i, weights + (size_t)i * (size_t)taps, taps, outputs - i, values + i);
}
#endif

static void filter_row(const int16_t *levels, const int32_t *first, const int16_t *weights, int taps, int outputs, int32_t *values) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2")) {
        filter_row_avx2(levels, first, weights, taps, outputs, values);
        return;
    }
#endif
    filter_row_portable(levels, first, weights, taps, outputs, values);
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
    for (int c = 0; c < plane->width; c++) plane->levels[c] = (int16_t)((plane->sums[c] + 128) >> 8);
    filter_row(plane->levels, plane->row_first, plane->row_weights, plane->row_taps, plane->outputs, plane->values);
}

/* 64ths of a level to a byte, rounded and clamped (the kernel's lobes overshoot). */
static inline uint8_t byte_of(int32_t value) {
    value = (value + 32) >> 6;
    return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
}

static inline int32_t clamp_chroma(int32_t value) { return value < -128 * 64 ? -128 * 64 : value > 128 * 64 ? 128 * 64 : value; }

void imagepipe_plane_resampler_make(struct imagepipe_plane_resampler *resampler, int row, uint8_t *rgb) {
    for (int p = 0; p < resampler->count; p++) make_plane_row(&resampler->planes[p], row);
    int width = resampler->planes[0].outputs;
    const int32_t *a = resampler->planes[0].values;
    uint8_t *red = resampler->bytes, *green = red + width, *blue = green + width;
    if (resampler->colors == IMAGEPIPE_PLANES_GRAY) {
        for (int i = 0; i < width; i++) red[i] = byte_of(a[i]);
        for (int i = 0; i < width; i++) rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = red[i];
        return;
    }
    const int32_t *b = resampler->planes[1].values, *c = resampler->planes[2].values;
    if (resampler->colors == IMAGEPIPE_PLANES_RGB) {
        for (int i = 0; i < width; i++) {
            red[i] = byte_of(a[i]);
            green[i] = byte_of(b[i]);
            blue[i] = byte_of(c[i]);
        }
    } else {
        /* JFIF: R = Y + 1.402 Cr', G = Y - 0.34414 Cb' - 0.71414 Cr', B = Y + 1.772 Cb' (Cb',
         * Cr' centred on 128), libjpeg's constants in 16-bit fixed point, on 64ths of a level.
         * Each channel into a row of its own, which the compiler vectorizes; then interleaved. */
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
