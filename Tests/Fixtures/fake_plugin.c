/* Plugins for PluginLoadingTests, built with -D to pick one. Refused: NO_ENTRY (a shared library
   that is not a plugin), WRONG_VERSION, OLD_V1 (a plugin of interface version 1, before the table
   had its size), V2 (a plugin of interface version 2, the table of 24 fields before make_rows),
   SHORT_TABLE (a table that ends before make_rows, shorter than the command calls), FAILS
   (describe reports an error), CLASH (describes a stage named "fit", which the stock command
   already has), NO_SCHEMA_VERSION, FUTURE_SCHEMA, HUGE_SCHEMA (schemaVersion 1e300), RENAMED_KEY
   (a parameter key misspelt), HUGE_COUNT (a number list whose count runs backwards and past any
   whole number). Accepted: LONGER_TABLE (a newer plugin whose table has a field this command
   does not know), BEFORE_OPTIONAL (a table that ends before the optional fields, shrink, survey
   and warp: a whole stage that copies the picture and notes nothing), NOTES (a working stage that
   copies the picture and notes what it did; built with gdk-pixbuf), POINT (inverts the colors and
   says it is a point stage), AREA (averages each row with the rows above and below, and says it
   is an area stage of radius 1), TRIM (cuts a pixel off each side, and says its planned size is
   only the largest it gives), VIGNETTE (darkens by the distance from the picture's center: a
   point stage whose rows depend on where they lie, told through make_rows' top and input), HALF
   (every other row: a resample stage, through input_rows), FADE (adds alpha as opaque as each
   pixel is red: a point stage whose traits say it adds alpha) and CONTEXT (copies the picture and
   notes the run's context make_rows was given; on a picture one pixel wide it works until the
   context's should_stop says to stop, or 20 s). Crashing:
   CRASH_IN_CONSTRUCTOR (SIGSEGV as the library loads), CRASH_IN_ENTRY (SIGSEGV in
   imagepipe_plugin_entry). Every variant's constructor appends a line to the file named by
   FIXTURE_MARKER, when it is set: the tests' proof that its code ran, or did not. */
/* NEGATIVE_ROWS: HALF whose input_rows answers a negative row count (a lie the host must refuse). */
#ifdef NEGATIVE_ROWS
#define HALF
#endif
/* POINT_RESIZES: POINT whose plan gives half the width: a point stage that breaks its
   class's promise to keep the size. */
#ifdef POINT_RESIZES
#define POINT
#endif
/* DECLARATION_TRAP: describe stops the process as a Swift plugin's broken StageDeclaration does,
   the reason written on standard error by the runtime, then SIGILL. */
/* PATH_PARAMETER: POINT with a parameter of path kind, `file`, a file the stage would read. */
#ifdef PATH_PARAMETER
#define POINT
#endif
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "imagepipe_plugin.h"

__attribute__((constructor)) static void loaded(void) {
    const char *marker = getenv("FIXTURE_MARKER");
    if (marker) {
        FILE *file = fopen(marker, "a");
        if (file) {
            fprintf(file, "loaded in %ld\n", (long)getpid());
            fclose(file);
        }
    }
#ifdef CRASH_IN_CONSTRUCTOR
    raise(SIGSEGV);
#endif
}

#ifdef NO_ENTRY
int not_a_plugin(void) { return 42; }
#else
/* The names of the plugin and of its working stage; a test loading several fixtures at once
   gives each its own (-DPLUGIN_NAME='"inverter"' -DSTAGE_NAME='"inverse"'). */
#ifndef PLUGIN_NAME
#define PLUGIN_NAME "fixture"
#endif
#ifndef STAGE_NAME
#define STAGE_NAME "fake"
#endif
/* The working stage's summary and its parameter's name and help, as JSON text: a test gives
   others (-DPARAMETER_NAME='"a=b"', escapes such as \\u001b) to try the host's checks. */
#ifndef STAGE_SUMMARY
#define STAGE_SUMMARY "A stage from a fixture"
#endif
#ifndef PARAMETER_NAME
#define PARAMETER_NAME "level"
#endif
#ifndef PARAMETER_HELP
#define PARAMETER_HELP "How much"
#endif
#if defined(CLASH)
#define STAGES "[{\"name\":\"fit\",\"summary\":\"\",\"parameters\":[]}]"
#elif defined(HUGE_COUNT)
#define STAGES "[{\"name\":\"fake\",\"summary\":\"\",\"parameters\":[{\"name\":\"weights\",\"kind\":\"numbers\",\"count\":[1e300,2]}]}]"
#elif defined(PATH_PARAMETER)
#define STAGES "[{\"name\":\"" STAGE_NAME "\",\"summary\":\"\",\"parameters\":[{\"name\":\"file\",\"kind\":\"path\"}]}]"
#elif defined(RENAMED_KEY)
#define STAGES "[{\"name\":\"fake\",\"summary\":\"\",\"parameters\":[{\"name\":\"level\",\"kind\":\"number\",\"defualt\":\"1\"}]}]"
#else
#define STAGES "[{\"name\":\"" STAGE_NAME "\",\"summary\":\"" STAGE_SUMMARY "\",\"parameters\":[{\"name\":\"" PARAMETER_NAME "\",\"kind\":\"number\",\"default\":\"1\",\"help\":\"" PARAMETER_HELP "\"}]}]"
#endif
#if defined(NO_SCHEMA_VERSION)
#define VERSION_KEY ""
#elif defined(FUTURE_SCHEMA)
#define VERSION_KEY "\"schemaVersion\":2,"
#elif defined(HUGE_SCHEMA)
#define VERSION_KEY "\"schemaVersion\":1e300,"
#else
#define VERSION_KEY "\"schemaVersion\":1,"
#endif

static const char *describe(char **error) {
#ifdef FAILS
    *error = strdup("the licence server cannot be reached");
    return NULL;
#elif defined(DECLARATION_TRAP)
    (void)error;
    fputs("Sepia/SepiaStage.swift:12: Fatal error: stage 'fake': parameter 'level': default nan is refused by its own type: expected a number\n", stderr);
    raise(SIGILL);
    return NULL;
#else
    (void)error;
    return "{" VERSION_KEY "\"name\":\"" PLUGIN_NAME "\",\"summary\":\"\",\"stages\":" STAGES "}";
#endif
}
#if defined(NOTES) || defined(BEFORE_OPTIONAL) || defined(POINT) || defined(TRIM) || defined(AREA) || defined(VIGNETTE) || defined(HALF) || defined(CONTEXT) || defined(FADE)
#include <gdk-pixbuf/gdk-pixbuf.h>
#if defined(VIGNETTE)
/* Darkens each pixel by its distance from the picture's center: rows that depend on where they
   lie. `top` is the picture's row that is the first of `copy`, height the picture's. */
static void vignette(GdkPixbuf *copy, int top, int picture_width, int picture_height) {
    int rowstride = gdk_pixbuf_get_rowstride(copy), channels = gdk_pixbuf_get_n_channels(copy);
    guchar *pixels = gdk_pixbuf_get_pixels(copy);
    double cx = picture_width / 2.0, cy = picture_height / 2.0;
    for (int y = 0; y < gdk_pixbuf_get_height(copy); y++)
        for (int x = 0; x < gdk_pixbuf_get_width(copy); x++) {
            double dx = x + 0.5 - cx, dy = top + y + 0.5 - cy;
            double factor = 1 - 0.6 * (dx * dx + dy * dy) / (cx * cx + cy * cy);
            for (int c = 0; c < 3; c++) {
                guchar *value = pixels + y * rowstride + x * channels + c;
                *value = (guchar)(*value * factor + 0.5);
            }
        }
}
#endif
#if defined(HALF)
/* Every other row, from the first: a resample stage of half the height. `first` is the output's
   row that is the first made, `window_top` the input's row that is the first of `window`. */
static GdkPixbuf *half(GdkPixbuf *window, int window_top, int first, int count) {
    int width = gdk_pixbuf_get_width(window), channels = gdk_pixbuf_get_n_channels(window);
    GdkPixbuf *made = gdk_pixbuf_new(GDK_COLORSPACE_RGB, gdk_pixbuf_get_has_alpha(window), 8, width, count);
    for (int y = 0; y < count; y++)
        memcpy(gdk_pixbuf_get_pixels(made) + y * gdk_pixbuf_get_rowstride(made),
               gdk_pixbuf_read_pixels(window) + (2 * (first + y) - window_top) * gdk_pixbuf_get_rowstride(window), (size_t)(width * channels));
    return made;
}
#endif
/* Rows first .. first + count - 1 of a whole stage's output `made`, which it gives up; all of it
   when those are all its rows, or when it made fewer than planned (TRIM). */
__attribute__((unused)) static GdkPixbuf *rows_of(GdkPixbuf *made, int first, int count) {
    int height = gdk_pixbuf_get_height(made);
    if ((first == 0 && count == height) || first + count > height) return made;
    GdkPixbuf *inner = gdk_pixbuf_new_subpixbuf(made, 0, first, gdk_pixbuf_get_width(made), count);
    GdkPixbuf *kept = gdk_pixbuf_copy(inner);
    g_object_unref(inner);
    g_object_unref(made);
    return kept;
}
static void *create(const char *stage, const char *arguments, char **error) { (void)stage; (void)arguments; (void)error; return malloc(1); }
/* The one method: output rows first_row .. of the rows `pixbuf` holds, the input's from `top`. */
static void *make_rows(void *stage, const imagepipe_stage_context *context, void *pixbuf, int32_t top,
                       const imagepipe_reduction *input, int32_t first_row, int32_t row_count, char **notes, char **error) {
    (void)stage; (void)error; (void)input; (void)context; (void)notes; (void)top; (void)first_row; (void)row_count;
#if defined(VIGNETTE)
    /* A point stage: the strip is the rows it makes, at their place in the input. */
    GdkPixbuf *shaded = gdk_pixbuf_copy(pixbuf);
    vignette(shaded, top, input->decoded_width, input->decoded_height);
    return shaded;
#elif defined(HALF)
    return half(pixbuf, top, first_row, row_count);
#elif defined(CONTEXT)
    if (gdk_pixbuf_get_width(pixbuf) == 1) {
        /* A long loop that asks the run, as a stage's row loop does. */
        for (int waited = 0; waited < 2000; waited++) {
            if (context && context->should_stop && context->should_stop(context->run)) {
                *error = strdup("stopped, as the run asked");
                return NULL;
            }
            usleep(10000);
        }
    }
    char text[160];
    int scaling = context ? context->scaling : -1;
    long long max_pixels = context ? (long long)context->max_pixels : -1;
    snprintf(text, sizeof text, "[{\"name\":\"context\",\"text\":\"scaling %d, max-pixels %lld\",\"value\":[%d,%lld]}]",
             scaling, max_pixels, scaling, max_pixels);
    *notes = strdup(text);
    return rows_of(gdk_pixbuf_copy(pixbuf), first_row, row_count);
#elif defined(FADE)
    /* Adds alpha, each pixel as opaque as it is red: a point stage whose rows become RGBA. */
    GdkPixbuf *faded = gdk_pixbuf_add_alpha(pixbuf, FALSE, 0, 0, 0);
    int rowstride = gdk_pixbuf_get_rowstride(faded);
    guchar *pixels = gdk_pixbuf_get_pixels(faded);
    for (int y = 0; y < gdk_pixbuf_get_height(faded); y++)
        for (int x = 0; x < gdk_pixbuf_get_width(faded); x++) pixels[y * rowstride + x * 4 + 3] = pixels[y * rowstride + x * 4];
    return faded;
#elif defined(TRIM)
    /* One pixel off each side: smaller than plan said, which TRIM's traits allow. */
    int w = gdk_pixbuf_get_width(pixbuf), h = gdk_pixbuf_get_height(pixbuf);
    GdkPixbuf *inner = gdk_pixbuf_new_subpixbuf(pixbuf, 1, 1, w - 2, h - 2);
    GdkPixbuf *copy = gdk_pixbuf_copy(inner);
    g_object_unref(inner);
    return rows_of(copy, first_row, row_count);
#elif defined(AREA)
    /* Each row the mean of itself and the rows above and below (the input's edges clamped): an
       area stage, given its rows with the row above and below them where the input has them. */
    int channels = gdk_pixbuf_get_n_channels(pixbuf), width = gdk_pixbuf_get_width(pixbuf), height = gdk_pixbuf_get_height(pixbuf);
    int in_stride = gdk_pixbuf_get_rowstride(pixbuf);
    GdkPixbuf *made = gdk_pixbuf_new(GDK_COLORSPACE_RGB, gdk_pixbuf_get_has_alpha(pixbuf), 8, width, row_count);
    int out_stride = gdk_pixbuf_get_rowstride(made);
    const guchar *in = gdk_pixbuf_read_pixels(pixbuf);
    guchar *out = gdk_pixbuf_get_pixels(made);
    for (int y = 0; y < row_count; y++) {
        int local = first_row + y - top;
        const guchar *above = in + (local > 0 ? local - 1 : 0) * in_stride, *row = in + local * in_stride;
        const guchar *below = in + (local + 1 < height ? local + 1 : height - 1) * in_stride;
        for (int i = 0; i < width * channels; i++) out[y * out_stride + i] = (guchar)((above[i] + row[i] + below[i] + 1) / 3);
    }
    return made;
#elif defined(POINT)
    /* Inverts the colors, row by row: a stage that may be streamed. */
    GdkPixbuf *copy = gdk_pixbuf_copy(pixbuf);
    int rowstride = gdk_pixbuf_get_rowstride(copy), channels = gdk_pixbuf_get_n_channels(copy);
    guchar *pixels = gdk_pixbuf_get_pixels(copy);
    for (int y = 0; y < gdk_pixbuf_get_height(copy); y++)
        for (int x = 0; x < gdk_pixbuf_get_width(copy); x++)
            for (int c = 0; c < 3; c++) pixels[y * rowstride + x * channels + c] = 255 - pixels[y * rowstride + x * channels + c];
    return copy;
#else
#if defined(NOTES)
    *notes = strdup("[{\"name\":\"copy\",\"text\":\"copied by the fixture\",\"value\":{\"level\":1}}]");
#endif
    return rows_of(gdk_pixbuf_copy(pixbuf), first_row, row_count);
#endif
}
static void destroy(void *stage) { free(stage); }
#if defined(HALF)
static int32_t input_rows(void *stage, int32_t first_row, int32_t row_count, const imagepipe_reduction *input,
                          int32_t *input_first, int32_t *input_count, char **error) {
    (void)stage; (void)input; (void)error;
    *input_first = 2 * first_row;
    *input_count = 2 * (row_count - 1) + 1;
#ifdef NEGATIVE_ROWS
    *input_count = -5;
#endif
    return 0;
}
#endif
#else
static void *create(const char *stage, const char *arguments, char **error) { (void)stage; (void)arguments; (void)error; return NULL; }
static void *make_rows(void *stage, const imagepipe_stage_context *context, void *pixbuf, int32_t top,
                       const imagepipe_reduction *input, int32_t first_row, int32_t row_count, char **notes, char **error) {
    (void)stage; (void)context; (void)pixbuf; (void)top; (void)input; (void)first_row; (void)row_count; (void)notes; (void)error;
    return NULL;
}
static void destroy(void *stage) { (void)stage; }
#endif
static int32_t plan(void *stage, int32_t w, int32_t h, int32_t *ow, int32_t *oh, char **explanation, char **error) {
    (void)stage; (void)error; *ow = w; *oh = h;
#if defined(POINT_RESIZES)
    *ow = w / 2 > 0 ? w / 2 : 1;
#endif
#if defined(HALF)
    *oh = h / 2 > 0 ? h / 2 : 1;
#endif
    if (explanation) {
        char text[64];
        snprintf(text, sizeof text, "at most %dx%d, less what the border takes", w, h);
        *explanation = strdup(text);
    }
    return 0;
}
static void free_string(char *text) { free(text); }
static uint32_t traits(void *stage, int32_t *area_radius) {
    (void)stage; (void)area_radius;
#if defined(POINT) || defined(VIGNETTE)
    return IMAGEPIPE_CLASS_POINT;
#elif defined(FADE)
    return IMAGEPIPE_CLASS_POINT | IMAGEPIPE_STAGE_ADDS_ALPHA;
#elif defined(AREA)
    *area_radius = 1;
    return IMAGEPIPE_CLASS_AREA;
#elif defined(HALF)
    return IMAGEPIPE_CLASS_RESAMPLE;
#elif defined(TRIM)
    return IMAGEPIPE_CLASS_WHOLE | IMAGEPIPE_STAGE_SIZE_UPPER_BOUND;
#else
    return IMAGEPIPE_CLASS_WHOLE;
#endif
}

#if !defined(HALF)
#define input_rows NULL
#endif

/* A later version of the table with one more field at the end, as a newer plugin would have. */
typedef struct {
    imagepipe_plugin known;
    void (*a_field_added_later)(void);
} longer_table;
static void added_later(void) {}

#if defined(V2)
/* The head of interface version 2's table, as a plugin built for it exports it: the command
   must read no further than interface_version. */
typedef struct {
    int32_t interface_version;
    uint32_t table_size;
    const char *(*describe)(char **error);
    void *(*create)(const char *stage, const char *arguments, char **error);
    int32_t (*output_size)(void *stage, int32_t width, int32_t height, int32_t *out_width, int32_t *out_height, char **error);
    void *(*apply)(void *stage, void *pixbuf, char **error);
    void (*destroy)(void *stage);
    void (*free_string)(char *text);
} version_2_table;
static int32_t output_size(void *stage, int32_t w, int32_t h, int32_t *ow, int32_t *oh, char **error) {
    (void)stage; (void)error; *ow = w; *oh = h;
    return 0;
}
static void *apply(void *stage, void *pixbuf, char **error) { (void)stage; (void)pixbuf; (void)error; return NULL; }
static const version_2_table table_v2 = { 2, sizeof(version_2_table), describe, create, output_size, apply, destroy, free_string };
#endif

__attribute__((unused)) static const longer_table table = {
    {
#if defined(WRONG_VERSION)
        999,
#elif defined(OLD_V1)
        1,
#else
        IMAGEPIPE_PLUGIN_INTERFACE_VERSION,
#endif
#if defined(SHORT_TABLE)
        offsetof(imagepipe_plugin, make_rows),
#elif defined(BEFORE_OPTIONAL)
        offsetof(imagepipe_plugin, shrink),
#elif defined(LONGER_TABLE)
        sizeof(longer_table),
#else
        sizeof(imagepipe_plugin),
#endif
        describe, create, destroy, free_string, traits, plan, input_rows, make_rows, NULL, NULL, NULL
    },
    added_later
};

const imagepipe_plugin *imagepipe_plugin_entry(void) {
#ifdef CRASH_IN_ENTRY
    raise(SIGSEGV);
#endif
#if defined(V2)
    return (const imagepipe_plugin *)&table_v2;
#else
    return &table.known;
#endif
}
#endif
