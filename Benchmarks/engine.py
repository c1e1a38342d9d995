#!/usr/bin/python3
"""The streaming engine's targets, for `make bench`: time and peak memory of ImagePipe against
libvips, in one run, on the same inputs.

The inputs are made here from Samples/images/boats.jpg, mirrored and tiled to size (no
resampling, so that the picture has a photo's detail everywhere) and written by libvips as
JPEG quality 90: the big picture of about ENGINE_BIG_MP megapixels (default 100, 16:9; 327 is
the issue's 24112x13564), a 20-megapixel one and a 5000x5000 one.

1. Every stage of the standard library (`imagepipe stages`), one row each, on the big picture:

     imagepipe run -q -e 'STAGE | save quality=90 optimize-coding=false' big.jpg -o out.jpg
     imagepipe explain -e '…the same…' big.jpg -o out.jpg     (streamed: the plan says "streamed")

   against libvips' nearest equivalent, writing JPEG Q=90 without optimize-coding and without
   metadata ([Q=90,strip]; ImagePipe keeps none by default), for instance

     grayscale                vips colourspace big.jpg out.jpg b-w
     gamma 1.2                vips gamma big.jpg out.jpg --exponent 1.2
     negate                   vips invert big.jpg out.jpg
     linear 1.3 -30           vips linear --uchar -- big.jpg out.jpg 1.3 -30
     blur 3                   vips gaussblur big.jpg out.jpg 3
     sharpen                  vips sharpen big.jpg out.jpg --sigma 1
     median 3                 vips rank big.jpg out.jpg 3 3 4
     convolve 3x3 …           vips conv big.jpg out.jpg mask.mat --precision integer
     crop, resize 50%, extend vips crop / vips resize … 0.5 / vips embed … --extend black
     flip, flop, rotate 90    vips flip … vertical / horizontal, vips rot … d90
     fit 1280x720             vipsthumbnail big.jpg -s 1280x720 -o out.jpg
     slice 1280x720           vipsthumbnail big.jpg -s 1280x720 --smartcrop centre -o out.jpg
     letterbox WxH            vips gravity big.jpg out.jpg centre W H --extend black
     composite logo.png       vips composite2 big.jpg logo.png out.jpg over --x … --y …

   (stages() below has every row's pair.) Where the CLI cannot say it in one command, a pyvips
   script does, opening the file with access='sequential' as libvips' own benchmark does:
   modulate and tint (in LCh and Lab, as sharp), threshold, normalize and trim (two sequential
   passes: measure, then apply), text, circle-crop and circle-mask (a circle made with xyz).
   `rotate angle=30` opens with random access: libvips' rotate cannot read sequentially. The
   libvips column is empty where libvips has no such operation (crop-editor, tee, branch). A
   pyvips process carries the interpreter and pyvips in its peak (46 MiB for nothing at all,
   against 33 MiB for the `vips` command).
   `load` and `save` are the row with no stage: a decode and an encode.

   ImagePipe's `save` says quality=90 (its default is 80; at 90 both tools write 4:4:4) and
   optimize-coding=false, as libvips writes. With quality given, a flip or quarter turn is
   encoded anew, not done on the DCT coefficients as `lossless=auto` would.
   Target: a peak of at most 150 MiB for every stage.

2. fit 1280x720 on the big picture against `vipsthumbnail big.jpg -s 1280x720 -o out.jpg[Q=90,strip]`:
   target ≤ 1.0× libvips' time (best of ENGINE_SMALL_ROUNDS).

3. The area stages on the 20-megapixel picture, as in 1.: `blur 3` (vips gaussblur 3), `sharpen`
   (vips sharpen --sigma 1), `median 3` (vips rank 3 3 4: the median of 9) and `convolve 3x3` with the Speed and
   Memory task's kernel (vips conv with the same integer mask). Targets for `blur 3` and
   `sharpen`: ≤ 1.0× libvips' time and a peak of at most 80 MiB; for every one, ImagePipe's CPU
   time (user + system) at least 1.6 times its wall time (two cores busy).

4. libvips' "Speed and Memory Use" task on the 5000x5000 JPEG, JPEG in and out:

     imagepipe run -q -e 'crop 100,100,4800x4800 | resize 4320x4320 kernel=linear |
         convolve 3x3 -1,-1,-1,-1,16,-1,-1,-1,-1 scale=8 | save quality=90 optimize-coding=false' in.jpg -o out.jpg

   against the same in one pyvips process with sequential access (codec_speed.py's PYVIPS_TASK,
   JPEG out, [Q=90,strip]). Targets: ≤ 1.0× libvips' time, ≤ 1.2× its peak.

Time is the best wall time of the rounds (ENGINE_ROUNDS, default 1, for the big picture;
ENGINE_SMALL_ROUNDS, default 3, for 2.-4.), the tools alternating in each round; memory the
largest resident set of any round, as GNU time reports it (`/usr/bin/time -f '%e %U %S %M'`
through /bin/sh). Every output is checked: its size against the stage's, decoded in full
(pyvips, sequentially) and compared with the input where it has the input's size (mean and
largest difference: a stage that changes pixels but left them as they were is flagged) and
with libvips' output where both have the same size (PSNR). A failed run is shown in its row;
the others go on. Big pictures get --max-pixels 0 --max-input-bytes 0 past ImagePipe's
default limits (179 megapixels, 256 MiB).

pyvips is needed for making the inputs and for the checks: `make bench` installs it into
Benchmarks/work/pylib.

usage: engine.py IMAGEPIPE        (ENGINE_BIG_MP=8 ENGINE_ROUNDS=1 ENGINE_SMALL_ROUNDS=1 for a quick try;
                                  ENGINE_STAGES=slice,fit for those rows of part 1 alone)
"""
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

from codec_speed import PYVIPS_TASK  # libvips' Speed and Memory task, the same as codec_speed.py's

HERE = os.path.dirname(os.path.abspath(__file__))
PYLIB = os.path.join(HERE, "work", "pylib")
PHOTO = os.path.join(HERE, "..", "Samples", "images", "boats.jpg")
LOGO = os.path.join(HERE, "..", "Samples", "images", "logo.png")
BIG_MP = float(os.environ.get("ENGINE_BIG_MP", 100))
ROUNDS = int(os.environ.get("ENGINE_ROUNDS", 1))
SMALL_ROUNDS = int(os.environ.get("ENGINE_SMALL_ROUNDS", 3))
ONLY = [name for name in os.environ.get("ENGINE_STAGES", "").split(",") if name]
PEAK_TARGET = 150  # MiB, every stage on the big picture
FILTER_PEAK_TARGET = 80  # MiB, blur and sharpen on 20 MP
CPU_TARGET = 1.6  # CPU time / wall time, blur and sharpen on 20 MP
CAPTION = "© 2025 ImagePipe"
FONT = "DejaVu Sans Bold 64"
SAVE = "save quality=90 optimize-coding=false"
JPEG = "[Q=90,strip]"

sys.path.insert(0, PYLIB)
try:
    import pyvips
except (ImportError, OSError):
    pyvips = None

# The start of every pyvips script; each stage's body turns `im` (the input, opened
# sequentially unless it says otherwise) into the picture written.
PY_HEAD = """import sys
sys.path.insert(0, {pylib!r})
import pyvips
source, out = {source!r}, {out!r}
im = pyvips.Image.new_from_file(source, access={access!r})
W, H = im.width, im.height
"""
PY_TAIL = "im.write_to_file(out + {jpeg!r})\n"

MODULATE = "im = (im.colourspace('lch') * [1, 1.3, 1]).copy(interpretation='lch').colourspace('srgb')\n"
# ImagePipe's explain: gray's L* kept, a* b* = 15.983, 34.673 × (1 − 4(L*/100 − ½)²)
TINT = """L = im.colourspace('lab')[0]
f = 1 - 4 * (L / 100 - 0.5) ** 2
im = L.bandjoin([f * 15.983, f * 34.673]).copy(interpretation='lab').colourspace('srgb')
"""
THRESHOLD = "im = im.colourspace('b-w') >= 128\n"
# sharp's normalise: the 1 % and 99 % percentiles of L*, then L* stretched between them.
NORMALIZE = """L = (im.colourspace('lab')[0] * 2.55).cast('uchar')
low, high = L.percent(1) / 2.55, L.percent(99) / 2.55
lab = pyvips.Image.new_from_file(source, access='sequential').colourspace('lab')
L = (lab[0] - low) * (100 / max(high - low, 1))
im = L.bandjoin(lab[1:3]).copy(interpretation='lab').colourspace('srgb')
"""
TRIM = """left, top, width, height = im.find_trim(threshold=10)
im = pyvips.Image.new_from_file(source, access='sequential')
if width > 0 and height > 0:
    im = im.crop(left, top, width, height)
"""
ROTATE = """r = im.rotate(30, background=[0, 0, 0])
im = r.crop((r.width - W) // 2, (r.height - H) // 2, W, H)
"""
TEXT = f"""mask = pyvips.Image.text({CAPTION!r}, font={FONT!r}, dpi=72)
text = (mask * 0 + 255).bandjoin([mask * 0 + 255, mask * 0 + 255, mask]).cast('uchar').copy(interpretation='srgb')
im = im.composite2(text, 'over', x=W - text.width - 32, y=H - text.height - 32).flatten()
"""
# The largest centered circle (ImagePipe: transparent outside, flattened on white for JPEG).
CIRCLE_CROP = """d = min(W, H)
im = im.crop((W - d) // 2, (H - d) // 2, d, d)
xy = pyvips.Image.xyz(d, d)
inside = ((xy[0] - (d - 1) / 2) ** 2 + (xy[1] - (d - 1) / 2) ** 2) < (d / 2) ** 2
im = im.bandjoin(inside).copy(interpretation='srgb').flatten(background=[255, 255, 255])
"""
# Outside the circle, black at alpha 0.35 over the picture.
CIRCLE_MASK = """d = min(W, H)
xy = pyvips.Image.xyz(W, H)
inside = ((xy[0] - (W - 1) / 2) ** 2 + (xy[1] - (H - 1) / 2) ** 2) < (d / 2) ** 2
im = (im * (inside / 255 * 0.35 + 0.65)).cast('uchar')
"""
ENSURE_ALPHA = "im = im.bandjoin(255)\n"


def sides(megapixels):
    """A 16:9 picture of about that many megapixels, even sides; 327 is the issue's picture."""
    if abs(megapixels - 327) < 1:
        return 24112, 13564
    scale = math.sqrt(megapixels * 1e6 / (24112 * 13564))
    return 2 * round(24112 * scale / 2), 2 * round(13564 * scale / 2)


def stages(work, w, h):
    """(ImagePipe stage text, libvips: a shell command (formatted with src and out), a pyvips
    body, or None; the output's size, or None for "at most the input's"; whether the stage
    changes the pixels of an opaque photo)."""
    mask = f"{work}/mask.mat"
    if not os.path.exists(mask):
        open(mask, "w").write("3 3 8 0\n-1 -1 -1\n-1 16 -1\n-1 -1 -1\n")
    scale = min(1280 / w, 720 / h)
    fitted = (round(w * scale), round(h * scale))
    d = min(w, h)
    box = (w, round(w * 3 / 4))  # a 4:3 canvas: bars above and below
    same = (w, h)
    return [
        ("", "vips copy {src} {out}", same, False),
        ("grayscale", "vips colourspace {src} {out} b-w", same, True),
        ("gamma 1.2", "vips gamma {src} {out} --exponent 1.2", same, True),
        ("negate", "vips invert {src} {out}", same, True),
        ("modulate saturation=1.3", MODULATE, same, True),
        ("tint #704214", TINT, same, True),
        ("threshold", THRESHOLD, same, True),
        ("linear 1.3 -30", "vips linear --uchar -- {src} {out} 1.3 -30", same, True),
        ("normalize", NORMALIZE, same, True),
        ("blur 3", "vips gaussblur {src} {out} 3", same, True),
        ("sharpen", "vips sharpen {src} {out} --sigma 1", same, True),
        ("median 3", "vips rank {src} {out} 3 3 4", same, True),
        ("convolve 3x3 -1,-1,-1,-1,16,-1,-1,-1,-1 scale=8", f"vips conv {{src}} {{out}} {mask} --precision integer", same, True),
        (f"crop 100,100,{w - 200}x{h - 200}", f"vips crop {{src}} {{out}} 100 100 {w - 200} {h - 200}", (w - 200, h - 200), True),
        ("resize 50%", "vips resize {src} {out} 0.5", (w // 2, h // 2), True),
        ("fit 1280x720", "vipsthumbnail {src} -s 1280x720 -o {out}", fitted, True),
        ("extend top=64 right=64 bottom=64 left=64", f"vips embed {{src}} {{out}} 64 64 {w + 128} {h + 128} --extend black",
         (w + 128, h + 128), True),
        ("trim", TRIM, None, False),
        ("flip", "vips flip {src} {out} vertical", same, True),
        ("flop", "vips flip {src} {out} horizontal", same, True),
        ("rotate 90", "vips rot {src} {out} d90", (h, w), True),
        ("rotate angle=30 background=black", ROTATE, same, True),
        (f"composite {LOGO}", f"vips composite2 {{src}} {LOGO} {{out}} over --x {w - 256} --y {h - 256}", same, True),
        (f'text "{CAPTION}" font="{FONT}" offset=32,32', TEXT, same, True),
        ("circle-crop", CIRCLE_CROP, (d, d), True),
        ("circle-mask", CIRCLE_MASK, same, True),
        ("crop-editor 1280x720", None, (1280, 720), True),
        ("slice 1280x720", "vipsthumbnail {src} -s 1280x720 --smartcrop centre -o {out}", (1280, 720), True),
        (f"letterbox {box[0]}x{box[1]}", f"vips gravity {{src}} {{out}} centre {box[0]} {box[1]} --extend black", box, True),
        ("flatten", "vips copy {src} {out}", same, False),
        ("remove-alpha", "vips copy {src} {out}", same, False),
        ("ensure-alpha", ENSURE_ALPHA, same, False),
        (f"tee {work}/tee.jpg quality=90 optimize-coding=false", None, same, False),
        (f"branch {{ save {work}/branch.jpg {SAVE[5:]} }} {{ flop | save {{out}} {SAVE[5:]} }}", None, same, True),
    ]


def make_jpeg(path, w, h):
    """boats.jpg and its mirror images, tiled without seams to w x h, JPEG quality 90."""
    photo = pyvips.Image.new_from_file(PHOTO)
    pair = photo.join(photo.fliphor(), "horizontal")
    tile = pair.join(pair.flipver(), "vertical").copy_memory()
    tile.replicate(-(-w // tile.width), -(-h // tile.height)).crop(0, 0, w, h).write_to_file(path + JPEG)


def measure(command, work):
    """Wall seconds, CPU seconds (user + system) and peak resident MiB of one run of
    `command`, as GNU time reports them (Linux counts a child's peak from the moment it is
    forked, so a child of this Python process would start at its size); an error message
    instead when the command fails."""
    report = f"{work}/time.txt"
    start = time.perf_counter()
    run = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", report, "/bin/sh", "-c", command],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if run.returncode != 0:
        lines = [line for line in run.stderr.splitlines() if line.strip() and not line.startswith("Command exited")]
        return f"exit {run.returncode}: {lines[-1] if lines else ''}"
    _, user, system, peak = open(report).read().split()[-4:]
    return seconds, float(user) + float(system), int(peak) / 1024


def best_of(tools, rounds, work):
    """{tool: (best wall s, CPU s of that round, largest peak MiB) or an error message}, the
    tools alternating within each round."""
    runs = {tool: [] for tool in tools}
    for _ in range(rounds):
        for tool, command in tools.items():
            if runs[tool] and isinstance(runs[tool][-1], str):
                continue
            runs[tool].append(measure(command, work))
    results = {}
    for tool, results_of in runs.items():
        failed = [r for r in results_of if isinstance(r, str)]
        if failed:
            results[tool] = failed[0]
        else:
            wall, cpu, _ = min(results_of)
            results[tool] = (wall, cpu, max(peak for _, _, peak in results_of))
    return results


def imagepipe_run(imagepipe, pipeline, source, out, limits):
    """The run; a branch names its outputs itself."""
    output = "" if pipeline.startswith("branch") else f" -o {out}"
    return f"{imagepipe} run -q{limits} -e '{pipeline}' {source}{output}"


def libvips_command(libvips, source, out, work, name):
    """The shell command for a libvips entry: a command line, or a pyvips body written to a script."""
    if libvips.startswith("vips"):
        return libvips.format(src=source, out=f"'{out}{JPEG}'")
    access = "random" if "rotate(" in libvips else "sequential"
    script = f"{work}/{name}.py"
    open(script, "w").write(PY_HEAD.format(pylib=PYLIB, source=source, out=out, access=access) + libvips
                            + PY_TAIL.format(jpeg=JPEG))
    return f"/usr/bin/python3 {script}"


def streamed(imagepipe, pipeline, source, out, limits):
    output = "" if pipeline.startswith("branch") else f" -o {out}"
    plan = subprocess.run(f"{imagepipe} explain{limits} -e '{pipeline}' {source}{output}",
                          shell=True, capture_output=True, text=True)
    if plan.returncode != 0:
        return "explain failed"
    return "yes" if "streamed" in plan.stdout else "no"


def open_sequential(path):
    return pyvips.Image.new_from_file(path, access="sequential")


def difference(a, b):
    """(mean |a − b|, largest |a − b|, PSNR dB) over every pixel, decoded sequentially (a gray
    picture against a color one compares its gray with each channel)."""
    a, b = open_sequential(a), open_sequential(b)
    a, b = (x.extract_band(0, n=3) if x.bands == 4 else x for x in (a, b))
    delta = (a.cast("float") - b.cast("float")).abs()
    stats = delta.stats()  # one pass; row 0, over all bands: min, max, sum, sum of squares, …
    _, largest, total, squares = (stats(i, 0)[0] for i in range(4))
    count = delta.width * delta.height * delta.bands
    mse = squares / count
    return total / count, largest, (float("inf") if mse == 0 else 10 * math.log10(255 ** 2 / mse))


def size_of(path):
    image = open_sequential(path)
    return image.width, image.height


def check(written, expected, changes, source, other):
    """A word on the output `written`: its size against `expected` (None: at most the input's),
    and, decoded in full, its difference from the input (when it has the input's size) and
    from libvips' output `other` (when both have the same size)."""
    if not os.path.exists(written):
        return "NO OUTPUT"
    try:
        w, h = size_of(written)
        notes = [f"{w}x{h}"]
        iw, ih = size_of(source)
        if expected is None:
            ok = w <= iw and h <= ih
        else:
            ok = abs(w - expected[0]) <= 1 and abs(h - expected[1]) <= 1
        if not ok:
            notes.append(f"WRONG SIZE (want {'at most ' + str(iw) + 'x' + str(ih) if expected is None else '%dx%d' % expected})")
        if (w, h) == (iw, ih):
            mean, largest, _ = difference(written, source)
            notes.append(f"|Δ| from input {mean:.1f} (max {largest:.0f})")
            if changes and mean < 0.8 and largest < 48:
                notes.append("UNCHANGED?")
        else:
            open_sequential(written).avg()  # decodes every row
        if other and os.path.exists(other):
            if size_of(other) == (w, h):
                notes.append(f"{difference(written, other)[2]:.1f} dB to libvips")
            else:
                notes.append("libvips %dx%d" % size_of(other))
        return ", ".join(notes)
    except pyvips.Error as error:
        return f"DOES NOT DECODE: {str(error).splitlines()[-1]}"


def figure(result, index, digits):
    return f"{result[index]:.{digits}f}" if isinstance(result, tuple) else ""


def ratio(result, base, index):
    if isinstance(result, tuple) and isinstance(base, tuple) and base[index] > 0:
        return f"{result[index] / base[index]:.2f}"
    return ""


def met(condition):
    return "met" if condition else "not met"


def big_picture(imagepipe, work, source, w, h, limits):
    """Part 1: every stage on the big picture. Returns {stage: results} for the summary."""
    print(f"## 1. Every stage on a {w}x{h} JPEG ({w * h / 1e6:.0f} MP), best of {ROUNDS}"
          + (f"; ImagePipe runs with{limits}" if limits else "") + "\n")
    print("| stage | streamed | ImagePipe s | ImagePipe peak MiB | libvips s | libvips peak MiB | time × libvips "
          f"| peak × libvips | target met (peak ≤ {PEAK_TARGET} MiB) | check |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---|")
    summary = {}
    for number, (stage, libvips, expected, changes) in enumerate(stages(work, w, h)):
        ours, theirs = f"{work}/stage{number}-imagepipe.jpg", f"{work}/stage{number}-libvips.jpg"
        pipeline = f"{stage} | {SAVE}" if stage else SAVE
        if stage.startswith("branch"):
            pipeline = stage.replace("{out}", ours)
        name = stage.split()[0] if stage else "load | save"
        if ONLY and name not in ONLY:
            continue
        print(f"  {name} …", file=sys.stderr, flush=True)
        tools = {"ImagePipe": imagepipe_run(imagepipe, pipeline, source, ours, limits)}
        if libvips:
            tools["libvips"] = libvips_command(libvips, source, theirs, work, f"stage{number}")
        results = best_of(tools, ROUNDS, work)
        mine, base = results["ImagePipe"], results.get("libvips")
        shown = stage.replace("{out}", "out.jpg").replace(f"{work}/", "").replace(os.path.dirname(LOGO) + "/", "")
        shown = shown if len(shown) < 60 else shown[:57] + "…"
        if isinstance(mine, tuple):
            target = met(mine[2] <= PEAK_TARGET)
            notes = check(ours, expected, changes, source, theirs if isinstance(base, tuple) else None)
        else:
            target, notes = "failed", f"ImagePipe {mine}"
        if isinstance(base, str):
            notes += f"; libvips {base}"
        elif isinstance(base, tuple) and not isinstance(mine, tuple):
            notes += "; libvips " + check(theirs, expected, changes, source, None)
        print(f"| `{shown or '(none: load | save)'}` | {streamed(imagepipe, pipeline, source, ours, limits)} "
              f"| {figure(mine, 0, 2)} | {figure(mine, 2, 0)} | {figure(base, 0, 2)} | {figure(base, 2, 0)} "
              f"| {ratio(mine, base, 0)} | {ratio(mine, base, 2)} | {target} | {notes} |", flush=True)
        summary[stage] = mine
        for path in (ours, theirs, f"{work}/tee.jpg", f"{work}/branch.jpg"):
            if os.path.exists(path):
                os.remove(path)
    failed = [stage.split()[0] for stage, result in summary.items() if not isinstance(result, tuple)]
    over = [(stage.split()[0] if stage else "load | save") for stage, result in summary.items()
            if isinstance(result, tuple) and result[2] > PEAK_TARGET]
    print(f"\nTarget, every stage at most {PEAK_TARGET} MiB: {met(not over and not failed)}"
          + (f" (over: {', '.join(over)})" if over else "") + (f" (failed: {', '.join(failed)})" if failed else "") + "\n")


def fit_task(imagepipe, work, source, w, h, limits):
    """Part 2: fit 1280x720 against vipsthumbnail."""
    ours, theirs = f"{work}/fit-imagepipe.jpg", f"{work}/fit-libvips.jpg"
    tools = {"ImagePipe": imagepipe_run(imagepipe, f"fit 1280x720 | {SAVE}", source, ours, limits),
             "libvips": f"vipsthumbnail {source} -s 1280x720 -o '{theirs}{JPEG}'"}
    results = best_of(tools, SMALL_ROUNDS, work)
    scale = min(1280 / w, 720 / h)
    expected = (round(w * scale), round(h * scale))
    print(f"## 2. fit 1280x720 on the {w}x{h} JPEG against vipsthumbnail, best of {SMALL_ROUNDS}\n")
    print("| tool | s | peak MiB | time × libvips | check |")
    print("|---|---:|---:|---:|---|")
    for tool, out in (("ImagePipe", ours), ("libvips", theirs)):
        result = results[tool]
        notes = check(out, expected, True, source, theirs if tool == "ImagePipe" else None) if isinstance(result, tuple) else result
        print(f"| {tool} | {figure(result, 0, 3)} | {figure(result, 2, 0)} | {ratio(result, results['libvips'], 0)} | {notes} |")
    good = all(isinstance(r, tuple) for r in results.values())
    print(f"\nTarget, time ≤ 1.0× libvips: {met(good and results['ImagePipe'][0] <= results['libvips'][0])}\n")


def filter_tasks(imagepipe, work, source):
    """Part 3: the area stages on 20 MP."""
    w, h = size_of(source)
    mask = f"{work}/sharpen.mat"
    open(mask, "w").write("3 3 8 0\n-1 -1 -1\n-1 16 -1\n-1 -1 -1\n")
    print(f"## 3. Area stages on a {w}x{h} JPEG ({w * h / 1e6:.0f} MP), best of {SMALL_ROUNDS}\n")
    print(f"| stage | streamed | ImagePipe s | ImagePipe peak MiB | ImagePipe CPU ÷ wall | libvips s | libvips peak MiB "
          f"| libvips CPU ÷ wall | time × libvips (≤ 1.0) | peak ≤ {FILTER_PEAK_TARGET} MiB | CPU ÷ wall ≥ {CPU_TARGET} | check |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---|---|---|")
    for stage, libvips in (("blur 3", "vips gaussblur {src} {out} 3"), ("sharpen", "vips sharpen {src} {out} --sigma 1"),
                           ("median 3", "vips rank {src} {out} 3 3 4"),
                           ("convolve 3x3 -1,-1,-1,-1,16,-1,-1,-1,-1 scale=8", "vips conv {src} {out} " + mask + " --precision integer")):
        ours, theirs = f"{work}/filter-imagepipe.jpg", f"{work}/filter-libvips.jpg"
        pipeline = f"{stage} | {SAVE}"
        tools = {"ImagePipe": imagepipe_run(imagepipe, pipeline, source, ours, ""),
                 "libvips": libvips.format(src=source, out=f"'{theirs}{JPEG}'")}
        results = best_of(tools, SMALL_ROUNDS, work)
        mine, base = results["ImagePipe"], results["libvips"]
        good = isinstance(mine, tuple) and isinstance(base, tuple)
        notes = check(ours, (w, h), True, source, theirs if isinstance(base, tuple) else None) if isinstance(mine, tuple) else mine
        if isinstance(base, str):
            notes += f"; libvips {base}"
        parallel = lambda r: f"{r[1] / r[0]:.2f}" if isinstance(r, tuple) else ""
        time_ratio = ratio(mine, base, 0)
        print(f"| `{stage}` | {streamed(imagepipe, pipeline, source, ours, '')} | {figure(mine, 0, 3)} | {figure(mine, 2, 0)} "
              f"| {parallel(mine)} | {figure(base, 0, 3)} | {figure(base, 2, 0)} | {parallel(base)} "
              f"| {time_ratio}: {met(good and mine[0] <= base[0])} "
              f"| {figure(mine, 2, 0)}: {met(isinstance(mine, tuple) and mine[2] <= FILTER_PEAK_TARGET)} "
              f"| {parallel(mine)}: {met(isinstance(mine, tuple) and mine[1] / mine[0] >= CPU_TARGET)} | {notes} |", flush=True)
    print()




def speed_task(imagepipe, work, source):
    """Part 4: libvips' Speed and Memory task, JPEG in and out."""
    side = size_of(source)[0]
    inner = side - 200
    ours, theirs = f"{work}/speed-imagepipe.jpg", f"{work}/speed-libvips.jpg"
    pipeline = (f"crop 100,100,{inner}x{inner} | resize {inner * 9 // 10}x{inner * 9 // 10} kernel=linear "
                f"| convolve 3x3 -1,-1,-1,-1,16,-1,-1,-1,-1 scale=8 | {SAVE}")
    script = f"{work}/speed.py"
    open(script, "w").write(PYVIPS_TASK.format(pylib=PYLIB, source=source, out=theirs, options=JPEG))
    tools = {"ImagePipe": imagepipe_run(imagepipe, pipeline, source, ours, ""), "libvips": f"/usr/bin/python3 {script}"}
    results = best_of(tools, SMALL_ROUNDS, work)
    mine, base = results["ImagePipe"], results["libvips"]
    print(f"## 4. libvips' Speed and Memory task on a {side}x{side} JPEG, JPEG out, best of {SMALL_ROUNDS}\n")
    print(f"streamed: {streamed(imagepipe, pipeline, source, ours, '')}\n")
    print("| tool | s | peak MiB | time × libvips | peak × libvips | check |")
    print("|---|---:|---:|---:|---:|---|")
    expected = (inner * 9 // 10, inner * 9 // 10)
    for tool, out in (("ImagePipe", ours), ("libvips", theirs)):
        result = results[tool]
        notes = check(out, expected, True, source, theirs if tool == "ImagePipe" else None) if isinstance(result, tuple) else result
        print(f"| {tool} | {figure(result, 0, 3)} | {figure(result, 2, 0)} | {ratio(result, base, 0)} | {ratio(result, base, 2)} | {notes} |")
    good = isinstance(mine, tuple) and isinstance(base, tuple)
    print(f"\nTarget, time ≤ 1.0× libvips: {met(good and mine[0] <= base[0])}")
    print(f"Target, peak ≤ 1.2× libvips: {met(good and mine[2] <= 1.2 * base[2])}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    if pyvips is None:
        sys.exit(f"engine.py needs pyvips: /usr/bin/python3 -m pip install --target {PYLIB} pyvips")
    pyvips.cache_set_max(0)
    imagepipe = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="imagepipe-engine-")
    try:
        w, h = sides(BIG_MP)
        big = f"{work}/big.jpg"
        print(f"making the inputs ({w}x{h}, 20 MP, 5000x5000) …", file=sys.stderr, flush=True)
        make_jpeg(big, w, h)
        limits = ""
        if w * h > 178956970 or os.path.getsize(big) > 256 << 20:
            limits = " --max-pixels 0 --max-input-bytes 0"
        middle = f"{work}/20mp.jpg"
        make_jpeg(middle, *sides(20))
        speed = f"{work}/5000.jpg"
        make_jpeg(speed, 5000, 5000)
        print(f"ImagePipe {imagepipe} against libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}, "
              f"{os.cpu_count()} cores; JPEG quality 90 out, no optimized Huffman tables, no metadata.\n")
        big_picture(imagepipe, work, big, w, h, limits)
        if ONLY:
            return
        fit_task(imagepipe, work, big, w, h, limits)
        filter_tasks(imagepipe, work, middle)
        speed_task(imagepipe, work, speed)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
