#ifndef IMAGEPIPE_PIXEL_KERNELS_H
#define IMAGEPIPE_PIXEL_KERNELS_H

#include <stdint.h>

/* The resampler's column pass on bytes (ResamplePass, columns first): for every byte position
 * c below `bytes`,
 *
 *     sums[c] = Σ rows[k][c] × weights[k],  k < 2 × pairs,
 *
 * in 32-bit integers, so exact. Rows come in pairs (an odd row count ends with a row of weight
 * 0) and weights are 14-bit fixed point, so each pair's two products add in one step, the
 * shape of x86's pmaddwd.
 *
 * It is C because Swift has no way to compile one function for a newer CPU than the program's
 * baseline (x86-64's SSE2): here the AVX2 version, which takes 32 bytes of each row a step
 * where SSE2 takes 16, is chosen at run time where the CPU has it, as libjpeg-turbo and
 * libvips choose their kernels. Both give the same sums. */
void imagepipe_weighted_row_sums(const uint8_t *const *rows, const int16_t *weights, int pairs, int bytes, int32_t *sums);

/* Which version imagepipe_weighted_row_sums runs: "avx2", "sse2" or "portable". */
const char *imagepipe_weighted_row_sums_chosen(void);

/* The version named (for the tests, which check each against the portable one); 0 when this
 * CPU or build has no such version, 1 when it ran. */
int imagepipe_weighted_row_sums_version(const char *version, const uint8_t *const *rows, const int16_t *weights, int pairs, int bytes, int32_t *sums);

/* The row weights of a shrink in the form imagepipe_filter_rgb_row takes them: output pixel i
 * reads source pixels first[i] … first[i] + 2 × pairs[i] − 1, two at a time, the pair's two
 * 14-bit weights packed in one 32-bit word as pmaddwd pairs them, (w1 << 16) | (uint16) w0.
 * `first` never decreases. */
struct imagepipe_row_weights {
    int outputPixels;
    int pairsPerPixel;          /* the widest pixel's pairs: the stride of pairWeights */
    const int32_t *first;
    const int32_t *pairs;
    const int32_t *pairWeights; /* outputPixels × pairsPerPixel, zero past a pixel's pairs */
};

/* The resampler's row pass after the column pass (ResamplePass, columns first): `sums`, three
 * per source pixel in 14-bit fixed point, are narrowed into `levels` (64ths of a level, 16
 * bits), then each output pixel is its weighted pairs of source pixels, rounded and clamped to
 * RGB bytes in `out`. `levels` holds 3 × sourcePixels + imagepipe_levels_padding(pairsPerPixel)
 * (loads at weight 0 read past the last pixel: a 16-byte load's two spare values, and the
 * pairs an AVX2 step makes for the pixel of the two with fewer). Integers throughout: where the CPU has SSSE3, a pair of pixels' three channels
 * is put side by side with one byte shuffle and multiplied with one pmaddwd (AVX2: two output
 * pixels a step). Every version gives the same bytes. */
static inline int imagepipe_levels_padding(int pairsPerPixel) { return 6 * pairsPerPixel + 8; }
void imagepipe_filter_rgb_row(const int32_t *sums, int sourcePixels, int16_t *levels,
                              const struct imagepipe_row_weights *weights, uint8_t *out);

/* The version named, for the tests; 0 when this CPU or build has no such version. */
int imagepipe_filter_rgb_row_version(const char *version, const int32_t *sums, int sourcePixels, int16_t *levels,
                                     const struct imagepipe_row_weights *weights, uint8_t *out);

/* Which version imagepipe_filter_rgb_row runs: "avx2", "ssse3" or "portable". */
const char *imagepipe_filter_rgb_row_chosen(void);

/* A plane's row pass (the JPEG decoder's plane resampler, after its column pass): output pixel
 * i is
 *
 *     values[i] = (Σ levels[first[i] + k] × weights[i × taps + k] + 2^13) >> 14,  k < taps,
 *
 * levels in 64ths of a level (16 bits), weights 14-bit fixed point, zero past a pixel's own
 * taps; `taps` is a multiple of 8, and levels are readable up to first[i] + taps for every i.
 * AVX2 takes sixteen taps a step where the CPU has it. Every version gives the same values. */
void imagepipe_filter_plane_row(const int16_t *levels, const int32_t *first, const int16_t *weights, int taps, int outputs, int32_t *values);

/* The version named ("avx2" or "portable"), for the tests; 0 when this CPU or build has none. */
int imagepipe_filter_plane_row_version(const char *version, const int16_t *levels, const int32_t *first, const int16_t *weights, int taps,
                                       int outputs, int32_t *values);

/* Which version imagepipe_filter_plane_row runs. */
const char *imagepipe_filter_plane_row_chosen(void);


/* How imagepipe_lab_adjust_row changes each pixel's CIE L*a*b* colour: L* × lightness_scale +
 * lightness_offset, clamped to lightness_min … lightness_max; (a*, b*) through the 2 × 2 matrix
 * ab, row by row (a' = ab[0] a + ab[1] b, b' = ab[2] a + ab[3] b): a chroma scaled and a hue
 * turned (modulate), a lightness stretched (normalize). */
struct imagepipe_lab_adjustment {
    float lightness_scale, lightness_offset, lightness_min, lightness_max;
    float ab[4];
};

/* Each pixel of a row of 8-bit sRGB (3 or 4 channels; alpha copied, or 255 where the source has
 * none) to L*a*b* (D65), adjusted, and back, rounded to nearest and clamped into the gamut
 * channel by channel. `to_linear` holds the 256 code values' linear light; `from_linear` the
 * code value of linear light i / encode_steps. Per-pixel colour models are the work where a
 * compiled loop pays most: in Swift, through SIMD3 calls and libm's cbrtf, modulate took some
 * 95 ns a pixel. */
void imagepipe_lab_adjust_row(const uint8_t *source, int source_channels, uint8_t *target, int target_channels, int width,
                              const float *to_linear, const uint8_t *from_linear, int encode_steps,
                              const struct imagepipe_lab_adjustment *adjust);

#endif
