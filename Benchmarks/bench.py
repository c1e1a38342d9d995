"""`make bench`: ImagePipe against the C floor, libvips, Pillow and ImageMagick on the same work.

Every task runs for every tool, alternating the tools within each round so that the machine's
noise falls on all of them alike; the table reports median wall time and peak memory (largest
resident set of the process and its children) and the ratios to the C floor. Outputs of one
task must all have the same dimensions.

Then the quality of T1 and T3 (quality.py says how it is measured): each tool's command once
more, writing PNG, for ImagePipe in each of its --scaling modes (when `imagepipe run --help`
lists the option) and for the peers, plus Pillow LANCZOS with and without draft mode; PSNR and
SSIM against a float Lanczos3 reference of the full-size decode; and every tool's shrink of a
4000x4000 zone plate to 500x500, with its aliasing residual.

Filter tasks (F1 blur σ=3, F2 sharpen σ=1, F3 grayscale, R1 resize fit=cover 800x800 with
lanczos3, each on the full photo, JPEG q90 out) run only when named in --tasks; they time ImagePipe against libvips and ImageMagick only (the C
floor and Pillow have no such filters worth comparing: Pillow's GaussianBlur is a box
approximation), and report the ratio to libvips.

usage: bench.py IMAGEPIPE [--rounds N] [--batch-rounds N] [--tasks T1,…,F1,F2,F3,R1] [--photos NAME,…]
                [--no-quality | --quality-only]"""
import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import time

from PIL import Image, ImageDraw

import quality

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, "work")
PHOTOS = os.path.join(WORK, "photos")


def sh(command, **kwargs):
    return subprocess.run(command, shell=True, check=True, **kwargs)


def prepare_photos():
    """Real photographs from Debian's wallpaper packages: a ~18 MP photo of a painting (baseline,
    progressive and portrait versions, made losslessly with jpegtran) and 50 photos of mixed
    sizes for the batch (whole wallpapers and lossless crops of them)."""
    if os.path.exists(os.path.join(PHOTOS, "done")):
        return
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(os.path.join(WORK, "debs"))
    sh("apt-get download mate-backgrounds plasma-workspace-wallpapers", cwd=os.path.join(WORK, "debs"))
    for deb in glob.glob(os.path.join(WORK, "debs", "*.deb")):
        sh(f"dpkg -x {deb} {WORK}/root")
    os.makedirs(os.path.join(PHOTOS, "batch"))
    big = f"{WORK}/root/usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg"
    sh(f"cp {big} {PHOTOS}/progressive.jpg")
    sh(f"jpegtran -copy none {big} > {PHOTOS}/baseline.jpg")
    sh(f"jpegtran -copy none -rotate 90 -trim {big} > {PHOTOS}/portrait.jpg")
    photos = sorted(glob.glob(f"{WORK}/root/usr/share/backgrounds/mate/nature/*.jpg"))
    for name in ["BytheWater", "ColdRipple", "ColorfulCups", "DarkestHour", "EveningGlow", "FallenLeaf",
                 "Grey", "Kite", "OneStandsOut", "Path", "summer_1am"]:
        photos += glob.glob(f"{WORK}/root/usr/share/wallpapers/{name}/contents/images/2560x1600.jpg")
    made = 0
    for round_ in range(4):
        for index, photo in enumerate(photos):
            if made == 50:
                break
            target = f"{PHOTOS}/batch/{made:02d}-{os.path.basename(os.path.dirname(os.path.dirname(os.path.dirname(photo))))}-{os.path.splitext(os.path.basename(photo))[0]}.jpg"
            if round_ == 0:
                sh(f"jpegtran -copy none {photo} > {target}")
            else:
                width, height = Image.open(photo).size
                share = [0.8, 0.6, 0.45][round_ - 1]
                w, h = int(width * share) // 16 * 16, int(height * share) // 16 * 16
                sh(f"jpegtran -copy none -crop {w}x{h}+{(width - w) // 32 * 16}+{(height - h) // 32 * 16} {photo} > {target}")
            made += 1
    mask = Image.new("L", (2048, 2048), 0)
    ImageDraw.Draw(mask).ellipse((0, 0, 2047, 2047), fill=255)
    mask.resize((512, 512), Image.LANCZOS).save(f"{WORK}/mask.png")
    sh(f"vips copy {WORK}/mask.png {WORK}/mask.v")
    open(os.path.join(PHOTOS, "done"), "w").close()


HELD_OUT = os.path.join(PHOTOS, "held-out")


def prepare_held_out_photos():
    """A second set of 50 pictures, held out from tuning (DESIGN: tune on one set, report on
    another): other Debian wallpapers than the batch's (Plasma's larger ones, Lomiri's photos,
    UKUI's), 2 to 24 megapixels, a third of them progressive. Each source is taken whole and
    scaled down (Pillow's Lanczos) to 60 % and 45 % of its sides, at least 2 MP; JPEG sources
    kept whole are copied losslessly, the others encoded by cjpeg at quality 75, 85 or 92 with
    4:2:0 or 4:4:4 chroma; every third file is made progressive by jpegtran."""
    if os.path.exists(os.path.join(HELD_OUT, "done")):
        return
    prepare_photos()
    root = os.path.join(WORK, "held-out-root")
    shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(HELD_OUT, ignore_errors=True)
    os.makedirs(os.path.join(root, "debs"))
    os.makedirs(HELD_OUT)
    sh("apt-get download lomiri-wallpapers-20.04 ukui-wallpapers", cwd=os.path.join(root, "debs"))
    for deb in glob.glob(os.path.join(root, "debs", "*.deb")):
        sh(f"dpkg -x {deb} {root}")
    plasma = f"{WORK}/root/usr/share/wallpapers"
    sources = [f"{plasma}/{name}/contents/images/{size}" for name, size in [
        ("Autumn", "2560x1440.jpg"), ("Flow", "5120x2880.jpg"), ("Honeywave", "5120x2880.jpg"), ("PastelHills", "3200x2000.jpg"),
        ("SafeLanding", "5120x2880.jpg"), ("Shell", "5120x2880.jpg"), ("Volna", "5120x2880.jpg"), ("MilkyWay", "5120x2880.png"),
        ("Altai", "5120x2880.png"), ("Kay", "5120x2880.png"), ("Patak", "5120x2880.png"), ("IceCold", "5120x2880.png")]]
    sources += [f"{root}/usr/share/backgrounds/{name}" for name in [
        "Kleiber_by_Lukas_Baubkus.jpg", "Infinite-Sea_by_Aury88.jpg", "Painting-Colors_by__herobrine7gamer.jpg", "Fossa_by_Jasper_Roks.jpg",
        "rhythm.jpg", "the-mouse.jpg", "string.jpg", "firstgeneration.jpg", "2004default.jpg"]]
    made = 0
    for share in [1.0, 0.6, 0.45]:
        for source in sources:
            if made == 50:
                break
            # Plasma's files are named by their size, in a folder named after the picture.
            stem = source.split("/")[-4] if source.startswith(plasma) else os.path.splitext(os.path.basename(source))[0].split("_")[0]
            target = f"{HELD_OUT}/{made:02d}-{stem}-{int(share * 100)}.jpg"
            if share == 1.0 and source.endswith(".jpg"):
                sh(f"jpegtran -copy none {source} > {target}")
            else:
                picture = Image.open(source).convert("RGB")
                width, height = picture.size
                scale = max(share, (2_000_000 / (width * height)) ** 0.5)
                ppm = f"{HELD_OUT}/source.ppm"
                picture.resize((round(width * scale), round(height * scale)), Image.LANCZOS).save(ppm)
                sample = "1x1" if made % 4 == 0 else "2x2"
                sh(f"cjpeg -quality {[75, 85, 92][made % 3]} -sample {sample} -optimize {ppm} > {target}")
                os.remove(ppm)
            if made % 3 == 0:
                sh(f"jpegtran -copy all -progressive {target} > {target}.p && mv {target}.p {target}")
            made += 1
    open(os.path.join(HELD_OUT, "done"), "w").close()


def build_cfloor():
    binary = os.path.join(WORK, "cfloor")
    sh(f"gcc -O2 -o {binary} {HERE}/cfloor.c $(pkg-config --cflags --libs gdk-pixbuf-2.0) -lm 2>/dev/null")
    return binary


def commands(imagepipe, cfloor, task, source, out):
    """Every tool's command for one task, with ImagePipe timed in its default (good) and its
    fast scaling mode."""
    tools = peer_commands(imagepipe, cfloor, task, source, out)
    tools["imagepipe fast"] = tools["imagepipe"].replace(" run ", " run --scaling fast ", 1)
    return tools


def peer_commands(imagepipe, cfloor, task, source, out):
    """The shell command each tool runs for one task, writing `out` (a directory for the batch)."""
    tmp = out + "-tmp.v"
    pillow = f"{sys.executable} {HERE}/pillow_tasks.py"
    if task == "T1":
        return {
            "imagepipe": f"{imagepipe} run -e 'fit 1280x720 | save quality=90' {source} -o {out}.jpg",
            "C floor": f"{cfloor} fit {out}.jpg {source}",
            "libvips": f"vipsthumbnail {source} --size 1280x720 -o {out}.jpg[Q=90,strip]",
            "Pillow": f"{pillow} fit {out}.jpg {source}",
            "ImageMagick": f"convert {source} -resize 1280x720 -quality 90 -sampling-factor 4:2:0 -strip {out}.jpg",
        }
    if task == "T2":
        return {
            "imagepipe": f"{imagepipe} run -e 'fit 1280x720 | letterbox 1280x720 | save quality=90' {source} -o {out}.jpg",
            "C floor": f"{cfloor} letterbox {out}.jpg {source}",
            "libvips": f"vipsthumbnail {source} --size 1280x720 -o {tmp} && vips gravity {tmp} {out}.jpg[Q=90,strip] centre 1280 720 --extend black",
            "Pillow": f"{pillow} letterbox {out}.jpg {source}",
            "ImageMagick": f"convert {source} -resize 1280x720 -background black -gravity center -extent 1280x720 -quality 90 -sampling-factor 4:2:0 -strip {out}.jpg",
        }
    if task == "T3":
        return {
            "imagepipe": f"{imagepipe} run -e 'slice 300x300 | save quality=90' {source} -o {out}.jpg",
            "C floor": f"{cfloor} slice {out}.jpg {source}",
            "libvips": f"vipsthumbnail {source} --size 300x300 --smartcrop centre -o {out}.jpg[Q=90,strip]",
            "Pillow": f"{pillow} slice {out}.jpg {source}",
            "ImageMagick": f"convert {source} -resize 300x300^ -gravity center -extent 300x300 -quality 90 -sampling-factor 4:2:0 -strip {out}.jpg",
        }
    magick_avatar = (f"convert {{src}} -resize 512x512^ -gravity center -extent 512x512 "
                     f"\\( -size 512x512 xc:black -fill white -draw 'circle 255.5,255.5 255.5,0' \\) "
                     f"-alpha off -compose CopyOpacity -composite -define png:compression-level=6 {{dst}}")
    vips_avatar = (f"vipsthumbnail {{src}} --size 512x512 --smartcrop centre -o {{dst}}.v && "
                   f"vips bandjoin \"{{dst}}.v {WORK}/mask.v\" {{dst}}[compression=6]")
    if task == "T4":
        return {
            "imagepipe": f"{imagepipe} run -e 'circle-crop size=512' {source} -o {out}.png",
            "C floor": f"{cfloor} avatar {out}.png {source}",
            "libvips": vips_avatar.format(src=source, dst=out + ".png"),
            "Pillow": f"{pillow} avatar {out}.png {source}",
            "ImageMagick": magick_avatar.format(src=source, dst=out + ".png"),
        }
    files = " ".join(sorted(glob.glob(f"{PHOTOS}/batch/*.jpg")))
    loop = "for f in " + files + "; do n=$(basename $f .jpg); {cmd}; done"
    return {
        "imagepipe": f"{imagepipe} run -e 'circle-crop size=512' {files} --out-dir {out} -o '{{stem}}.png' -q",
        "C floor": f"{cfloor} avatar {out} {files}",
        "libvips": loop.format(cmd=vips_avatar.format(src="$f", dst=out + "/$n.png")),
        "Pillow": f"{pillow} avatar {out} {files}",
        "ImageMagick": loop.format(cmd=magick_avatar.format(src="$f", dst=out + "/$n.png")),
    }


FILTER_TASKS = {"F1": "blur σ=3", "F2": "sharpen σ=1", "F3": "grayscale", "R1": "resize fit=cover 800x800 lanczos3"}


def filter_commands(imagepipe, task, source, out):
    """The shell command of each tool for a filter task, writing `out`.jpg (quality 90).

    libvips runs its own operations with their defaults but σ: gaussblur (a mask cut at 0.2 of
    its peak, ~1.8σ, integer arithmetic), sharpen (on LabS lightness) and colourspace b-w; its
    output is a one-band JPEG for b-w. ImageMagick: -blur (separable Gaussian), -unsharp, and
    -colorspace Gray.

    ImagePipe writes with `optimize-coding=false`, as libvips' jpegsave and ImageMagick do by
    default: `save`'s own default, optimised Huffman tables, is a second pass over the whole
    picture's coefficients (held in memory) that the peers do not make, and costs ImagePipe about
    a sixth of the blur task's CPU time. F1 also times that default, as `imagepipe optimised`.

    R1 is the everyday square thumbnail: each tool's own cover-and-centre-crop with Lanczos3 and
    its own JPEG shrink-on-load: `resize 800x800 fit=cover kernel=lanczos3` (DCT reduction with
    2× headroom, then one fused cut-and-scale), `vips thumbnail … --crop centre` (shrink-on-load,
    then vips_resize's default lanczos3) and ImageMagick's `-filter Lanczos -resize 800x800^
    -extent` (full decode: convert reads the whole JPEG)."""
    jpeg = "[Q=90,strip]"
    if task == "R1":
        return {
            "imagepipe": f"{imagepipe} run -e 'resize 800x800 fit=cover kernel=lanczos3 | save quality=90 optimize-coding=false' {source} -o {out}.jpg",
            "libvips": f"vips thumbnail {source} {out}.jpg{jpeg} 800 --height 800 --crop centre",
            "ImageMagick": f"convert {source} -filter Lanczos -resize 800x800^ -gravity center -extent 800x800 -quality 90 -sampling-factor 4:2:0 -strip {out}.jpg",
        }
    if task == "F1":
        return {
            "imagepipe": f"{imagepipe} run -e 'blur 3 | save quality=90 optimize-coding=false' {source} -o {out}.jpg",
            "imagepipe optimised": f"{imagepipe} run -e 'blur 3 | save quality=90' {source} -o {out}.jpg",
            "libvips": f"vips gaussblur {source} {out}.jpg{jpeg} 3",
            "ImageMagick": f"convert {source} -blur 0x3 -quality 90 -sampling-factor 4:2:0 -strip {out}.jpg",
        }
    if task == "F2":
        return {
            "imagepipe": f"{imagepipe} run -e 'sharpen | save quality=90 optimize-coding=false' {source} -o {out}.jpg",
            "libvips": f"vips sharpen {source} {out}.jpg{jpeg} --sigma 1",
            "ImageMagick": f"convert {source} -unsharp 0x1+1+0 -quality 90 -sampling-factor 4:2:0 -strip {out}.jpg",
        }
    return {
        "imagepipe": f"{imagepipe} run -e 'grayscale | save quality=90 optimize-coding=false' {source} -o {out}.jpg",
        "libvips": f"vips colourspace {source} {out}.jpg{jpeg} b-w",
        "ImageMagick": f"convert {source} -colorspace Gray -quality 90 -strip {out}.jpg",
    }


ENCODE_TASKS = {"E1": "WebP quality 80, effort 4", "E2": "AVIF quality 50, speed 5 (effort 4), 4:2:0"}


def encode_source():
    """The picture the encoders are timed on: the baseline photo reduced to 1600 px wide by
    libvips and kept as PNG, so that decoding it costs little beside the encode."""
    path = f"{PHOTOS}/encode-source.png"
    if not os.path.exists(path):
        sh(f"vips thumbnail {PHOTOS}/baseline.jpg {path} 1600")
    return path


def encode_commands(imagepipe, task, source, out):
    """Each tool's command for an encode task, at equal settings: the same quality and effort
    (libvips' effort 4 is AV1 speed 5 in libheif, as in ImagePipe), 4:2:0 for AVIF (both tools'
    automatic choice below quality 90), no metadata."""
    if task == "E1":
        return {
            "imagepipe": f"{imagepipe} run -e 'save quality=80 effort=4' {source} -o {out}.webp",
            "libvips": f"vips webpsave {source} {out}.webp --Q 80 --effort 4 --strip",
        }
    return {
        "imagepipe": f"{imagepipe} run -e 'save quality=50 speed=5 chroma=420' {source} -o {out}.avif",
        "libvips": f"vips heifsave {source} {out}.avif --Q 50 --effort 4 --compression av1 --subsample-mode on --strip",
    }


def run_encode_tasks(imagepipe, tasks, rounds, out):
    """Times WebP and AVIF encoding against libvips (webpsave, heifsave) and prints time and file
    size, each with its ratio to libvips."""
    rows = []
    for task in [t for t in ENCODE_TASKS if t in tasks]:
        source = encode_source()
        results, size = {}, {}
        for round_ in range(rounds + 1):
            for tool, command in encode_commands(imagepipe, task, source, f"{out}/{task}-{{tool}}").items():
                run = measure(command.replace("{tool}", tool))
                if round_ > 0:
                    results.setdefault(tool, []).append(run)
                size[tool] = os.path.getsize(next(p for p in glob.glob(f"{out}/{task}-{tool}.*")))
        vips = statistics.median(r[0] for r in results["libvips"])
        for tool, runs in results.items():
            seconds = statistics.median(r[0] for r in runs)
            rows.append((task, tool, seconds, max(r[1] for r in runs), size[tool], seconds / vips, size[tool] / size["libvips"]))
        print(f"{task}: " + ", ".join(f"{tool} {statistics.median(r[0] for r in runs):.3f}s {size[tool]} bytes" for tool, runs in results.items()), flush=True)
    if rows:
        print("\n| task | tool | median s | peak MiB | bytes | × libvips time | × libvips size |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for task, tool, seconds, memory, size_, ratio, size_ratio in rows:
            print(f"| {task} {ENCODE_TASKS[task]} | {tool} | {seconds:.3f} | {memory:.0f} | {size_} | {ratio:.2f} | {size_ratio:.3f} |")


def run_filter_tasks(imagepipe, tasks, photos, rounds, out):
    """Times the filter tasks (alternating the tools within each round, one warm-up round) and
    prints their table: median wall time, peak memory, and the ratio to libvips."""
    rows = []
    for task in [t for t in FILTER_TASKS if t in tasks]:
        for photo in photos:
            source = f"{PHOTOS}/{photo}.jpg"
            results = {}
            for round_ in range(rounds + 1):
                for tool, command in filter_commands(imagepipe, task, source, f"{out}/{task}-{photo}-{{tool}}").items():
                    run = measure(command.replace("{tool}", tool.replace(" ", "")))
                    if round_ > 0:
                        results.setdefault(tool, []).append(run)
            vips = statistics.median(r[0] for r in results["libvips"])
            for tool, runs in results.items():
                seconds = statistics.median(r[0] for r in runs)
                rows.append((task, photo, tool, seconds, max(r[1] for r in runs), seconds / vips))
            print(f"{task} {photo}: " + ", ".join(f"{tool} {statistics.median(r[0] for r in runs):.3f}s" for tool, runs in results.items()), flush=True)
    if rows:
        print("\n| task | photo | tool | median s | peak MiB | × libvips |")
        print("|---|---|---|---:|---:|---:|")
        for task, photo, tool, seconds, memory, ratio in rows:
            print(f"| {task} {FILTER_TASKS[task]} | {photo} | {tool} | {seconds:.3f} | {memory:.0f} | {ratio:.2f} |")


CAPTION = "© 2025 ImagePipe"
LOGO = os.path.join(HERE, "..", "Samples", "images", "logo.png")


def compose_commands(imagepipe, source, out):
    """C1: the 256 px PNG logo at 80% opacity 32 px in from the bottom-right corner, and a white
    caption in DejaVu Sans Bold 64 px 32 px in from the bottom-left, on the 18 MP photo, saved as
    JPEG quality 90. libvips composites both in one `vips composite` (the n-ary form of
    composite2, which would need a full-size intermediate file for the second overlay) after
    `vips text` draws the caption's mask (made white RGBA with bandjoin) and `linear` scales
    the logo's alpha; ImageMagick with -composite and -annotate. Each tool's caption is drawn
    inside its timed command."""
    tmp = out + "-vips"
    vips = (f"mkdir -p {tmp} && vips linear {LOGO} {tmp}/logo.v '1 1 1 0.8' '0 0 0 0' --uchar && "
            f"vips text {tmp}/mask.v '{CAPTION}' --font 'DejaVu Sans Bold 64' --dpi 72 && "
            f"vips linear {tmp}/mask.v {tmp}/white.v 0 255 --uchar && "
            f"vips bandjoin '{tmp}/white.v {tmp}/white.v {tmp}/white.v {tmp}/mask.v' {tmp}/rgba.v && "
            f"vips copy {tmp}/rgba.v {tmp}/text.v --interpretation srgb && "
            f"W=$(vipsheader -f width {source}) && H=$(vipsheader -f height {source}) && "
            f"TH=$(vipsheader -f height {tmp}/text.v) && "
            f"vips composite '{source} {tmp}/logo.v {tmp}/text.v' {out}.jpg[Q=90,strip] '2 2' "
            f"--x \"$((W - 256 - 32)) 32\" --y \"$((H - 256 - 32)) $((H - TH - 32))\"")
    return {
        "imagepipe": (f"{imagepipe} run -e 'composite {LOGO} offset=32,32 opacity=0.8 | "
                      f"text \"{CAPTION}\" font=\"DejaVu Sans Bold 64\" gravity=bottom-left offset=32,32 | save quality=90' "
                      f"{source} -o {out}.jpg"),
        "libvips": vips,
        "ImageMagick": (f"convert {source} \\( {LOGO} -channel A -evaluate multiply 0.8 +channel \\) "
                        f"-gravity southeast -geometry +32+32 -composite -gravity southwest -font DejaVu-Sans-Bold "
                        f"-pointsize 64 -fill white -annotate +32+32 '{CAPTION}' -quality 90 -sampling-factor 4:2:0 -strip {out}.jpg"),
    }


def measure_compose(imagepipe, photo, rounds, out):
    """Times C1 for each tool, alternating them within each round (the first round warms the
    caches and is not counted); prints median wall time, peak memory and the ratios."""
    source = f"{PHOTOS}/{photo}.jpg"
    results = {}
    for round_ in range(rounds + 1):
        for tool, command in compose_commands(imagepipe, source, f"{out}/C1-{photo}-{{tool}}").items():
            run = measure(command.replace("{tool}", tool))
            if round_ > 0:
                results.setdefault(tool, []).append(run)
    dimensions = {tool: Image.open(f"{out}/C1-{photo}-{tool}.jpg").size for tool in results}
    same = len(set(dimensions.values())) == 1
    medians = {tool: statistics.median(r[0] for r in runs) for tool, runs in results.items()}
    print(f"\nC1 (watermark + caption on {photo}, {rounds} rounds){'' if same else f'; SIZES DIFFER {dimensions}'}")
    print("\n| task | photo | tool | median s | peak MiB | × libvips | × ImageMagick |")
    print("|---|---|---|---:|---:|---:|---:|")
    for tool, runs in results.items():
        print(f"| C1 | {photo} | {tool} | {medians[tool]:.3f} | {max(r[1] for r in runs):.0f} | "
              f"{medians[tool] / medians['libvips']:.2f} | {medians[tool] / medians['ImageMagick']:.2f} |")


def measure(command):
    """Wall seconds and peak resident MiB of one run of `command`."""
    start = time.perf_counter()
    process = subprocess.Popen(["/bin/sh", "-c", command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    error = process.stderr.read().decode()
    process.stderr.close()
    if status != 0:
        sys.exit(f"failed: {command}\n{error}")
    return seconds, usage.ru_maxrss / 1024


def sizes(path):
    if os.path.isdir(path):
        return sorted(Image.open(p).size for p in glob.glob(path + "/*.png"))
    return Image.open(next(p for p in glob.glob(path + ".*") if not p.endswith(".v"))).size


def imagepipe_modes(imagepipe):
    """The ImagePipe variants whose quality is measured: {name: extra `run` options}. The
    default (as timed) always; each --scaling mode when the binary has the option; else, when
    it has --no-shrink-on-load, that too (today's resampler from a full-size decode)."""
    shown = subprocess.run([imagepipe, "run", "--help"], capture_output=True, text=True)
    text = shown.stdout + shown.stderr
    modes = {"imagepipe": ""}
    if "--scaling" in text:
        modes.update({f"imagepipe {mode}": f"--scaling {mode}" for mode in ("fast", "good", "best")})
    elif "--no-shrink-on-load" in text:
        modes["imagepipe full decode"] = "--no-shrink-on-load"
    return modes


def quality_commands(imagepipe, modes, cfloor, task, source, out):
    """{tool: (command, output file)} for the quality measurement: the timed command of `task`
    (T1, T3, or ZP: the zone plate fitted into 500x500) writing PNG instead of JPEG, for every
    ImagePipe mode and peer, and Pillow LANCZOS with and without draft mode."""
    pillow = f"{sys.executable} {HERE}/pillow_tasks.py"
    box = "500x500" if task == "ZP" else "1280x720"
    files = {}

    def target(tool):
        files[tool] = f"{out}-{tool.replace(' ', '_')}.png"
        return files[tool]

    commands = {}
    for name, flags in modes.items():
        pipeline = "slice 300x300" if task == "T3" else f"fit {box}"
        commands[name] = f"{imagepipe} run {flags} -e '{pipeline}' {source} -o {target(name)} -q"
    if task == "T3":
        commands["C floor"] = f"{cfloor} slice {target('C floor')} {source}"
        commands["libvips"] = f"vipsthumbnail {source} --size 300x300 --smartcrop centre -o {target('libvips')}"
        for name, suffix in (("Pillow", ""), ("Pillow LANCZOS", "+lanczos"), ("Pillow LANCZOS draft", "+lanczos+draft")):
            commands[name] = f"{pillow} slice{suffix} {target(name)} {source}"
        commands["ImageMagick"] = (f"convert {source} -resize 300x300^ -gravity center -extent 300x300 "
                                   f"-strip {target('ImageMagick')}")
    else:
        commands["C floor"] = f"{cfloor} fit={box} {target('C floor')} {source}"
        commands["libvips"] = f"vipsthumbnail {source} --size {box} -o {target('libvips')}"
        for name, suffix in (("Pillow", ""), ("Pillow LANCZOS", "+lanczos"), ("Pillow LANCZOS draft", "+lanczos+draft")):
            commands[name] = f"{pillow} fit@{box}{suffix} {target(name)} {source}"
        commands["ImageMagick"] = f"convert {source} -resize {box} -strip {target('ImageMagick')}"
    return {tool: (command, files[tool]) for tool, command in commands.items()}


def succeeds(command):
    """Runs a quality command; a failure is reported and that tool left out, not fatal."""
    done = subprocess.run(["/bin/sh", "-c", command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        print(f"quality: failed, left out: {command}\n{done.stderr.strip()}", file=sys.stderr)
    return done.returncode == 0


def measure_quality(imagepipe, cfloor, photos, out):
    """Runs the quality commands once each and returns ({(task, photo, tool): (psnr, ssim)},
    {tool: zone-plate figures}); prints the tables."""
    modes = imagepipe_modes(imagepipe)
    scores, started = {}, time.perf_counter()
    for name in photos:
        source = f"{PHOTOS}/{name}.jpg"
        decoded = quality.decode(source)
        for task, window_for in (("T1", lambda w, h, ow, oh: None), ("T3", quality.cover_window)):
            runs = quality_commands(imagepipe, modes, cfloor, task, source, f"{out}/Q{task}-{name.replace('/', '_')}")
            runs = {tool: run for tool, run in runs.items() if succeeds(run[0])}
            results = quality.compare(source, [path for _, path in runs.values()], window_for, decoded=decoded)
            for tool, (_, path) in runs.items():
                scores[(task, name, tool)] = results[path]
        del decoded
    plate = os.path.join(WORK, "zoneplate.png")
    if not os.path.exists(plate):
        quality.zone_plate(plate)
    zone = {}
    for tool, (command, path) in quality_commands(imagepipe, modes, cfloor, "ZP", plate, f"{out}/QZP").items():
        if succeeds(command):
            zone[tool] = quality.zone_plate_aliasing(path)
    zone["float Lanczos3 reference"] = quality.zone_plate_aliasing(
        quality.reference(plate, quality.ZONE_OUT, quality.ZONE_OUT, mode="L")[:, :, 0])
    tools = list(dict.fromkeys(tool for (_, _, tool) in scores)) + ["float Lanczos3 reference"]

    def mean(task, tool, which):
        values = [scores[(task, name, tool)][which] for name in photos if (task, name, tool) in scores]
        return statistics.mean(values) if values else None

    print(f"\nQuality ({time.perf_counter() - started:.0f} s): PNG outputs against a float Lanczos3 reference of the "
          f"full-size decode, mean over {', '.join(photos)}; zone plate 4000x4000 to 500x500, aliasing residual "
          f"(lower is better; see Benchmarks/README.md)")
    print("\n| tool | T1 PSNR dB | T1 SSIM | T3 PSNR dB | T3 SSIM | zone plate aliasing dB | of it beyond 1.5x Nyquist dB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for tool in tools:
        cells = []
        for task in ("T1", "T3"):
            p, s = mean(task, tool, 0), mean(task, tool, 1)
            cells += [f"{p:.1f}" if p is not None else "—", f"{s:.4f}" if s is not None else "—"]
        z = zone.get(tool)
        cells += [f"{z['alias']:.1f}", f"{z['far']:.1f}"] if z else ["—", "—"]
        print(f"| {tool} | " + " | ".join(cells) + " |")
    print("\n| task | photo | tool | PSNR dB | SSIM |")
    print("|---|---|---|---:|---:|")
    for (task, name, tool), (p, s) in scores.items():
        print(f"| {task} | {name} | {tool} | {p:.2f} | {s:.5f} |")
    return scores, zone


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("imagepipe")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--batch-rounds", type=int, default=3)
    parser.add_argument("--tasks", default="T1,T2,T3,T4,T5,C1,E1,E2",
                        help="which tasks, comma-separated (C1: composite and text; E1, E2: encoders)")
    parser.add_argument("--photos", default="baseline,progressive,portrait",
                        help="photos for T1-T4 and the quality measurement, comma-separated: names in "
                             "work/photos without .jpg (batch/NAME for one of the batch)")
    parser.add_argument("--no-quality", action="store_true", help="time only")
    parser.add_argument("--quality-only", action="store_true", help="measure quality only, no timing")
    options = parser.parse_args()
    prepare_photos()
    cfloor = build_cfloor()
    imagepipe = os.path.abspath(options.imagepipe)
    out = os.path.join(WORK, "out")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    rows = []
    tasks = options.tasks.split(",")
    photos = options.photos.split(",")
    jobs = [(task, name) for task in ["T1", "T2", "T3", "T4"] if task in tasks for name in photos]
    jobs += [("T5", "batch")] if "T5" in tasks else []
    if options.quality_only:
        jobs = []
    if not options.quality_only:
        run_filter_tasks(imagepipe, tasks, photos, options.rounds, out)
        if "C1" in tasks:
            measure_compose(imagepipe, photos[0], options.rounds, out)
        run_encode_tasks(imagepipe, tasks, options.rounds, out)
    if not jobs and not any(t in tasks for t in ("T1", "T3")):
        return  # only filter tasks: the scaling quality measurement does not concern them
    for task, photo in jobs:
        source = f"{PHOTOS}/{photo}.jpg"
        name = photo.replace("/", "_")
        rounds = options.batch_rounds if task == "T5" else options.rounds
        results = {}
        for round_ in range(rounds + 1):  # the first round warms the caches and is not counted
            for tool, command in commands(imagepipe, cfloor, task, source, f"{out}/{task}-{name}-{{tool}}").items():
                target = f"{out}/{task}-{name}-{tool.replace(' ', '')}"
                if task == "T5":
                    shutil.rmtree(target, ignore_errors=True)
                    os.makedirs(target)
                run = measure(command.replace(f"{out}/{task}-{name}-{{tool}}", target))
                if round_ > 0:
                    results.setdefault(tool, []).append(run)
        dimensions = {tool: sizes(f"{out}/{task}-{name}-{tool.replace(' ', '')}") for tool in results}
        same = len({str(d) for d in dimensions.values()}) == 1
        floor = statistics.median(r[0] for r in results["C floor"])
        for tool, runs in results.items():
            seconds = statistics.median(r[0] for r in runs)
            memory = max(r[1] for r in runs)
            rows.append((task, photo, tool, seconds, memory, seconds / floor, same or dimensions[tool],
                         seconds / statistics.median(r[0] for r in results["libvips"]),
                         seconds / statistics.median(r[0] for r in results["Pillow"])))
        ip = statistics.median(r[0] for r in results["imagepipe"])
        print(f"{task} {name}: " + ", ".join(f"{tool} {statistics.median(r[0] for r in runs):.3f}s" for tool, runs in results.items())
              + f"; imagepipe/C floor {ip / floor:.2f}" + ("" if same else f"; SIZES DIFFER {dimensions}"), flush=True)

    scores = {} if options.no_quality else measure_quality(imagepipe, cfloor, photos, out)[0]
    if not rows:
        return
    print("\n| task | photo | tool | median s | peak MiB | × C floor | × libvips | × Pillow | sizes | PSNR dB | SSIM |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|")
    for task, photo, tool, seconds, memory, ratio, same, vips, pil in rows:
        p, s = scores.get((task, photo, tool), (None, None))
        print(f"| {task} | {photo} | {tool} | {seconds:.3f} | {memory:.0f} | {ratio:.2f} | {vips:.2f} | {pil:.2f} | {'same' if same is True else same} | "
              + (f"{p:.1f} | {s:.4f} |" if p is not None else "| |"))
    start = time.perf_counter()
    for _ in range(20):
        subprocess.run([imagepipe, "--version"], stdout=subprocess.DEVNULL)
    print(f"\nimagepipe --version: {(time.perf_counter() - start) / 20 * 1000:.1f} ms (mean of 20)")


if __name__ == "__main__":
    main()
