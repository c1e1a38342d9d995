/* Plugins that must be refused, built by PluginLoadingTests with -D to pick one:
   NO_ENTRY (a shared library that is not a plugin), WRONG_VERSION, FAILS (describe reports an
   error), CLASH (describes a stage named "fit", which the stock command already has). */
#include <stdlib.h>
#include <string.h>
#include "imagepipe_plugin.h"

#ifdef NO_ENTRY
int not_a_plugin(void) { return 42; }
#else
static const char *describe(char **error) {
#ifdef FAILS
    *error = strdup("the licence server cannot be reached");
    return NULL;
#else
    (void)error;
    return "{\"name\":\"clash\",\"summary\":\"\",\"stages\":[{\"name\":\"fit\",\"summary\":\"\",\"parameters\":[]}]}";
#endif
}
static void *create(const char *stage, const char *arguments, char **error) { (void)stage; (void)arguments; (void)error; return NULL; }
static int32_t output_size(void *stage, int32_t w, int32_t h, int32_t *ow, int32_t *oh, char **error) {
    (void)stage; (void)error; *ow = w; *oh = h; return 0;
}
static void *apply(void *stage, void *pixbuf, char **error) { (void)stage; (void)pixbuf; (void)error; return NULL; }
static void destroy(void *stage) { (void)stage; }
static void free_string(char *text) { free(text); }

static const imagepipe_plugin_v1 table = {
#ifdef WRONG_VERSION
    999,
#else
    IMAGEPIPE_PLUGIN_INTERFACE_VERSION,
#endif
    describe, create, output_size, apply, destroy, free_string
};

const imagepipe_plugin_v1 *imagepipe_plugin_entry(void) { return &table; }
#endif
