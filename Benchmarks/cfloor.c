/* The C floor: the benchmark tasks written directly against gdk-pixbuf, decoding at reduced size
   (gdk_pixbuf_new_from_file_at_scale lets the JPEG loader scale in the DCT). What ImagePipe is
   measured against: the same library, no framework.

   usage: cfloor TASK OUTPUT INPUT…   (TASK: fit, fit=WxH, letterbox, slice, avatar; several
   inputs for a batch, OUTPUT then a directory). OUTPUT is written as PNG (compression 6) when
   its name ends in .png, else as JPEG q90. */
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static GdkPixbuf *load_at_least(const char *path, int w, int h, gboolean cover) {
    int fw = 0, fh = 0;
    gdk_pixbuf_get_file_info(path, &fw, &fh);
    double s = cover ? fmax((double)w / fw, (double)h / fh) : fmin((double)w / fw, (double)h / fh);
    GError *error = NULL;
    GdkPixbuf *p = gdk_pixbuf_new_from_file_at_scale(path, (int)ceil(fw * s), (int)ceil(fh * s), TRUE, &error);
    if (!p) { fprintf(stderr, "%s: %s\n", path, error->message); exit(1); }
    return p;
}

static GdkPixbuf *cover_crop(const char *path, int size) {
    GdkPixbuf *p = load_at_least(path, size, size, TRUE);
    int w = gdk_pixbuf_get_width(p), h = gdk_pixbuf_get_height(p);
    double s = fmax((double)size / w, (double)size / h);
    GdkPixbuf *out = gdk_pixbuf_new(GDK_COLORSPACE_RGB, gdk_pixbuf_get_has_alpha(p), 8, size, size);
    gdk_pixbuf_scale(p, out, 0, 0, size, size, -(w * s - size) / 2, -(h * s - size) / 2, s, s, GDK_INTERP_BILINEAR);
    g_object_unref(p);
    return out;
}

static int fit_w = 1280, fit_h = 720;

static void save(GdkPixbuf *p, const char *path) {
    GError *error = NULL;
    const char *dot = strrchr(path, '.');
    gboolean ok = dot && strcmp(dot, ".png") == 0
        ? gdk_pixbuf_save(p, path, "png", &error, "compression", "6", NULL)
        : gdk_pixbuf_save(p, path, "jpeg", &error, "quality", "90", NULL);
    if (!ok) { fprintf(stderr, "%s: %s\n", path, error->message); exit(1); }
}

static GdkPixbuf *fit(const char *path) {
    GdkPixbuf *p = load_at_least(path, fit_w, fit_h, FALSE);
    int w = gdk_pixbuf_get_width(p), h = gdk_pixbuf_get_height(p);
    double s = fmin((double)fit_w / w, (double)fit_h / h);
    GdkPixbuf *out = gdk_pixbuf_scale_simple(p, (int)lround(w * s), (int)lround(h * s), GDK_INTERP_BILINEAR);
    g_object_unref(p);
    return out;
}

static GdkPixbuf *avatar(const char *path) {
    GdkPixbuf *square = cover_crop(path, 512);
    GdkPixbuf *out = gdk_pixbuf_add_alpha(square, FALSE, 0, 0, 0);
    g_object_unref(square);
    int stride = gdk_pixbuf_get_rowstride(out);
    guchar *pixels = gdk_pixbuf_get_pixels(out);
    for (int y = 0; y < 512; y++) {
        guchar *row = pixels + y * stride;
        double dy = y + 0.5 - 256;
        for (int x = 0; x < 512; x++) {
            double dx = x + 0.5 - 256;
            double coverage = fmin(1, fmax(0, 256.5 - sqrt(dx * dx + dy * dy)));
            int a = (int)lround(row[x * 4 + 3] * coverage);
            row[x * 4 + 3] = (guchar)a;
            if (a == 0) row[x * 4] = row[x * 4 + 1] = row[x * 4 + 2] = 0;
        }
    }
    return out;
}

static void run(const char *task, const char *input, const char *output) {
    if (strcmp(task, "fit") == 0) {
        GdkPixbuf *p = fit(input); save(p, output); g_object_unref(p);
    } else if (strcmp(task, "letterbox") == 0) {
        GdkPixbuf *p = fit(input);
        GdkPixbuf *canvas = gdk_pixbuf_new(GDK_COLORSPACE_RGB, FALSE, 8, 1280, 720);
        gdk_pixbuf_fill(canvas, 0x000000ff);
        int w = gdk_pixbuf_get_width(p), h = gdk_pixbuf_get_height(p);
        gdk_pixbuf_copy_area(p, 0, 0, w, h, canvas, (1280 - w) / 2, (720 - h) / 2);
        save(canvas, output); g_object_unref(p); g_object_unref(canvas);
    } else if (strcmp(task, "slice") == 0) {
        GdkPixbuf *p = cover_crop(input, 300); save(p, output); g_object_unref(p);
    } else {
        GdkPixbuf *p = avatar(input); save(p, output); g_object_unref(p);
    }
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: cfloor TASK OUTPUT INPUT...\n"); return 2; }
    if (strncmp(argv[1], "fit=", 4) == 0) {
        if (sscanf(argv[1] + 4, "%dx%d", &fit_w, &fit_h) != 2 || fit_w < 1 || fit_h < 1) {
            fprintf(stderr, "cfloor: bad size in %s\n", argv[1]); return 2;
        }
        argv[1] = "fit";
    }
    if (argc == 4) { run(argv[1], argv[3], argv[2]); return 0; }
    for (int i = 3; i < argc; i++) { /* a batch: OUTPUT is a directory */
        const char *name = strrchr(argv[i], '/'); name = name ? name + 1 : argv[i];
        char out[4096]; snprintf(out, sizeof out, "%s/%.*s.png", argv[2], (int)(strcspn(name, ".")), name);
        run(argv[1], argv[i], out);
    }
    return 0;
}
