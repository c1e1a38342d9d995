#include "pixel_kernels.h"

#include "kernel_choice.h"
#include <string.h>

typedef void (*plane_row_function)(const int16_t *, const int32_t *, const int16_t *, int, int, int32_t *);

/* A tap at a time. */
static void plane_row_portable(const int16_t *levels, const int32_t *first, const int16_t *weights, int taps, int outputs, int32_t *values) {
    for (int i = 0; i < outputs; i++) {
        const int16_t *from = levels + first[i], *w = weights + (size_t)i * (size_t)taps;
        int32_t total = 0;
        for (int k = 0; k < taps; k++) total += (int32_t)from[k] * w[k];
        values[i] = (total + (1 << 13)) >> 14;
    }
}

#if defined(__x86_64__)
#include <immintrin.h>
/* Sixteen taps a step (pmaddwd on levels and weights side by side), then the last eight on
 * their own when `tail` says the taps are an odd number of eights, eight output pixels at a
 * time, whose sums one tree of horizontal adds finishes: the shuffles of that tree, not the
 * multiplications, bound the pass, and eight pixels share them best. `tail` and `wide` (at
 * least sixteen taps) are constants in each caller, so that the eight pixels' loops unroll and
 * their sums stay in registers. */
__attribute__((target("avx2"), always_inline))
static inline void plane_row_avx2_steps(const int16_t *levels, const int32_t *first, const int16_t *weights, int taps, int tail, int wide,
                                        int outputs, int32_t *values) {
    int i = 0, whole = taps - tail;
    for (; i + 8 <= outputs; i += 8) {
        __m256i sums[8];
        for (int j = 0; j < 8; j++) {
            const int16_t *from = levels + first[i + j], *w = weights + (size_t)(i + j) * (size_t)taps;
            __m256i total = _mm256_setzero_si256();
            if (wide) total = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)from), _mm256_loadu_si256((const __m256i *)w));
            for (int k = 16; k < whole; k += 16) {
                total = _mm256_add_epi32(total, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(from + k)),
                                                                  _mm256_loadu_si256((const __m256i *)(w + k))));
            }
            if (tail) {
                __m128i last = _mm_madd_epi16(_mm_loadu_si128((const __m128i *)(from + whole)), _mm_loadu_si128((const __m128i *)(w + whole)));
                total = _mm256_add_epi32(total, _mm256_zextsi128_si256(last));
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
    plane_row_portable(levels, first + i, weights + (size_t)i * (size_t)taps, taps, outputs - i, values + i);
}

__attribute__((target("avx2")))
static void plane_row_avx2(const int16_t *levels, const int32_t *first, const int16_t *weights, int taps, int outputs, int32_t *values) {
    if (taps < 16) {
        plane_row_avx2_steps(levels, first, weights, taps, 8, 0, outputs, values);
    } else if (taps & 8) {
        plane_row_avx2_steps(levels, first, weights, taps, 8, 1, outputs, values);
    } else {
        plane_row_avx2_steps(levels, first, weights, taps, 0, 1, outputs, values);
    }
}
#endif

/* The version named, or NULL where this CPU or build has none. */
static void *named(const char *version) {
    if (strcmp(version, "portable") == 0) return (void *)plane_row_portable;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (strcmp(version, "avx2") == 0 && __builtin_cpu_supports("avx2")) return (void *)plane_row_avx2;
#endif
    return NULL;
}

static const char *const preferred[] = {"avx2", "portable"};
static struct kernel_choice choice = {preferred, named, NULL, NULL};

void imagepipe_filter_plane_row(const int16_t *levels, const int32_t *first, const int16_t *weights, int taps, int outputs, int32_t *values) {
    ((plane_row_function)kernel_chosen(&choice))(levels, first, weights, taps, outputs, values);
}

const char *imagepipe_filter_plane_row_chosen(void) {
    return kernel_chosen_version(&choice);
}

int imagepipe_filter_plane_row_version(const char *version, const int16_t *levels, const int32_t *first, const int16_t *weights, int taps,
                                       int outputs, int32_t *values) {
    plane_row_function function = (plane_row_function)named(version);
    if (function) function(levels, first, weights, taps, outputs, values);
    return function != NULL;
}
