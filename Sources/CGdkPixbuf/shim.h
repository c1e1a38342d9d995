#ifndef IMAGEPIPE_CGDKPIXBUF_SHIM_H
#define IMAGEPIPE_CGDKPIXBUF_SHIM_H
#include <gdk-pixbuf/gdk-pixbuf.h>
#endif
