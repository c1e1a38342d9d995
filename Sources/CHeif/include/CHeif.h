#ifndef IMAGEPIPE_CHEIF_H
#define IMAGEPIPE_CHEIF_H
/* libheif for HEIC and AVIF input, opened on first use (library_loader.h says why). */
#include <libheif/heif.h>

/* libheif has kept soname 1 since its first release. */
#define IMAGEPIPE_LIBHEIF "libheif.so.1"

/* NULL once libheif is open, else why it cannot be: call it before any heif_ function. */
const char *imagepipe_open_libheif(void);
#endif
