#ifndef IMAGEPIPE_CAVIF_H
#define IMAGEPIPE_CAVIF_H
/* libavif for AVIF output and for reading image sequences, opened on first use (library_loader.h
 * says why). */
#include <avif/avif.h>

/* The soname belongs to the ABI of the header built against: libavif 0.11 is soname 15, the
 * 1.x releases 16. */
#if AVIF_VERSION_MAJOR == 0 && AVIF_VERSION_MINOR == 11
#define IMAGEPIPE_LIBAVIF "libavif.so.15"
#elif AVIF_VERSION_MAJOR == 1
#define IMAGEPIPE_LIBAVIF "libavif.so.16"
#else
#error "name the soname of this libavif version here"
#endif

/* NULL once libavif is open, else why it cannot be: call it before any avif function. */
const char *imagepipe_open_libavif(void);
#endif
