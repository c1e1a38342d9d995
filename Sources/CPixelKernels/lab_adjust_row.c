#include "pixel_kernels.h"

/* CIE L*a*b* with the D65 white, as ImagePipeCore's CIELab and libvips' `colourspace lab`. */
static const float xn = 0.95047f, zn = 1.08883f;
static const float epsilon = 216.0f / 24389.0f; /* (6/29)³ */
static const float kappa = 24389.0f / 27.0f;

/* Cube roots of the positive floats L*a*b*'s f takes (above epsilon): a first guess from the
 * exponent's bits (a third of it, within 4 %), then three Newton steps, each squaring the
 * error: within a unit in the last place of libm's cbrtf, which took a third of the time. */
static inline float cube_root(float t) {
    union { float f; uint32_t u; } guess = { .f = t };
    guess.u = guess.u / 3 + 0x2A5119F8u;
    float y = guess.f;
    for (int i = 0; i < 3; i++) y = (2.0f * y + t / (y * y)) * (1.0f / 3.0f);
    return y;
}

static inline float lab_f(float t) { return t > epsilon ? cube_root(t) : (kappa * t + 16.0f) / 116.0f; }

static inline float lab_inverse(float t) {
    float cube = t * t * t;
    return cube > epsilon ? cube : (116.0f * t - 16.0f) / kappa;
}

static inline uint8_t encoded(float linear, const uint8_t *from_linear, int encode_steps) {
    /* A NaN (a colour far out of gamut) fails both tests and becomes 0. */
    float clamped = linear > 0.0f ? (linear < 1.0f ? linear : 1.0f) : 0.0f;
    return from_linear[(int)(clamped * (float)encode_steps + 0.5f)];
}

void imagepipe_lab_adjust_row(const uint8_t *source, int source_channels, uint8_t *target, int target_channels, int width,
                              const float *to_linear, const uint8_t *from_linear, int encode_steps,
                              const struct imagepipe_lab_adjustment *adjust) {
    for (int x = 0; x < width; x++) {
        const uint8_t *s = source + x * source_channels;
        uint8_t *t = target + x * target_channels;
        float r = to_linear[s[0]], g = to_linear[s[1]], b = to_linear[s[2]];
        float fx = lab_f((0.4124564f * r + 0.3575761f * g + 0.1804375f * b) / xn);
        float fy = lab_f(0.2126729f * r + 0.7151522f * g + 0.0721750f * b);
        float fz = lab_f((0.0193339f * r + 0.1191920f * g + 0.9503041f * b) / zn);
        float lightness = 116.0f * fy - 16.0f, a = 500.0f * (fx - fy), bb = 200.0f * (fy - fz);

        lightness = lightness * adjust->lightness_scale + adjust->lightness_offset;
        lightness = lightness < adjust->lightness_min ? adjust->lightness_min : lightness > adjust->lightness_max ? adjust->lightness_max : lightness;
        float a2 = adjust->ab[0] * a + adjust->ab[1] * bb, b2 = adjust->ab[2] * a + adjust->ab[3] * bb;

        fy = (lightness + 16.0f) / 116.0f;
        float x3 = lab_inverse(fy + a2 / 500.0f) * xn;
        float y3 = lightness > kappa * epsilon ? fy * fy * fy : lightness / kappa;
        float z3 = lab_inverse(fy - b2 / 200.0f) * zn;
        t[0] = encoded(3.2404542f * x3 - 1.5371385f * y3 - 0.4985314f * z3, from_linear, encode_steps);
        t[1] = encoded(-0.9692660f * x3 + 1.8760108f * y3 + 0.0415560f * z3, from_linear, encode_steps);
        t[2] = encoded(0.0556434f * x3 - 0.2040259f * y3 + 1.0572252f * z3, from_linear, encode_steps);
        if (target_channels == 4) t[3] = source_channels == 4 ? s[3] : 255;
    }
}
