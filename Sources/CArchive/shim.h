#ifndef IMAGEPIPE_CARCHIVE_SHIM_H
#define IMAGEPIPE_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#endif
