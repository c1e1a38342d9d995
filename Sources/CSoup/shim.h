#ifndef IMAGEPIPE_CSOUP_SHIM_H
#define IMAGEPIPE_CSOUP_SHIM_H
// libsoup 3 for `imagepipe edit`'s local server, and GLib's Unix signal sources for its loop.
#include <libsoup/soup.h>
#include <glib-unix.h>
#endif
