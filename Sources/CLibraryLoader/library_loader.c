#include "library_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The few libraries opened this way, each tried once: a failure is kept, not retried. */
enum { capacity = 8 };
static struct opened {
    const char *soname;
    void *handle;
    char *reason;
} opened[capacity];
static int openedCount;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void *imagepipe_open_library(const char *soname, const char **reason) {
    pthread_mutex_lock(&lock);
    struct opened *entry = NULL;
    for (int index = 0; index < openedCount; index++)
        if (strcmp(opened[index].soname, soname) == 0) entry = &opened[index];
    if (!entry && openedCount < capacity) {
        entry = &opened[openedCount++];
        entry->soname = soname;
        /* RTLD_LOCAL: its symbols stay out of the global scope, where the forwarders are. */
        entry->handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
        if (!entry->handle) {
            const char *message = dlerror();
            entry->reason = strdup(message ? message : soname);
        }
    }
    void *handle = entry ? entry->handle : NULL;
    if (reason) *reason = entry ? entry->reason : "too many libraries opened on first use";
    pthread_mutex_unlock(&lock);
    return handle;
}

void *imagepipe_library_function(const char *soname, const char *name) {
    const char *reason = NULL;
    void *handle = imagepipe_open_library(soname, &reason);
    if (!handle) {
        fprintf(stderr, "imagepipe: %s was called but %s cannot be opened: %s\n", name, soname, reason);
        abort();
    }
    void *function = dlsym(handle, name);
    if (!function) {
        fprintf(stderr, "imagepipe: %s has no %s\n", soname, name);
        abort();
    }
    return function;
}
