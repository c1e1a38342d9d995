#ifndef IMAGEPIPE_PLUGIN_H
#define IMAGEPIPE_PLUGIN_H

#include <stdint.h>

/*
 * ImagePipe's run-time plugin interface, version 1.
 *
 * A plugin is a shared library that exports
 *
 *     const imagepipe_plugin_v1 *imagepipe_plugin_entry(void);
 *
 * Only C types cross between the imagepipe command and a plugin: text as UTF-8 C strings and
 * pictures as GdkPixbuf pointers (void * here), so host and plugin may each carry their own copy
 * of the ImagePipe framework. Plugins written in Swift get this table from ImagePipePluginKit.
 */

#define IMAGEPIPE_PLUGIN_INTERFACE_VERSION 1

typedef struct imagepipe_plugin_v1 {
    /* Always the first field, in every version: the interface the plugin was built for. */
    int32_t interface_version;
    /* The plugin as JSON: {"name", "summary", "stages": [schema, ...]}; NULL with *error set when
       the plugin cannot register. The text belongs to the plugin and stays valid. */
    const char *(*describe)(char **error);
    /* Makes a stage from its name and its canonical argument text (`key=value ...`); NULL with
       *error set when the arguments are refused. */
    void *(*create)(const char *stage, const char *arguments, char **error);
    /* The size apply will produce for an input of width x height; 0 on success, else *error set. */
    int32_t (*output_size)(void *stage, int32_t width, int32_t height,
                           int32_t *out_width, int32_t *out_height, char **error);
    /* A new GdkPixbuf (one reference, for the caller) from a borrowed one; NULL with *error set. */
    void *(*apply)(void *stage, void *pixbuf, char **error);
    /* Frees a stage made by create. */
    void (*destroy)(void *stage);
    /* Frees an error text the plugin made. */
    void (*free_string)(char *text);
} imagepipe_plugin_v1;

typedef const imagepipe_plugin_v1 *(*imagepipe_plugin_entry_function)(void);

#endif
