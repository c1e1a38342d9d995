#include "pixel_kernels.h"

#include "kernel_choice.h"
#include <string.h>

typedef void (*filter_function)(const int32_t *, int, int16_t *, const struct imagepipe_row_weights *, uint8_t *);

/* 14-bit sums to 64ths of a level: (sum + 128) >> 8, which fits 16 bits with the lobes'
 * overshoot; zeros after them, where loads at weight 0 reach. */
static inline void narrow(const int32_t *sums, int sourcePixels, int16_t *levels, const struct imagepipe_row_weights *weights) {
    int count = 3 * sourcePixels;
    for (int c = 0; c < count; c++) levels[c] = (int16_t)((sums[c] + 128) >> 8);
    for (int c = count; c < count + imagepipe_levels_padding(weights->pairsPerPixel); c++) levels[c] = 0;
}

/* 64ths times 16384ths is 2^20ths: rounded to a level and clamped to a byte. */
static inline uint8_t level(int32_t total) {
    int32_t value = (total + (1 << 19)) >> 20;
    return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
}

static void filter_portable(const int32_t *sums, int sourcePixels, int16_t *levels,
                            const struct imagepipe_row_weights *weights, uint8_t *out) {
    narrow(sums, sourcePixels, levels, weights);
    for (int i = 0; i < weights->outputPixels; i++) {
        const int16_t *from = levels + 3 * weights->first[i];
        const int32_t *pairWeights = weights->pairWeights + i * weights->pairsPerPixel;
        int32_t r = 0, g = 0, b = 0;
        for (int p = 0; p < weights->pairs[i]; p++) {
            int32_t w0 = (int16_t)(pairWeights[p] & 0xffff), w1 = (int16_t)((uint32_t)pairWeights[p] >> 16);
            const int16_t *pair = from + 6 * p;
            r += pair[0] * w0 + pair[3] * w1;
            g += pair[1] * w0 + pair[4] * w1;
            b += pair[2] * w0 + pair[5] * w1;
        }
        out[3 * i] = level(r);
        out[3 * i + 1] = level(g);
        out[3 * i + 2] = level(b);
    }
}

#if defined(__x86_64__)
#include <immintrin.h>

/* R0 G0 B0 R1 G1 B1 (16-bit) to R0 R1 G0 G1 B0 B1 0 0: pmaddwd's pairs. */
#define PAIR_SHUFFLE 0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11, -1, -1, -1, -1

/* A pixel's R G B sums, 2^20ths, to bytes at `out`: four bytes written where there is room. */
__attribute__((target("ssse3")))
static inline void store_pixel(__m128i total, uint8_t *out, int last) {
    __m128i value = _mm_srai_epi32(_mm_add_epi32(total, _mm_set1_epi32(1 << 19)), 20);
    int32_t bytes = _mm_cvtsi128_si32(_mm_packus_epi16(_mm_packs_epi32(value, value), value));
    if (last) { out[0] = (uint8_t)bytes; out[1] = (uint8_t)(bytes >> 8); out[2] = (uint8_t)(bytes >> 16); }
    else memcpy(out, &bytes, 4); /* the fourth byte is the next pixel's, written next */
}

/* Output pixel i's R G B sums: its pairs of source pixels side by side, times their weights. */
__attribute__((target("ssse3")))
static inline __m128i pixel_total(const int16_t *levels, const struct imagepipe_row_weights *weights, int i) {
    const __m128i shuffle = _mm_setr_epi8(PAIR_SHUFFLE);
    const int16_t *from = levels + 3 * weights->first[i];
    const int32_t *pairWeights = weights->pairWeights + i * weights->pairsPerPixel;
    __m128i total = _mm_setzero_si128();
    for (int p = 0; p < weights->pairs[i]; p++) {
        __m128i pair = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(from + 6 * p)), shuffle);
        total = _mm_add_epi32(total, _mm_madd_epi16(pair, _mm_set1_epi32(pairWeights[p])));
    }
    return total;
}

__attribute__((target("ssse3")))
static void filter_ssse3(const int32_t *sums, int sourcePixels, int16_t *levels,
                         const struct imagepipe_row_weights *weights, uint8_t *out) {
    narrow(sums, sourcePixels, levels, weights);
    const int n = weights->outputPixels;
    for (int i = 0; i < n; i++) store_pixel(pixel_total(levels, weights, i), out + 3 * i, i == n - 1);
}

/* Two output pixels a step, one in each 128-bit half; the first's extra pairs, where the second
 * has more, weigh 0 and read no further than the second's (`first` never decreases). */
__attribute__((target("avx2")))
static void filter_avx2(const int32_t *sums, int sourcePixels, int16_t *levels,
                        const struct imagepipe_row_weights *weights, uint8_t *out) {
    narrow(sums, sourcePixels, levels, weights);
    const __m256i shuffle = _mm256_setr_epi8(PAIR_SHUFFLE, PAIR_SHUFFLE);
    const int n = weights->outputPixels, stride = weights->pairsPerPixel;
    int i = 0;
    for (; i + 2 <= n; i += 2) {
        const int16_t *fromA = levels + 3 * weights->first[i], *fromB = levels + 3 * weights->first[i + 1];
        const int32_t *weightsA = weights->pairWeights + i * stride, *weightsB = weightsA + stride;
        int pairs = weights->pairs[i] > weights->pairs[i + 1] ? weights->pairs[i] : weights->pairs[i + 1];
        __m256i total = _mm256_setzero_si256();
        for (int p = 0; p < pairs; p++) {
            __m256i both = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(fromA + 6 * p))),
                                                   _mm_loadu_si128((const __m128i *)(fromB + 6 * p)), 1);
            __m256i pairWeights = _mm256_setr_epi32(weightsA[p], weightsA[p], weightsA[p], weightsA[p],
                                                    weightsB[p], weightsB[p], weightsB[p], weightsB[p]);
            total = _mm256_add_epi32(total, _mm256_madd_epi16(_mm256_shuffle_epi8(both, shuffle), pairWeights));
        }
        store_pixel(_mm256_castsi256_si128(total), out + 3 * i, 0);
        store_pixel(_mm256_extracti128_si256(total, 1), out + 3 * i + 3, i + 1 == n - 1);
    }
    if (i < n) store_pixel(pixel_total(levels, weights, i), out + 3 * i, 1); /* an odd pixel at the end */
}
#endif

/* The version named, or NULL where this CPU or build has none. */
static void *named(const char *version) {
    if (strcmp(version, "portable") == 0) return (void *)filter_portable;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (strcmp(version, "ssse3") == 0 && __builtin_cpu_supports("ssse3")) return (void *)filter_ssse3;
    if (strcmp(version, "avx2") == 0 && __builtin_cpu_supports("avx2")) return (void *)filter_avx2;
#endif
    return NULL;
}

static const char *const preferred[] = {"avx2", "ssse3", "portable"};
static struct kernel_choice choice = {preferred, named, NULL, NULL};

void imagepipe_filter_rgb_row(const int32_t *sums, int sourcePixels, int16_t *levels,
                              const struct imagepipe_row_weights *weights, uint8_t *out) {
    ((filter_function)kernel_chosen(&choice))(sums, sourcePixels, levels, weights, out);
}

const char *imagepipe_filter_rgb_row_chosen(void) {
    return kernel_chosen_version(&choice);
}

int imagepipe_filter_rgb_row_version(const char *version, const int32_t *sums, int sourcePixels, int16_t *levels, const struct imagepipe_row_weights *weights, uint8_t *out) {
    filter_function function = (filter_function)named(version);
    if (function) function(sums, sourcePixels, levels, weights, out);
    return function != NULL;
}
