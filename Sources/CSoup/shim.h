#ifndef IMAGEPIPE_CSOUP_SHIM_H
#define IMAGEPIPE_CSOUP_SHIM_H
// libsoup 3 for `imagepipe edit`'s and `imagepipe serve`'s servers and serve's origin client,
// GLib's Unix signal sources for their loop, and glibc's mallopt for serve's heap count.
#include <libsoup/soup.h>
#include <glib-unix.h>
#include <malloc.h>
#endif
