#ifndef IMAGEPIPE_LIBRARY_LOADER_H
#define IMAGEPIPE_LIBRARY_LOADER_H

/* System libraries opened on first use instead of at start-up.
 *
 * libheif and libavif bring 27 libraries with them (HEVC and AV1 codecs, abseil, C++'s
 * runtime). Mapping and relocating those took some 40 % of every run's start-up, also
 * for the runs that never touch a HEIC or AVIF picture. So the command does not link them: the
 * functions it calls are defined in CHeif and CAvif as forwarders that open the library on
 * their first call, look the real function up once, and jump to it. They include the library's
 * own header, so the compiler checks every forwarder against the real declaration. */

#include <stdatomic.h>

/* The library `soname`, opened once per process. NULL when it cannot be opened, with the loader's
 * reason in *reason (kept for the life of the process). Safe from any thread. */
void *imagepipe_open_library(const char *soname, const char **reason);

/* The function `name` of the library `soname`. It stops the process with a message when the
 * library cannot be opened or lacks the function: callers check imagepipe_open_library first,
 * and a library of the same soname has every function of the version built against. */
void *imagepipe_library_function(const char *soname, const char *name);

/* A forwarder: the function `name` with the real declaration's result and parameters, resolved on
 * its first call (the pointer is kept in an atomic, so racing first calls resolve it twice, to
 * the same function). */
#define IMAGEPIPE_RESOLVE(soname, name) \
    static void *_Atomic resolved; \
    void *function = atomic_load_explicit(&resolved, memory_order_acquire); \
    if (!function) { \
        function = imagepipe_library_function(soname, #name); \
        atomic_store_explicit(&resolved, function, memory_order_release); \
    }
#define IMAGEPIPE_FORWARD(soname, result, name, parameters, arguments) \
    result name parameters { IMAGEPIPE_RESOLVE(soname, name) return ((__typeof__(&name))function) arguments; }
#define IMAGEPIPE_FORWARD_VOID(soname, name, parameters, arguments) \
    void name parameters { IMAGEPIPE_RESOLVE(soname, name) ((__typeof__(&name))function) arguments; }

#endif
