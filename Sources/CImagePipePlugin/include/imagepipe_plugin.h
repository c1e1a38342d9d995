#ifndef IMAGEPIPE_PLUGIN_H
#define IMAGEPIPE_PLUGIN_H

#include <stdint.h>

/*
 * ImagePipe's run-time plugin interface, version 3.
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
 * - The sub-tables (survey, warp) carry their own size, and grow by the same rule.
 *
 * Version 3 follows the Swift stage contract: a class and one method that makes pixels
 * (make_rows), where version 2 had grown 24 fields one optimization at a time (apply,
 * apply_window, apply_window_reduced, set_context, notes, ...). A version 2 plugin is refused,
 * with both versions named: rebuild it against this header.
 */

#define IMAGEPIPE_PLUGIN_INTERFACE_VERSION 3
#define IMAGEPIPE_PLUGIN_SCHEMA_VERSION 1

/* What a run tells its stages, with every call that makes pixels: ImagePipe's StageContext. */
typedef struct imagepipe_stage_context {
    /* sizeof(imagepipe_stage_context) as the command compiled it: which fields below it has. */
    uint32_t size;
    /* The run's --scaling: 0 fast, 1 good, 2 best. */
    int32_t scaling;
    /* The run's --max-pixels, the most pixels a picture a stage makes may have; 0 for no limit. */
    int64_t max_pixels;
    /* Nonzero once the run has been asked to stop (Ctrl-C, the picture's time limit): a stage's
       long loop asks every row or so and gives up, failing its make_rows. NULL: never asked. */
    int32_t (*should_stop)(const void *run);
    /* What should_stop is called with. */
    const void *run;
} imagepipe_stage_context;

/* The input a stage works on, maybe a decode reduced for it (shrink): ImagePipe's DecodeReduction. The
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

/* The classes of stage (traits' low bits, IMAGEPIPE_CLASS_MASK): how output rows depend on input
   rows, what lets a run work in strips. WHOLE: every output row may need every input row (the
   stage is given the whole input). POINT: each output row is made from the same input row alone,
   at the same size (tone and color stages). AREA: from the input rows at most *area_radius above
   and below it (the picture's edges clamped), at the same size (a blur). RESAMPLE: from the input
   rows input_rows names (a crop, a scale). */
#define IMAGEPIPE_CLASS_WHOLE 0u
#define IMAGEPIPE_CLASS_POINT 1u
#define IMAGEPIPE_CLASS_AREA 2u
#define IMAGEPIPE_CLASS_RESAMPLE 3u
#define IMAGEPIPE_CLASS_MASK 15u

/* traits' promises, above the class. SIZE_UPPER_BOUND: plan's size is the largest make_rows may
   give, the real size depending on the pixels (trim). MAKES_GRAY: every output pixel is gray
   (R = G = B), so a JPEG may be written with one component. A stage's output keeps its input's
   alpha channel (RGB rows stay RGB, RGBA rows RGBA) unless ADDS_ALPHA (an RGB input gives RGBA: a
   cut-out) or DROPS_ALPHA (an RGBA input gives RGB: a flattening) says otherwise; the streamed run
   sizes its rows by them. SURVEYS_TO_POINT, SURVEYS_TO_RESAMPLE: the stage must see every row of
   its input before it can make any (its class is then WHOLE), and then works as the point or
   resample stage its survey makes (`survey`); a resample one answers input_rows before the survey
   for the largest it can be. */
#define IMAGEPIPE_STAGE_SIZE_UPPER_BOUND 16u
#define IMAGEPIPE_STAGE_MAKES_GRAY 32u
#define IMAGEPIPE_STAGE_ADDS_ALPHA 64u
#define IMAGEPIPE_STAGE_DROPS_ALPHA 128u
#define IMAGEPIPE_STAGE_SURVEYS_TO_POINT 256u
#define IMAGEPIPE_STAGE_SURVEYS_TO_RESAMPLE 512u

/* A stage that must see every row before it makes any (an auto-levels' histogram): a streamed
   run reads the picture once for the survey, then once more through the stage finish makes. */
typedef struct imagepipe_survey_functions {
    /* sizeof(imagepipe_survey_functions) as the plugin compiled it: which fields below it has. */
    uint32_t size;
    /* A new, empty survey of the stage's input; NULL with *error set. */
    void *(*begin)(void *stage, char **error);
    /* Looks at the input rows first_row .. first_row + the pixbuf's height - 1 of a
       picture_width x picture_height picture: each row once, top to bottom. 0 on success, else
       *error set. */
    int32_t (*look)(void *survey, void *pixbuf, int32_t first_row, int32_t picture_width, int32_t picture_height,
                    char **error);
    /* The stage the survey made once it has seen every row, as create makes one (the host
       destroys it with destroy): of the class the surveying stage's SURVEYS_TO_* bit said, giving
       the same pixels as the surveying stage on the whole picture. Made in the run's `context`;
       *notes as make_rows'. NULL with *error set. */
    void *(*finish)(void *survey, const imagepipe_stage_context *context, char **notes, char **error);
    /* Frees a survey made by begin, finished or not. */
    void (*free)(void *survey);
} imagepipe_survey_functions;

/* A stage whose output pixels come from input pixels that may lie anywhere (a turn by any angle,
   a swirl): a streamed run keeps its input in a tile cache and asks for the output in rectangles. */
typedef struct imagepipe_warp_functions {
    /* sizeof(imagepipe_warp_functions) as the plugin compiled it: which fields below it has. */
    uint32_t size;
    /* 1 when the stage warps a width x height input (it then runs through input_rect and render),
       0 when it runs by its class. */
    int32_t (*warps)(void *stage, int32_t width, int32_t height);
    /* The input rectangle *input that the output rectangle `output` is made from, for an
       input_width x input_height input: 1 with *input set (inside the input), 0 when no input
       pixel reaches it (all background), -1 with *error set. */
    int32_t (*input_rect)(void *stage, const imagepipe_rect *output, int32_t input_width, int32_t input_height,
                          imagepipe_rect *input, char **error);
    /* The output rectangle `output` made from `pixbuf`, the pixels of the input rectangle `input`
       that input_rect named (both NULL when it named none), in the run's `context`: the same
       pixels as that rectangle of the whole output. A new GdkPixbuf; NULL with *error set. Called
       from several threads at once for different rectangles. */
    void *(*render)(void *stage, const imagepipe_stage_context *context, const imagepipe_rect *output, void *pixbuf,
                    const imagepipe_rect *input, int32_t input_width, int32_t input_height, char **error);
} imagepipe_warp_functions;

/* shrink's kernels: AUTO is the run's scaling mode's (Lanczos3). */
#define IMAGEPIPE_KERNEL_AUTO 0
#define IMAGEPIPE_KERNEL_NEAREST 1
#define IMAGEPIPE_KERNEL_BOX 2
#define IMAGEPIPE_KERNEL_LINEAR 3
#define IMAGEPIPE_KERNEL_CUBIC 4
#define IMAGEPIPE_KERNEL_MITCHELL 5
#define IMAGEPIPE_KERNEL_LANCZOS2 6
#define IMAGEPIPE_KERNEL_LANCZOS3 7

/* The table: ImagePipe's stage contract in C. A stage has a class and ONE method that makes
   pixels, make_rows, as a Swift Transform has makeRows(_:from:); what else it may do (be decoded
   for at a reduced size, survey, warp) it declares apart, in the optional fields at the end. */
typedef struct imagepipe_plugin {
    /* Always the first field, in every version: the interface the plugin was built for. */
    int32_t interface_version;
    /* sizeof(imagepipe_plugin) as the plugin was compiled: which of the fields below it has. The
       fields up to make_rows are required; those past table_size are absent (NULL). */
    uint32_t table_size;
    /* The plugin as JSON: {"schemaVersion": 1, "name", "summary", "stages": [schema, ...]}; NULL
       with *error set when the plugin cannot register. The text belongs to the plugin and stays
       valid. */
    const char *(*describe)(char **error);
    /* Makes a stage from its name and its canonical argument text (`key=value ...`); NULL with
       *error set when the arguments are refused. */
    void *(*create)(const char *stage, const char *arguments, char **error);
    /* Frees a stage made by create (or by a survey's finish). */
    void (*destroy)(void *stage);
    /* Frees a text the plugin made (an error, notes, an explanation). */
    void (*free_string)(char *text);
    /* What the stage is, asked once when it is made: its IMAGEPIPE_CLASS_* in the low bits, with
       *area_radius set for an AREA stage, and IMAGEPIPE_STAGE_* promises above. NULL: a WHOLE
       stage that promises nothing. */
    uint32_t (*traits)(void *stage, int32_t *area_radius);
    /* The size make_rows makes from a width x height input, without pixels; and, when
       `explanation` is not NULL, what the stage will do to such a picture in a few words for
       `imagepipe explain` (a crop's rectangle, a scale), or NULL when the sizes say it all: the
       host frees it with free_string. 0 on success, else *error set. */
    int32_t (*plan)(void *stage, int32_t width, int32_t height, int32_t *out_width, int32_t *out_height,
                    char **explanation, char **error);
    /* The input rows (*input_first, *input_count), in the decode's rows, that output rows
       first_row .. first_row + row_count - 1 are made from, for the input `input` describes (a
       full decode has decoded == full size, scale 1, offset 0). A RESAMPLE stage must say; NULL:
       the class's rows (a point stage's own rows, an area stage's `radius` around them clamped,
       a whole stage's every row). 0 on success, else *error set. */
    int32_t (*input_rows)(void *stage, int32_t first_row, int32_t row_count, const imagepipe_reduction *input,
                          int32_t *input_first, int32_t *input_count, char **error);
    /* THE method: output rows first_row .. first_row + row_count - 1, at the output's full
       width, made from `pixbuf`, the input rows top .. top + its height - 1 that input_rows (or
       the class) named, of the input `input` describes. A stage whose rows depend on where they
       lie (a vignette) works its geometry out on the whole input and makes these rows of it, so
       that strips show no bands. The run's `context` (its scaling, pixel limit, should_stop) is
       valid until the call returns. *notes: what the stage decided from the pixels (a smart
       crop's window), a JSON array of {"name", "text", "value"} objects (ImagePipe's StageNote)
       that the host frees with free_string, or left NULL. A new GdkPixbuf (one reference, for
       the host); NULL with *error set. Called from several threads at once: it keeps no state. */
    void *(*make_rows)(void *stage, const imagepipe_stage_context *context, void *pixbuf, int32_t top,
                       const imagepipe_reduction *input, int32_t first_row, int32_t row_count,
                       char **notes, char **error);
    /* Optional (absent or NULL: the input is decoded at full size), shrink-on-load for a stage
       that only shrinks: 0 when it needs every pixel of a width x height input; 1 with
       (*reduced_width, *reduced_height) set, the smallest decode that gives its full-quality
       output (a JPEG is then decoded reduced in the DCT, at least that large, and make_rows
       and input_rows are given the decode's rows with `input` mapping the full picture onto
       it); 2 with those and (*whole_width, *whole_height, *kernel) set when the stage's whole
       work is resampling the whole picture to that smaller size with that IMAGEPIPE_KERNEL_*,
       so that a JPEG's decoder may do it in the picture's planes and hand make_rows a decode of
       the output's size, which the stage passes on; -1 with *error set. */
    int32_t (*shrink)(void *stage, int32_t width, int32_t height, int32_t *reduced_width, int32_t *reduced_height,
                      int32_t *whole_width, int32_t *whole_height, int32_t *kernel, char **error);
    /* Optional (absent or NULL: the stage runs on the whole picture even with a SURVEYS_TO_* bit). */
    const imagepipe_survey_functions *survey;
    /* Optional (absent or NULL: the stage does not warp). */
    const imagepipe_warp_functions *warp;
} imagepipe_plugin;

typedef const imagepipe_plugin *(*imagepipe_plugin_entry_function)(void);

#endif
