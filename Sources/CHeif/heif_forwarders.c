/* The libheif functions ImagePipe and its tests call, each opening libheif on first use. */
#include "CHeif.h"

#include <library_loader.h>

const char *imagepipe_open_libheif(void) {
    const char *reason = NULL;
    return imagepipe_open_library(IMAGEPIPE_LIBHEIF, &reason) ? NULL : reason;
}

IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, struct heif_context *, heif_context_alloc, (void), ())
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, struct heif_error, heif_context_encode_image, (struct heif_context *a0, const struct heif_image *a1, struct heif_encoder *a2, const struct heif_encoding_options *a3, struct heif_image_handle **a4), (a0, a1, a2, a3, a4))
IMAGEPIPE_FORWARD_VOID(IMAGEPIPE_LIBHEIF, heif_context_free, (struct heif_context *a0), (a0))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, struct heif_error, heif_context_get_encoder_for_format, (struct heif_context *a0, enum heif_compression_format a1, struct heif_encoder **a2), (a0, a1, a2))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, struct heif_error, heif_context_get_primary_image_handle, (struct heif_context *a0, struct heif_image_handle **a1), (a0, a1))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, struct heif_error, heif_context_read_from_memory_without_copy, (struct heif_context *a0, const void *a1, size_t a2, const struct heif_reading_options *a3), (a0, a1, a2, a3))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, struct heif_error, heif_context_write_to_file, (struct heif_context *a0, const char *a1), (a0, a1))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, struct heif_error, heif_decode_image, (const struct heif_image_handle *a0, struct heif_image **a1, enum heif_colorspace a2, enum heif_chroma a3, const struct heif_decoding_options *a4), (a0, a1, a2, a3, a4))
IMAGEPIPE_FORWARD_VOID(IMAGEPIPE_LIBHEIF, heif_encoder_release, (struct heif_encoder *a0), (a0))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, struct heif_error, heif_encoder_set_lossy_quality, (struct heif_encoder *a0, int a1), (a0, a1))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, struct heif_encoding_options *, heif_encoding_options_alloc, (void), ())
IMAGEPIPE_FORWARD_VOID(IMAGEPIPE_LIBHEIF, heif_encoding_options_free, (struct heif_encoding_options *a0), (a0))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, int, heif_have_decoder_for_format, (enum heif_compression_format a0), (a0))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, struct heif_error, heif_image_add_plane, (struct heif_image *a0, enum heif_channel a1, int a2, int a3, int a4), (a0, a1, a2, a3, a4))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, struct heif_error, heif_image_create, (int a0, int a1, enum heif_colorspace a2, enum heif_chroma a3, struct heif_image **a4), (a0, a1, a2, a3, a4))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, int, heif_image_get_height, (const struct heif_image *a0, enum heif_channel a1), (a0, a1))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, uint8_t *, heif_image_get_plane, (struct heif_image *a0, enum heif_channel a1, int *a2), (a0, a1, a2))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, const uint8_t *, heif_image_get_plane_readonly, (const struct heif_image *a0, enum heif_channel a1, int *a2), (a0, a1, a2))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, int, heif_image_get_width, (const struct heif_image *a0, enum heif_channel a1), (a0, a1))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, enum heif_color_profile_type, heif_image_handle_get_color_profile_type, (const struct heif_image_handle *a0), (a0))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, int, heif_image_handle_get_height, (const struct heif_image_handle *a0), (a0))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, int, heif_image_handle_get_list_of_metadata_block_IDs, (const struct heif_image_handle *a0, const char *a1, heif_item_id *a2, int a3), (a0, a1, a2, a3))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, int, heif_image_handle_get_luma_bits_per_pixel, (const struct heif_image_handle *a0), (a0))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, struct heif_error, heif_image_handle_get_metadata, (const struct heif_image_handle *a0, heif_item_id a1, void *a2), (a0, a1, a2))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, const char *, heif_image_handle_get_metadata_content_type, (const struct heif_image_handle *a0, heif_item_id a1), (a0, a1))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, size_t, heif_image_handle_get_metadata_size, (const struct heif_image_handle *a0, heif_item_id a1), (a0, a1))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, int, heif_image_handle_get_number_of_metadata_blocks, (const struct heif_image_handle *a0, const char *a1), (a0, a1))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, struct heif_error, heif_image_handle_get_raw_color_profile, (const struct heif_image_handle *a0, void *a1), (a0, a1))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, size_t, heif_image_handle_get_raw_color_profile_size, (const struct heif_image_handle *a0), (a0))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, int, heif_image_handle_get_width, (const struct heif_image_handle *a0), (a0))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, int, heif_image_handle_has_alpha_channel, (const struct heif_image_handle *a0), (a0))
IMAGEPIPE_FORWARD_VOID(IMAGEPIPE_LIBHEIF, heif_image_handle_release, (const struct heif_image_handle *a0), (a0))
IMAGEPIPE_FORWARD_VOID(IMAGEPIPE_LIBHEIF, heif_image_release, (const struct heif_image *a0), (a0))
IMAGEPIPE_FORWARD(IMAGEPIPE_LIBHEIF, struct heif_error, heif_init, (struct heif_init_params *a0), (a0))
