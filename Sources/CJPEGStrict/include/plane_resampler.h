#ifndef IMAGEPIPE_PLANE_RESAMPLER_H
#define IMAGEPIPE_PLANE_RESAMPLER_H

#include <stdint.h>

/* The resampler of a picture in planes (a JPEG's Y, Cb and Cr as libjpeg decodes them, chroma
 * at full, half or quarter size): each plane resampled to the output's size on its own, then
 * the planes converted to RGB once, at the output's size. Shrinking a 4:2:0 JPEG this way filters
 * half the samples the RGB picture has (the chroma planes are a quarter of the luma's), and
 * neither the chroma upsampling nor the colour conversion is done at the decode's size.
 *
 * Rows come in as the decoder makes them, into a ring per plane that holds the rows an output
 * row not yet made reads and one band of the decoder's rows; an output row is made once every
 * plane has the rows it reads. Each plane is filtered as `ResamplePass` filters RGB bytes, columns first: the
 * column weights on the plane's bytes (`imagepipe_weighted_row_sums`), narrowed to 64ths of a
 * level, then the row weights; the three planes' values, still in 64ths, become RGB bytes with
 * one rounding. */

/* One axis of a plane's resampling: output pixel i is source pixels first[i] ... first[i] +
 * used[i] - 1 times weights[i * taps ...], 14-bit fixed point, each output pixel's summing to
 * 1 << 14. */
struct imagepipe_axis_weights {
    int outputs, taps;
    const int32_t *first, *used;
    const int16_t *weights;
};

/* A plane: its size, the weights of its two axes, and how its decoder writes it: bands of
 * band_rows rows, each row row_bytes long (at least width: libjpeg writes whole blocks). */
struct imagepipe_plane {
    int width, height, band_rows, row_bytes;
    struct imagepipe_axis_weights x, y;
};

/* How the planes make RGB: one gray plane, Y Cb Cr (JFIF's full-range BT.601), or R G B. */
enum { IMAGEPIPE_PLANES_GRAY = 1, IMAGEPIPE_PLANES_YCBCR = 2, IMAGEPIPE_PLANES_RGB = 3 };

struct imagepipe_plane_resampler;

/* A resampler of `count` planes (1 for gray, else 3) whose x and y outputs agree; it copies the
 * weights. NULL when out of memory or when the planes disagree. */
struct imagepipe_plane_resampler *imagepipe_plane_resampler_new(int count, const struct imagepipe_plane *planes, int colors);
void imagepipe_plane_resampler_free(struct imagepipe_plane_resampler *resampler);

/* Where plane row y goes (the ring's slot for it). */
unsigned char *imagepipe_plane_resampler_row(struct imagepipe_plane_resampler *resampler, int plane, int y);

/* Whether output row `row` can be made once each plane p has rows 0 ... decoded[p] - 1. */
int imagepipe_plane_resampler_ready(const struct imagepipe_plane_resampler *resampler, int row, const int *decoded);

/* Output row `row` as RGB bytes into `rgb` (3 × the output's width); its planes' rows must be in
 * the rings (`ready`). */
void imagepipe_plane_resampler_make(struct imagepipe_plane_resampler *resampler, int row, uint8_t *rgb);

#endif
