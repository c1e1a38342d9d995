"""Output quality for `make bench`: PSNR and SSIM against a float Lanczos3 reference, and a
zone-plate aliasing figure. Imported by bench.py; also runnable on its own (see main() below).

The reference (`reference`)
  * The source is decoded at full size by Pillow (libjpeg-turbo, its defaults: integer slow
    IDCT, fancy chroma upsampling), turned upright with ImageOps.exif_transpose, converted to RGB
    and to float64 in sRGB code values 0..255. No linear light: the tools all resample sRGB
    values, and so does the reference.
  * It is resampled separably (rows, then columns; the order does not matter in float) with
    Lanczos3, L(x) = sinc(x)·sinc(x/3) for |x| < 3, else 0.
  * Pixel centres sit at +0.5: input pixel j covers [j, j+1) and has its centre at j+0.5. Along
    an axis, a window [x0, x0+len) of the input (the whole axis unless a window is given) maps
    onto n output pixels: scale = len/n input pixels per output pixel, and output pixel i has its
    centre at c_i = x0 + (i+0.5)·scale in input coordinates.
  * Shrinking (scale > 1) stretches the kernel: the weight of input pixel j is
    L((j+0.5 - c_i)/scale), support 3·scale input pixels either side of c_i. Enlarging uses
    L(j+0.5 - c_i), support 3.
  * Taps outside the image (j < 0 or j >= the input size) are dropped and the remaining weights
    renormalised to sum to 1 (Pillow's convention). Taps outside the window but inside the image
    are real pixels and are used, as they are when a tool scales the whole picture and then crops.
  * The two passes are sparse matrix products per axis (each output row/column has about
    6·scale+2 taps); only the final result is clipped to [0, 255], and it is not rounded: the
    reference is the float result, so a perfect 8-bit tool still shows rounding error
    (uniform error of ±0.5: PSNR 58.9 dB at best).
  * `window` = (x, y, w, h) in fractional source pixels: the region of the (upright) source that
    the output shows. T1 (fit) shows the whole picture (window None: each axis scaled on its own
    to the output's size, as the tools do). T3 (cover 300x300 then centre crop) shows
    `cover_window(W, H, 300, 300)`: scale s = max(300/W, 300/H), the window is 300/s by 300/s
    centred, x = (W - 300/s)/2, y = (H - 300/s)/2, not rounded to whole pixels.

PSNR (`psnr`): over all pixels and the three channels, MSE = mean((out - ref)^2), peak 255:
  10·log10(255^2 / MSE). SSIM (`ssim`): Wang, Bovik, Sheikh & Simoncelli 2004, on each of R, G,
  B separately and then averaged over the three channels; Gaussian window 11x11, sigma 1.5
  (normalised to sum 1), K1 = 0.01, K2 = 0.03, L = 255, no downsampling, the mean of the SSIM
  map over the positions where the whole window fits ("valid", as in the authors' ssim_index.m).
  Both take the 8-bit output against the float reference.

The zone plate (`zone_plate`, `zone_plate_aliasing`)
  * 4000x4000, 8-bit grey, I(x, y) = round(128 + 127·cos(pi·(x^2 + y^2)/4000)) with x, y the
    pixel centre relative to the image centre (x = i + 0.5 - 2000). Its local frequency is
    (x/4000, y/4000) cycles per pixel: 0 at the centre, the source's Nyquist (0.5) on each axis at
    the edges, (0.5, 0.5) at the corners, so the source itself is free of aliasing. The mean is
    128, not 127.5, so that the flat grey of an ideal result is an 8-bit value.
  * Each tool shrinks it to 500x500 (1/8). The output's Nyquist is 1/16 cycle per source pixel,
    reached at |x| = 250 source pixels, i.e. 31.25 output pixels from the centre. The ideal
    band-limited result (the zone plate with every frequency above the output's Nyquist removed)
    is the ring pattern inside the central square where |u_x|, |u_y| < 1, with
    u = (output pixel centre - 250)/31.25 the local frequency in units of the output's Nyquist,
    and flat grey 128 outside it: there each local frequency is one that 500 pixels cannot hold,
    and whatever pattern a tool leaves there is aliasing (a frequency folded back below Nyquist).
  * Aliasing residual = 10·log10(P_alias / P_signal), P_alias = mean over the output pixels with
    max(|u_x|, |u_y|) > 1 of (out - 128)^2, P_signal = 127^2/2, the mean power of the ring
    pattern the ideal result keeps below Nyquist. Lower is better; 0 dB is no filtering at all
    (point sampling). Passband differences (blur or sharpening below Nyquist) do not count: that
    is not aliasing. Lanczos3 itself is not a brick wall (it passes half the amplitude at the
    Nyquist frequency and some up to about 4/3 of it), so the float reference scores -30.7 dB.
  * `far` is the same over max(|u_x|, |u_y|) > 1.5 only: frequencies that fold back below half
    the output's Nyquist, the coarse moire rings, past every good filter's transition band.

usage:
  quality.py fit SOURCE OUTPUT...          T1-style: PSNR/SSIM of each OUTPUT (whole picture)
  quality.py cover SOURCE OUTPUT...        T3-style: the centred cover window for each OUTPUT's size
  quality.py window X,Y,W,H SOURCE OUTPUT...
  quality.py zoneplate FILE                write the 4000x4000 zone plate
  quality.py aliasing OUTPUT...            the residual of 500x500 shrinks of that zone plate
  quality.py selftest                      the reference against Pillow's float LANCZOS, SSIM checks
"""
import sys

import numpy as np
from PIL import Image, ImageOps

ZONE_SIZE = 4000
ZONE_OUT = 500
ZONE_MEAN = 128
ZONE_AMPLITUDE = 127


def lanczos3(x):
    x = np.asarray(x, dtype=np.float64)
    return np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), 0.0)


def axis_taps(in_size, out_size, start=0.0, length=None):
    """The Lanczos3 weights of one axis as a band: (index, weight), both out_size x taps, where
    output pixel i is sum_k weight[i, k] * input[index[i, k]]. Taps outside the image have weight
    0 (their index is clamped only to keep it valid) and each row sums to 1."""
    length = in_size if length is None else length
    scale = length / out_size
    stretch = max(scale, 1.0)
    support = 3.0 * stretch
    centres = start + (np.arange(out_size) + 0.5) * scale
    first = np.floor(centres - support - 0.5).astype(np.int64)
    taps = int(np.ceil(2 * support)) + 2
    index = first[:, None] + np.arange(taps)[None, :]
    weight = lanczos3((index + 0.5 - centres[:, None]) / stretch)
    weight[(index < 0) | (index >= in_size)] = 0.0
    total = weight.sum(axis=1, keepdims=True)
    if np.any(total == 0):
        raise ValueError("an output pixel has no input pixel under its kernel")
    return np.clip(index, 0, in_size - 1), weight / total


def weight_matrix(in_size, out_size, start=0.0, length=None):
    """The same weights as a dense out_size x in_size matrix (for inspection and tests)."""
    index, weight = axis_taps(in_size, out_size, start, length)
    matrix = np.zeros((out_size, in_size))
    np.add.at(matrix, (np.repeat(np.arange(out_size), index.shape[1]), index.ravel()), weight.ravel())
    return matrix


def _sparse(index, weight, in_size):
    try:
        from scipy.sparse import csr_matrix
    except ImportError:
        return None
    rows = np.repeat(np.arange(index.shape[0]), index.shape[1])
    return csr_matrix((weight.ravel(), (rows, index.ravel())), shape=(index.shape[0], in_size))


def _apply(array, index, weight, axis):
    """Resample `array` (float64, H x W x C) along axis 0 or 1 with the band (index, weight)."""
    moved = np.moveaxis(array, axis, 0)
    shape = moved.shape
    matrix = _sparse(index, weight, shape[0])
    if matrix is not None:
        out = matrix @ np.ascontiguousarray(moved).reshape(shape[0], -1)
    else:
        flat = moved.reshape(shape[0], -1)
        out = np.zeros((index.shape[0], flat.shape[1]))
        for k in range(index.shape[1]):
            out += flat[index[:, k]] * weight[:, k, None]
    return np.moveaxis(out.reshape((index.shape[0],) + shape[1:]), 0, axis)


def resample(array, out_w, out_h, window=None):
    """Lanczos3 of a float H x W x C array to out_h x out_w x C; window (x, y, w, h) or None."""
    height, width = array.shape[:2]
    x, y, w, h = window if window is not None else (0.0, 0.0, width, height)
    out = _apply(array, *axis_taps(height, out_h, y, h), axis=0)
    return _apply(out, *axis_taps(width, out_w, x, w), axis=1)


def decode(path, mode="RGB"):
    """The full-size, upright decode as float64 H x W x C (C = 3 for RGB, 1 for L)."""
    with Image.open(path) as image:
        image = ImageOps.exif_transpose(image).convert(mode)
        array = np.asarray(image, dtype=np.float64)
    return array if array.ndim == 3 else array[:, :, None]


def reference(path, out_w, out_h, window=None, mode="RGB", decoded=None):
    """The float Lanczos3 reference of `path` at out_w x out_h (float64 out_h x out_w x C, clipped
    to [0, 255], not rounded). `decoded`: the array decode(path, mode) gave, to reuse it."""
    source = decode(path, mode) if decoded is None else decoded
    return np.clip(resample(source, out_w, out_h, window), 0.0, 255.0)


def cover_window(width, height, out_w, out_h):
    """The region of a width x height source that a cover scale to out_w x out_h followed by a
    centred crop shows: (x, y, w, h) in fractional source pixels."""
    scale = max(out_w / width, out_h / height)
    w, h = out_w / scale, out_h / scale
    return ((width - w) / 2, (height - h) / 2, w, h)


def load_output(path, mode="RGB"):
    with Image.open(path) as image:
        if image.mode in ("I;16", "I;16B", "I"):  # a 16-bit PNG: to 8-bit code values as a float
            array = np.asarray(image, dtype=np.float64) / 257.0
            if mode == "RGB":
                array = np.repeat(array[:, :, None], 3, axis=2)
        else:
            array = np.asarray(image.convert(mode), dtype=np.float64)
    return array if array.ndim == 3 else array[:, :, None]


def psnr(a, b):
    """PSNR in dB of a against b over all pixels and channels, peak 255 (inf when equal)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.shape != b.shape:
        raise ValueError(f"sizes differ: {a.shape} and {b.shape}")
    mse = np.mean((a - b) ** 2)
    return float("inf") if mse == 0 else float(10 * np.log10(255.0 ** 2 / mse))


def _gaussian(size=11, sigma=1.5):
    x = np.arange(size) - (size - 1) / 2
    g = np.exp(-x ** 2 / (2 * sigma ** 2))
    return g / g.sum()


def _filter_valid(plane, g):
    """Separable correlation of a 2-D plane with g x g, only where the window fits."""
    n = len(g)
    try:
        from scipy.ndimage import correlate1d
    except ImportError:
        correlate1d = None
    if correlate1d is not None:
        half = (n - 1) // 2
        out = correlate1d(correlate1d(plane, g, axis=1, mode="constant"), g, axis=0, mode="constant")
        return out[half:plane.shape[0] - half, half:plane.shape[1] - half]
    rows = sum(g[k] * plane[:, k:plane.shape[1] - n + 1 + k] for k in range(n))
    return sum(g[k] * rows[k:rows.shape[0] - n + 1 + k, :] for k in range(n))


def ssim(a, b, peak=255.0):
    """Mean SSIM (Wang et al. 2004: 11x11 Gaussian, sigma 1.5, K1 0.01, K2 0.03), computed on
    each channel and averaged over the channels."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.shape != b.shape:
        raise ValueError(f"sizes differ: {a.shape} and {b.shape}")
    if a.ndim == 2:
        a, b = a[:, :, None], b[:, :, None]
    g = _gaussian()
    c1, c2 = (0.01 * peak) ** 2, (0.03 * peak) ** 2
    values = []
    for channel in range(a.shape[2]):
        x, y = a[:, :, channel], b[:, :, channel]
        mx, my = _filter_valid(x, g), _filter_valid(y, g)
        sxx = _filter_valid(x * x, g) - mx * mx
        syy = _filter_valid(y * y, g) - my * my
        sxy = _filter_valid(x * y, g) - mx * my
        index = ((2 * mx * my + c1) * (2 * sxy + c2)) / ((mx * mx + my * my + c1) * (sxx + syy + c2))
        values.append(index.mean())
    return float(np.mean(values))


def zone_plate_array(size=ZONE_SIZE):
    x = np.arange(size) + 0.5 - size / 2
    phase = np.pi * (x[:, None] ** 2 + x[None, :] ** 2) / size
    return np.round(ZONE_MEAN + ZONE_AMPLITUDE * np.cos(phase)).astype(np.uint8)


def zone_plate(path, size=ZONE_SIZE):
    """Write the zone plate as an 8-bit grey PNG."""
    Image.fromarray(zone_plate_array(size), "L").save(path, compress_level=1)
    return path


def zone_frequency(out_size=ZONE_OUT, in_size=ZONE_SIZE):
    """max(|u_x|, |u_y|) for every output pixel: the zone plate's local frequency there, in units
    of the output's Nyquist frequency."""
    nyquist_at = in_size * (out_size / in_size) ** 2 / 2  # output pixels from the centre: 31.25
    u = np.abs(np.arange(out_size) + 0.5 - out_size / 2) / nyquist_at
    return np.maximum(u[:, None], u[None, :])


def zone_plate_aliasing(output):
    """{'alias': dB, 'far': dB} for a 500x500 shrink of the zone plate (a path or an array)."""
    out = load_output(output, "L")[:, :, 0] if isinstance(output, str) else np.asarray(output, np.float64)
    if out.ndim == 3:
        out = out[:, :, 0]
    if out.shape != (ZONE_OUT, ZONE_OUT):
        raise ValueError(f"the zone plate's shrink is {out.shape[1]}x{out.shape[0]}, not {ZONE_OUT}x{ZONE_OUT}")
    u = zone_frequency()
    signal = ZONE_AMPLITUDE ** 2 / 2
    figures = {}
    for name, above in (("alias", 1.0), ("far", 1.5)):
        power = np.mean((out[u > above] - ZONE_MEAN) ** 2)
        figures[name] = float(10 * np.log10(max(power, 1e-12) / signal))
    return figures


def compare(source, outputs, window_for, decoded=None):
    """PSNR and SSIM of each output file; window_for(width, height, out_w, out_h) gives the
    window (or None for the whole picture). Returns {output: (psnr, ssim)}."""
    decoded = decode(source) if decoded is None else decoded
    height, width = decoded.shape[:2]
    references, results = {}, {}
    for output in outputs:
        out = load_output(output)
        size = (out.shape[1], out.shape[0])
        if size not in references:
            references[size] = reference(source, *size, window_for(width, height, *size), decoded=decoded)
        results[output] = (psnr(out, references[size]), ssim(out, references[size]))
    return results


def selftest():
    """Pillow's LANCZOS on a float ("F") image uses the same kernel, support, pixel centres,
    renormalised edge taps and fractional boxes, in float32: the reference must agree with it to
    float32 precision, shrinking and enlarging, whole and windowed."""
    rng = np.random.default_rng(1)
    plane = rng.uniform(0, 255, (97, 131)).astype(np.float32)
    cases = [(40, 30, None), (300, 200, None), (23, 23, (10.25, 3.5, 80.3, 70.1)),
             (200, 90, (1.5, 0.25, 100, 60.5)), (17, 31, (0.3, 0.7, 130.2, 96.0))]
    for out_w, out_h, window in cases:
        box = None if window is None else (window[0], window[1], window[0] + window[2], window[1] + window[3])
        pillow = np.asarray(Image.fromarray(plane, "F").resize((out_w, out_h), Image.LANCZOS, box=box), np.float64)
        ours = resample(plane.astype(np.float64)[:, :, None], out_w, out_h, window)[:, :, 0]
        difference = np.abs(pillow - ours).max()
        print(f"{out_w}x{out_h} window {window}: largest difference from Pillow's float LANCZOS {difference:.1e}")
        assert difference < 1e-3
    matrix = weight_matrix(131, 40)
    assert np.allclose(matrix.sum(axis=1), 1) and np.allclose(matrix @ np.ones(131), 1)
    a = rng.uniform(0, 255, (64, 80, 3))
    b = np.clip(a + rng.normal(0, 10, a.shape), 0, 255)
    assert ssim(a, a) == 1.0 and 0 < ssim(a, b) < 1 and psnr(a, a) == float("inf")
    rounded = np.round(a)
    print(f"PSNR of rounding alone {psnr(rounded, a):.2f} dB (58.9 expected)")
    print("selftest passed")


def main(argv):
    if argv == ["selftest"]:
        selftest()
        return
    if len(argv) < 2 or argv[0] not in ("fit", "cover", "window", "zoneplate", "aliasing"):
        sys.exit(__doc__.split("usage:")[1])
    what, rest = argv[0], argv[1:]
    if what == "zoneplate":
        zone_plate(rest[0])
        return
    if what == "aliasing":
        for path in rest:
            figures = zone_plate_aliasing(path)
            print(f"{path}: aliasing {figures['alias']:.1f} dB, beyond 1.5x Nyquist {figures['far']:.1f} dB")
        return
    if what == "window":
        box = tuple(float(v) for v in rest[0].split(","))
        window_for, rest = (lambda w, h, ow, oh: box), rest[1:]
    elif what == "cover":
        window_for = cover_window
    else:
        window_for = lambda w, h, ow, oh: None  # noqa: E731
    source, outputs = rest[0], rest[1:]
    for output, (p, s) in compare(source, outputs, window_for).items():
        print(f"{output}: PSNR {p:.2f} dB, SSIM {s:.5f}")


if __name__ == "__main__":
    main(sys.argv[1:])
