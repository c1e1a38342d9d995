#ifndef IMAGEPIPE_CLCMS2_SHIM_H
#define IMAGEPIPE_CLCMS2_SHIM_H
#include <lcms2.h>

/* lcms2's pixel formats are function-like macros, which Swift does not import. */
static const cmsUInt32Number imagepipe_type_rgb_8 = TYPE_RGB_8;
static const cmsUInt32Number imagepipe_type_rgba_8 = TYPE_RGBA_8;
static const cmsUInt32Number imagepipe_type_gray_8 = TYPE_GRAY_8;
/* Grey read from the first byte of each RGB pixel (a grey JPEG or PNG expanded to RGB). */
static const cmsUInt32Number imagepipe_type_gray_in_rgb_8 = COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(2);
static const cmsUInt32Number imagepipe_type_gray_in_rgba_8 = COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(3);
static const cmsUInt32Number imagepipe_type_cmyk_8 = TYPE_CMYK_8;
/* CIELab, 8 bits a sample (L 0-255 for 0-100, a and b offset by 128), with or without an alpha byte after. */
static const cmsUInt32Number imagepipe_type_lab_8 = TYPE_Lab_8;
static const cmsUInt32Number imagepipe_type_lab_alpha_8 = COLORSPACE_SH(PT_Lab) | CHANNELS_SH(3) | BYTES_SH(1) | EXTRA_SH(1);
#endif
