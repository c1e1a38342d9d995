#ifndef IMAGEPIPE_TIFF_CODEC_H
#define IMAGEPIPE_TIFF_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <tiff.h> /* the tag and value constants, for Swift too */

/* libtiff through the few calls Swift cannot make itself: TIFFGetField and TIFFSetField are C
 * variadic functions. Every handle has its own error and warning handlers (TIFFOpenOptions), so
 * no global handler is set and handles on different threads do not meet. */

/* What libtiff said about one handle: how many errors and warnings, and the first of each. */
struct imagepipe_tiff_messages {
    int errors;
    int warnings;
    char error[512];
    char warning[512];
};

/* The first directory's fields, as read (defaults filled in where a tag is absent). The icc and
 * xmp pointers belong to the reader: copy them before closing it. */
struct imagepipe_tiff_fields {
    uint32_t width, height;
    uint16_t samples_per_pixel, bits_per_sample, sample_format, photometric, planar_config, compression, orientation, ink_set;
    /* How many extra samples there are, and the first of them that is alpha (its index among the
     * extra samples, and EXTRASAMPLE_ASSOCALPHA or EXTRASAMPLE_UNASSALPHA), or alpha_kind 0. */
    uint16_t extra_samples, alpha_index, alpha_kind;
    int tiled;
    /* A strip is width x rows_per_strip; a tile tile_width x tile_length. */
    uint32_t tile_width, tile_length, rows_per_strip;
    /* How many strips or tiles there are (of every plane), and the bytes of one decoded. */
    uint32_t chunk_count;
    uint64_t chunk_size;
    const unsigned char *icc;
    uint32_t icc_size;
    const unsigned char *xmp;
    uint32_t xmp_size;
};

typedef struct imagepipe_tiff_reader imagepipe_tiff_reader;

/* Opens TIFF data held in memory (read in place: the data must outlive the reader) at its first
 * directory. No single allocation of libtiff's may exceed max_alloc bytes (when above 0). NULL
 * when it cannot be read, with libtiff's reason in *failure. */
imagepipe_tiff_reader *imagepipe_tiff_open(const unsigned char *data, size_t size, int64_t max_alloc,
                                           struct imagepipe_tiff_messages *failure);
/* Opens the TIFF file behind `descriptor`, `size` bytes long, reading it with pread (the
 * descriptor's offset is left as it is; the caller keeps and closes the descriptor). */
imagepipe_tiff_reader *imagepipe_tiff_open_descriptor(int descriptor, uint64_t size, int64_t max_alloc,
                                                      struct imagepipe_tiff_messages *failure);
void imagepipe_tiff_close(imagepipe_tiff_reader *reader);
/* Everything libtiff has said of the reader so far. */
const struct imagepipe_tiff_messages *imagepipe_tiff_reader_messages(const imagepipe_tiff_reader *reader);

/* Reads the first directory's fields into *fields; 0 on success. */
int imagepipe_tiff_read_fields(imagepipe_tiff_reader *reader, struct imagepipe_tiff_fields *fields);

/* The smaller copies of the picture stored after its first directory, as a pyramid stores them
 * (libvips' `tiffsave --pyramid`, most slide and map formats): the directories that follow it
 * marked FILETYPE_REDUCEDIMAGE, each smaller than the one before. Up to `capacity` of them, as
 * their directory numbers and sizes; gives how many. The reader is left at the first directory. */
int imagepipe_tiff_levels(imagepipe_tiff_reader *reader, uint16_t *directories, uint32_t *widths, uint32_t *heights, int capacity);

/* Makes directory `index` (0 the first) the one read; 0 on success. */
int imagepipe_tiff_set_directory(imagepipe_tiff_reader *reader, uint16_t index);

/* Asks libjpeg to give RGB for a JPEG-compressed YCbCr picture (TIFFTAG_JPEGCOLORMODE); 0 on success.
 * The strips then decode as RGB, 3 samples a pixel, and read_fields says so. */
int imagepipe_tiff_jpeg_as_rgb(imagepipe_tiff_reader *reader);

/* Decodes strip or tile `index` into buffer (size bytes); the bytes decoded, or -1. 16-bit
 * samples come in the machine's byte order. */
int64_t imagepipe_tiff_read_chunk(imagepipe_tiff_reader *reader, uint32_t index, void *buffer, size_t size);

/* libtiff's RGBA interface, for what is not read sample by sample (palette, 1 to 4 bits, YCbCr,
 * LogLuv, ...), in the file's own orientation: nothing is flipped. begin returns 0 when it can,
 * else -1 with libtiff's reason in the messages; stop_on_error makes a damaged strip end the read.
 * rows gives `count` rows from `first` as 4 bytes a pixel, R G B A; alpha, when there is any,
 * comes premultiplied (libtiff multiplies unassociated alpha in too). 0 on success. */
int imagepipe_tiff_rgba_begin(imagepipe_tiff_reader *reader, int stop_on_error);
int imagepipe_tiff_rgba_rows(imagepipe_tiff_reader *reader, uint32_t first, uint32_t count, unsigned char *rgba);

/* What the encoder writes. */
struct imagepipe_tiff_encoding {
    uint32_t width, height;
    /* 1 (gray), 3 (RGB) or 4 (RGB and unassociated alpha), 8 bits each, contiguous. */
    uint16_t samples;
    /* COMPRESSION_NONE, COMPRESSION_ADOBE_DEFLATE, COMPRESSION_LZW or COMPRESSION_JPEG. */
    uint16_t compression;
    int deflate_level;
    int jpeg_quality;
    /* The side of a square tile, or 0 for strips of rows_per_strip rows. */
    uint32_t tile;
    uint32_t rows_per_strip;
    const unsigned char *icc;
    uint32_t icc_size;
    const unsigned char *xmp;
    uint32_t xmp_size;
};

typedef struct imagepipe_tiff_writer imagepipe_tiff_writer;

/* Starts a TIFF with the fields of *encoding, in memory (descriptor -1) or in the open file
   `descriptor` (empty, seekable: libtiff writes where it needs to, and the header last); NULL
   with the reason in *failure. */
imagepipe_tiff_writer *imagepipe_tiff_writer_open(const struct imagepipe_tiff_encoding *encoding, int descriptor,
                                                  struct imagepipe_tiff_messages *failure);
const struct imagepipe_tiff_messages *imagepipe_tiff_writer_messages(const imagepipe_tiff_writer *writer);
/* Encodes strip or tile `index` from `size` bytes of contiguous samples; 0 on success. */
int imagepipe_tiff_write_chunk(imagepipe_tiff_writer *writer, uint32_t index, const void *data, size_t size);
/* Writes the directory and closes the TIFF; 0 on success, with the file's bytes in *bytes
 * (owned by the writer until it is freed; NULL when it was written to a file) and its length in *size. */
int imagepipe_tiff_writer_finish(imagepipe_tiff_writer *writer, const unsigned char **bytes, size_t *size);
void imagepipe_tiff_writer_free(imagepipe_tiff_writer *writer);

#endif
