#include "pixel_kernels.h"

#include "kernel_choice.h"
#include <string.h>

typedef void (*row_sums_function)(const uint8_t *const *, const int16_t *, int, int, int32_t *);

/* The bytes from `start` on, one at a time: the end of a row that is not a whole step wide, and
 * every byte where there is no SIMD version. */
static void sums_from(int start, const uint8_t *const *rows, const int16_t *weights, int pairs, int bytes, int32_t *sums) {
    for (int c = start; c < bytes; c++) {
        int32_t total = 0;
        for (int k = 0; k < 2 * pairs; k++) total += (int32_t)rows[k][c] * weights[k];
        sums[c] = total;
    }
}

#if defined(__x86_64__)
#include <immintrin.h>

/* Each pair's two weights in every 32-bit lane: (second << 16) | first, as pmaddwd pairs them. */
static inline int32_t pair_weight(const int16_t *weights, int pair) {
    return (int32_t)(((uint32_t)(uint16_t)weights[2 * pair + 1] << 16) | (uint16_t)weights[2 * pair]);
}

/* 16 bytes of each row a step: the two rows' bytes interleaved (a0 b0 a1 b1 …), widened to 16
 * bits, each pair times its weights and added (pmaddwd), four sums of four bytes each. */
static int sums_sse2_steps(int start, const uint8_t *const *rows, const int16_t *weights, int pairs, int bytes, int32_t *sums) {
    const __m128i zero = _mm_setzero_si128();
    int c = start;
    for (; c + 16 <= bytes; c += 16) {
        __m128i s0 = zero, s1 = zero, s2 = zero, s3 = zero;
        for (int p = 0; p < pairs; p++) {
            __m128i a = _mm_loadu_si128((const __m128i *)(rows[2 * p] + c));
            __m128i b = _mm_loadu_si128((const __m128i *)(rows[2 * p + 1] + c));
            __m128i w = _mm_set1_epi32(pair_weight(weights, p));
            __m128i low = _mm_unpacklo_epi8(a, b), high = _mm_unpackhi_epi8(a, b);
            s0 = _mm_add_epi32(s0, _mm_madd_epi16(_mm_unpacklo_epi8(low, zero), w));
            s1 = _mm_add_epi32(s1, _mm_madd_epi16(_mm_unpackhi_epi8(low, zero), w));
            s2 = _mm_add_epi32(s2, _mm_madd_epi16(_mm_unpacklo_epi8(high, zero), w));
            s3 = _mm_add_epi32(s3, _mm_madd_epi16(_mm_unpackhi_epi8(high, zero), w));
        }
        _mm_storeu_si128((__m128i *)(sums + c), s0);
        _mm_storeu_si128((__m128i *)(sums + c + 4), s1);
        _mm_storeu_si128((__m128i *)(sums + c + 8), s2);
        _mm_storeu_si128((__m128i *)(sums + c + 12), s3);
    }
    return c;
}

static void sums_sse2(const uint8_t *const *rows, const int16_t *weights, int pairs, int bytes, int32_t *sums) {
    sums_from(sums_sse2_steps(0, rows, weights, pairs, bytes, sums), rows, weights, pairs, bytes, sums);
}

/* The same 32 bytes a step. AVX2's unpacks work within each 128-bit half, so each sum holds
 * bytes from both halves of the step; the permutes put them back in order. */
__attribute__((target("avx2")))
static void sums_avx2(const uint8_t *const *rows, const int16_t *weights, int pairs, int bytes, int32_t *sums) {
    const __m256i zero = _mm256_setzero_si256();
    int c = 0;
    for (; c + 32 <= bytes; c += 32) {
        __m256i s0 = zero, s1 = zero, s2 = zero, s3 = zero;
        for (int p = 0; p < pairs; p++) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(rows[2 * p] + c));
            __m256i b = _mm256_loadu_si256((const __m256i *)(rows[2 * p + 1] + c));
            __m256i w = _mm256_set1_epi32(pair_weight(weights, p));
            __m256i low = _mm256_unpacklo_epi8(a, b), high = _mm256_unpackhi_epi8(a, b);
            s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_unpacklo_epi8(low, zero), w));  /* bytes 0–3, 16–19 */
            s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(_mm256_unpackhi_epi8(low, zero), w));  /* 4–7, 20–23 */
            s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(_mm256_unpacklo_epi8(high, zero), w)); /* 8–11, 24–27 */
            s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(_mm256_unpackhi_epi8(high, zero), w)); /* 12–15, 28–31 */
        }
        _mm256_storeu_si256((__m256i *)(sums + c), _mm256_permute2x128_si256(s0, s1, 0x20));
        _mm256_storeu_si256((__m256i *)(sums + c + 8), _mm256_permute2x128_si256(s2, s3, 0x20));
        _mm256_storeu_si256((__m256i *)(sums + c + 16), _mm256_permute2x128_si256(s0, s1, 0x31));
        _mm256_storeu_si256((__m256i *)(sums + c + 24), _mm256_permute2x128_si256(s2, s3, 0x31));
    }
    sums_from(sums_sse2_steps(c, rows, weights, pairs, bytes, sums), rows, weights, pairs, bytes, sums);
}
#endif

static void sums_portable(const uint8_t *const *rows, const int16_t *weights, int pairs, int bytes, int32_t *sums) {
    sums_from(0, rows, weights, pairs, bytes, sums);
}

/* The version named, or NULL where this CPU or build has none. */
static void *named(const char *version) {
    if (strcmp(version, "portable") == 0) return (void *)sums_portable;
#if defined(__x86_64__)
    if (strcmp(version, "sse2") == 0) return (void *)sums_sse2;
    __builtin_cpu_init();
    if (strcmp(version, "avx2") == 0 && __builtin_cpu_supports("avx2")) return (void *)sums_avx2;
#endif
    return NULL;
}

static const char *const preferred[] = {"avx2", "sse2", "portable"};
static struct kernel_choice choice = {preferred, named, NULL, NULL};

void imagepipe_weighted_row_sums(const uint8_t *const *rows, const int16_t *weights, int pairs, int bytes, int32_t *sums) {
    ((row_sums_function)kernel_chosen(&choice))(rows, weights, pairs, bytes, sums);
}

const char *imagepipe_weighted_row_sums_chosen(void) {
    return kernel_chosen_version(&choice);
}

int imagepipe_weighted_row_sums_version(const char *version, const uint8_t *const *rows, const int16_t *weights, int pairs, int bytes, int32_t *sums) {
    row_sums_function function = (row_sums_function)named(version);
    if (function) function(rows, weights, pairs, bytes, sums);
    return function != NULL;
}
