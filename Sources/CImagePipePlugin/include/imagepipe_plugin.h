#ifndef IMAGEPIPE_PLUGIN_H
#define IMAGEPIPE_PLUGIN_H

#include <stdint.h>

/*
 * ImagePipe's run-time plugin interface, version 2.
 *
 * A plugin is a shared library that exports
 *
 *     const imagepipe_plugin *imagepipe_plugin_entry(void);
 *
 * Only C types cross between the imagepipe command and a plugin: text as UTF-8 C strings and
 * pictures as GdkPixbuf pointers (void * here), so host and plugin may each carry their own copy
 * of the ImagePipe framework. Plugins written in Swift get this table from ImagePipePluginKit.
 *
 * How the interface may change without breaking either side:
 * - interface_version changes only when a field is removed, reordered or changes meaning; the
 *   command refuses a plugin of another version.
 * - A field added at the end keeps the version; table_size tells the command which fields the
 *   plugin has. The command refuses a table shorter than the fields it needs, and ignores fields
 *   past the ones it knows, so a newer plugin loads in an older command of the same version.
 * - describe's JSON carries "schemaVersion" (IMAGEPIPE_PLUGIN_SCHEMA_VERSION); the command
 *   refuses another version, and unknown keys, so a renamed key is an error, not a silent
 *   default.
 */

#define IMAGEPIPE_PLUGIN_INTERFACE_VERSION 2
#define IMAGEPIPE_PLUGIN_SCHEMA_VERSION 1

/* What a run tells its stages (set_context): ImagePipe's StageContext. */
typedef struct imagepipe_stage_context {
    /* sizeof(imagepipe_stage_context) as the command compiled it: which fields below it has. */
    uint32_t size;
    /* The run's --scaling: 0 fast, 1 good, 2 best. */
    int32_t scaling;
    /* The run's --max-pixels, the most pixels a picture a stage makes may have; 0 for no limit. */
    int64_t max_pixels;
    /* Nonzero once the run has been asked to stop (Ctrl-C, the picture's time limit): a stage's
       long loop asks every row or so and gives up, failing its apply. NULL: never asked. */
    int32_t (*should_stop)(const void *run);
    /* What should_stop is called with. */
    const void *run;
} imagepipe_stage_context;

/* A decode reduced for a stage (shrink-on-load, reduced_input): ImagePipe's DecodeReduction. The
   stage plans its geometry on the full picture and is handed the decode's pixels; a point
   (x, y) of the full picture lies at (x * scale_x + offset_x, y * scale_y + offset_y) in the
   decode. */
typedef struct imagepipe_reduction {
    /* sizeof(imagepipe_reduction) as the command compiled it: which fields below it has. */
    uint32_t size;
    int32_t full_width, full_height;
    int32_t decoded_width, decoded_height;
    double scale_x, scale_y, offset_x, offset_y;
} imagepipe_reduction;

/* A rectangle of a picture, in whole pixels. */
typedef struct imagepipe_rect {
    int32_t x, y, width, height;
} imagepipe_rect;

typedef struct imagepipe_plugin {
    /* Always the first field, in every version: the interface the plugin was built for. */
    int32_t interface_version;
    /* sizeof(imagepipe_plugin) as the plugin was compiled: which of the fields below it has. */
    uint32_t table_size;
    /* The plugin as JSON: {"schemaVersion": 1, "name", "summary", "stages": [schema, ...]}; NULL
       with *error set when the plugin cannot register. The text belongs to the plugin and stays
       valid. */
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
    /* Added without a version change (a plugin whose table_size ends before it has none): what
       the stage decided from the pixels in the last apply made on the calling thread (a smart
       crop's window, say), as a JSON array of {"name", "text", "value"} objects, ImagePipe's
       StageNote; NULL when it decided nothing. The command asks right after each apply, on the
       same thread, and frees the text with free_string. */
    char *(*notes)(void *stage);
    /* Added without a version change (absent or NULL: the stage promises nothing, and is run on
       whole pictures as it always was): what the stage promises, as IMAGEPIPE_STAGE_* bits. */
    uint32_t (*traits)(void *stage);
    /* Added without a version change (absent or NULL: nothing to say): what the stage will do to a
       width x height picture, in a few words, for `imagepipe explain` (a crop's rectangle, a
       scale); NULL when the sizes say it all. The command frees the text with free_string. */
    char *(*explain)(void *stage, int32_t width, int32_t height);
    /* Added without a version change (absent or NULL: not an area stage): for an area stage, each
       of whose output rows is made from the input rows at most this many above and below it (the
       picture's edges clamped), at the same size, keeping the alpha channel as traits say (a blur, a
       sharpening), its radius; -1 for any other stage. The command then runs the stage on
       windows of rows around each strip, as it runs the stock filters, and keeps the strip's
       rows of what apply makes. */
    int32_t (*area_radius)(void *stage);
    /* Added without a version change (absent or NULL: the stage's strips and windows go through
       apply, which does not learn where they lie): output rows first_row .. first_row + row_count
       - 1, at the output's full width, made from `pixbuf`, the input rows window_top .. of an
       input_width x input_height picture (for a point stage, the strip itself; for an area stage,
       the rows `radius` around; for a resample stage, the rows input_rows named). A new GdkPixbuf
       (one reference, for the caller); NULL with *error set. A stage whose rows depend on where
       they lie (a vignette) works its geometry out on the whole picture's size and makes these
       rows of it, so a streamed run shows no bands. */
    void *(*apply_window)(void *stage, void *pixbuf, int32_t window_top, int32_t input_width, int32_t input_height,
                          int32_t first_row, int32_t row_count, char **error);
    /* Added without a version change (absent or NULL: not a resample stage): for a stage with
       IMAGEPIPE_STAGE_RESAMPLE, the input rows (*input_first, *input_count) that output rows
       first_row .. first_row + row_count - 1 are made from, for an input_width x input_height
       picture; 0 on success, else *error set. */
    int32_t (*input_rows)(void *stage, int32_t first_row, int32_t row_count, int32_t input_width, int32_t input_height,
                          int32_t *input_first, int32_t *input_count, char **error);
    /* Added without a version change (absent or NULL: the stage runs as if alone, in `good`
       scaling, with no pixel limit, never asked to stop): the run's context for the next apply or
       apply_window on the calling thread, which the command gives right before each. The context
       and its `run` stay valid until that apply returns. */
    void (*set_context)(void *stage, const imagepipe_stage_context *context);
    /* Added without a version change (absent or NULL: the stage's input is decoded at full size):
       for a stage that only shrinks, the smallest picture (*reduced_width, *reduced_height) of a
       width x height input it needs; a JPEG is then decoded reduced in the DCT, at least that
       large, and handed to apply_window_reduced. 1 with the size set, 0 when it needs the full
       picture, -1 with *error set. */
    int32_t (*reduced_input)(void *stage, int32_t width, int32_t height, int32_t *reduced_width, int32_t *reduced_height,
                             char **error);
    /* Added without a version change (absent or NULL: no reduced_input): input_rows on the rows
       of a decode reduced as `reduction` says, for output planned on its full picture; 0 on
       success, else *error set. */
    int32_t (*input_rows_reduced)(void *stage, int32_t first_row, int32_t row_count, const imagepipe_reduction *reduction,
                                  int32_t *input_first, int32_t *input_count, char **error);
    /* Added without a version change (absent or NULL: no reduced_input): output rows first_row ..
       first_row + row_count - 1 made from `pixbuf`, the reduced decode's rows window_top ..: a
       window input_rows_reduced named, or the whole decode (window_top 0, every output row) for
       a stage that is not RESAMPLE. A new GdkPixbuf; NULL with *error set. */
    void *(*apply_window_reduced)(void *stage, void *pixbuf, int32_t window_top, const imagepipe_reduction *reduction,
                                  int32_t first_row, int32_t row_count, char **error);
    /* Added without a version change (absent or NULL: the stage runs on the whole picture): for a
       stage with IMAGEPIPE_STAGE_SURVEYS_TO_POINT or _TO_RESAMPLE, a new survey of its input (an
       auto-levels' histogram, empty); NULL with *error set. A streamed run reads the picture once
       for the survey, then once more through the stage survey_finish makes. */
    void *(*survey_begin)(void *stage, char **error);
    /* Looks at the input rows first_row .. first_row + the pixbuf's height - 1 (RGB) of a
       picture_width x picture_height picture: each row once, top to bottom. 0 on success, else
       *error set. */
    int32_t (*survey_look)(void *survey, void *pixbuf, int32_t first_row, int32_t picture_width, int32_t picture_height,
                           char **error);
    /* The stage the survey has made once it has seen every row, as create makes one (the command
       destroys it with destroy): a point stage (traits ROW_LOCAL) or a resample stage, as the
       surveying stage's traits said, giving the same pixels as apply on the whole picture. NULL
       with *error set. Its notes, if any, are asked right after, on the same thread, of the
       surveying stage. */
    void *(*survey_finish)(void *survey, char **error);
    /* Frees a survey made by survey_begin, finished or not. */
    void (*survey_free)(void *survey);
    /* Added without a version change (absent or NULL: the stage does not warp): 1 when output
       pixels of a width x height input come from input pixels that may lie anywhere (a turn by any
       angle, a swirl), so that a streamed run keeps the input in a tile cache and asks for the
       output in rectangles; 0 otherwise (the stage then runs by its class, or on the whole
       picture). */
    int32_t (*warps)(void *stage, int32_t width, int32_t height);
    /* The input rectangle *input that the output rectangle `output` is made from, for an
       input_width x input_height input: 1 with *input set (inside the input), 0 when no input
       pixel reaches it (all background), -1 with *error set. */
    int32_t (*warp_input_rect)(void *stage, const imagepipe_rect *output, int32_t input_width, int32_t input_height,
                               imagepipe_rect *input, char **error);
    /* The output rectangle `output` made from `pixbuf`, the pixels of the input rectangle `input`
       that warp_input_rect named (both NULL when it named none): the same pixels as that
       rectangle of apply on the whole picture. A new GdkPixbuf; NULL with *error set. Called from
       several threads at once for different rectangles. */
    void *(*warp_render)(void *stage, const imagepipe_rect *output, void *pixbuf, const imagepipe_rect *input,
                         int32_t input_width, int32_t input_height, char **error);
    /* Added without a version change (absent or NULL: the stage does more than resample; used
       only with reduced_input's three fields): 1 when the stage's whole work on a width x height
       input is resampling all of it to a smaller *output_width x *output_height with *kernel
       (IMAGEPIPE_KERNEL_*), so that a JPEG's decoder may do it in the picture's planes and hand
       apply_window_reduced a decode of the output's size (its reduction mapping the whole
       picture onto it), which the stage passes on; 0 when not; -1 with *error set. */
    int32_t (*whole_resampling)(void *stage, int32_t width, int32_t height, int32_t *output_width, int32_t *output_height,
                                int32_t *kernel, char **error);
} imagepipe_plugin;

/* whole_resampling's kernels: AUTO is the run's scaling mode's (Lanczos3). */
#define IMAGEPIPE_KERNEL_AUTO 0
#define IMAGEPIPE_KERNEL_NEAREST 1
#define IMAGEPIPE_KERNEL_BOX 2
#define IMAGEPIPE_KERNEL_LINEAR 3
#define IMAGEPIPE_KERNEL_CUBIC 4
#define IMAGEPIPE_KERNEL_MITCHELL 5
#define IMAGEPIPE_KERNEL_LANCZOS2 6
#define IMAGEPIPE_KERNEL_LANCZOS3 7

/* traits' bits. ROW_LOCAL: each output row is made from the same input row alone, same size
   (tone and color stages): apply may be handed strips of rows as they are decoded, and the run
   streams. SIZE_UPPER_BOUND: output_size is the largest apply may give, the real size depending
   on the pixels (trim). MAKES_GRAY: every output pixel is gray (R = G = B), so a JPEG may be
   written with one component. RESAMPLE: each strip of output rows is made from the window of
   input rows input_rows names, through apply_window (a crop, a scale): the run streams it, given
   both fields. A stage's output keeps its input's alpha channel (RGB rows stay RGB, RGBA rows
   RGBA) unless ADDS_ALPHA (an RGB input gives RGBA: a cut-out) or DROPS_ALPHA (an RGBA input
   gives RGB: a flattening) says otherwise; the streamed run sizes its rows by them.
   SURVEYS_TO_POINT, SURVEYS_TO_RESAMPLE: the stage must see every row of its input before it can
   make any, and then works as the point or resample stage its survey makes (survey_*); a
   resample one answers input_rows before the survey for the largest it can be. A command that
   knows neither bit runs such a stage on the whole picture. */
#define IMAGEPIPE_STAGE_ROW_LOCAL 1u
#define IMAGEPIPE_STAGE_SIZE_UPPER_BOUND 2u
#define IMAGEPIPE_STAGE_MAKES_GRAY 4u
#define IMAGEPIPE_STAGE_RESAMPLE 8u
#define IMAGEPIPE_STAGE_ADDS_ALPHA 16u
#define IMAGEPIPE_STAGE_DROPS_ALPHA 32u
#define IMAGEPIPE_STAGE_SURVEYS_TO_POINT 64u
#define IMAGEPIPE_STAGE_SURVEYS_TO_RESAMPLE 128u

typedef const imagepipe_plugin *(*imagepipe_plugin_entry_function)(void);

#endif
