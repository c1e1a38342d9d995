#!/usr/bin/env python3
"""Draws the explanatory diagrams of docs/geometry.md into docs/diagrams/*.png.

    python3 docs/diagrams/draw.py        # needs Pillow: pip install pillow

The numbers in the pictures are the worked examples of geometry.md (a 1280x800 photo in a
375x667 phone screen, and so on), computed here with the same formulas and rounding as the
Swift code. The "photo" is synthetic, so the script needs nothing but Pillow. Each picture is
drawn at twice its size, reduced, and stored with a small palette to stay well under 30 KB.
"""

import math
import os

from PIL import Image, ImageChops, ImageDraw, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
SS = 2  # supersampling factor

INK = (40, 40, 48)
GREY = (120, 120, 128)
LIGHT = (225, 225, 230)
ACCENT = (214, 88, 30)  # windows, circles and angles: what a stage cuts or turns
BLUE = (40, 110, 200)   # offsets and anchors
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)


def font(size, bold=False):
    names = ["DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf"] if bold else ["DejaVuSans.ttf", "LiberationSans-Regular.ttf"]
    for name in names:
        for folder in ["/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation", ""]:
            try:
                return ImageFont.truetype(os.path.join(folder, name) if folder else name, size * SS)
            except OSError:
                pass
    return ImageFont.load_default(size=size * SS)


def rounded(value):
    """The code's Rounding.pixels: to the nearest integer, halves away from zero."""
    return int(math.floor(abs(value) + 0.5)) * (1 if value >= 0 else -1)


class Canvas:
    """A picture drawn at SS× in 1× coordinates."""

    def __init__(self, width, height):
        self.size = (width, height)
        self.image = Image.new("RGB", (width * SS, height * SS), WHITE)
        self.draw = ImageDraw.Draw(self.image, "RGBA")

    @staticmethod
    def _p(points):
        return [(x * SS, y * SS) for x, y in points]

    def rect(self, x0, y0, x1, y1, fill=None, outline=None, width=1):
        self.draw.rectangle(self._p([(x0, y0), (x1, y1)]), fill=fill, outline=outline, width=width * SS if outline else 0)

    def line(self, points, fill=INK, width=1):
        self.draw.line(self._p(points), fill=fill, width=max(1, round(width * SS)))

    def dashed_line(self, p0, p1, fill=GREY, width=1, on=4, off=3):
        (x0, y0), (x1, y1) = p0, p1
        length = math.hypot(x1 - x0, y1 - y0)
        t = 0.0
        while t < length:
            t1 = min(length, t + on)
            self.line([(x0 + (x1 - x0) * t / length, y0 + (y1 - y0) * t / length),
                       (x0 + (x1 - x0) * t1 / length, y0 + (y1 - y0) * t1 / length)], fill, width)
            t += on + off

    def polygon(self, points, fill=None, outline=None, width=1):
        self.draw.polygon(self._p(points), fill=fill)
        if outline:
            self.line(list(points) + [points[0]], outline, width)

    def ellipse(self, cx, cy, r, fill=None, outline=None, width=1):
        self.draw.ellipse(self._p([(cx - r, cy - r), (cx + r, cy + r)]), fill=fill, outline=outline,
                          width=round(width * SS) if outline else 0)

    def dashed_circle(self, cx, cy, r, fill=WHITE, width=1.5, dash=4.0):
        """Dashes along the circle from its rightmost point, clockwise on screen (y down)."""
        steps = max(8, int(2 * math.pi * r / dash))
        for i in range(0, steps, 2):
            a0, a1 = 2 * math.pi * i / steps, 2 * math.pi * (i + 1) / steps
            self.draw.arc(self._p([(cx - r, cy - r), (cx + r, cy + r)]), math.degrees(a0), math.degrees(a1),
                          fill=fill, width=round(width * SS))

    def text(self, x, y, s, size=11, fill=INK, anchor="la", bold=False, halo=False):
        f = font(size, bold)
        if halo:
            light = sum(fill[:3]) > 500
            self.draw.text((x * SS, y * SS), s, font=f, fill=fill, anchor=anchor, stroke_width=2 * SS,
                           stroke_fill=(30, 30, 30) if light else WHITE)
        else:
            self.draw.text((x * SS, y * SS), s, font=f, fill=fill, anchor=anchor)

    def arrow(self, p0, p1, fill=INK, width=1, head=5, both=False):
        self.line([p0, p1], fill, width)
        for a, b in ([(p0, p1), (p1, p0)] if both else [(p0, p1)]):
            angle = math.atan2(b[1] - a[1], b[0] - a[0])
            tip = b
            left = (tip[0] - head * math.cos(angle - 0.45), tip[1] - head * math.sin(angle - 0.45))
            right = (tip[0] - head * math.cos(angle + 0.45), tip[1] - head * math.sin(angle + 0.45))
            self.polygon([tip, left, right], fill=fill)

    def dimension(self, p0, p1, label, fill=GREY, side="above", size=10, bold=False):
        """A measure with arrow heads both ways and its label beside the middle."""
        self.arrow(p0, p1, fill, 1, head=4, both=True)
        mx, my = (p0[0] + p1[0]) / 2, (p0[1] + p1[1]) / 2
        offsets = {"above": (0, -3, "md"), "below": (0, 3, "ma"), "left": (-4, 0, "rm"), "right": (4, 0, "lm")}
        dx, dy, anchor = offsets[side]
        self.text(mx + dx, my + dy, label, size, fill, anchor, bold=bold, halo=True)

    def paste(self, picture, x, y, mask=None):
        self.image.paste(picture, (round(x * SS), round(y * SS)), mask)

    def save(self, name):
        small = self.image.resize(self.size, Image.LANCZOS)
        small = small.quantize(colors=96, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        path = os.path.join(HERE, name)
        small.save(path, optimize=True)
        print(f"{path}: {self.size[0]}x{self.size[1]}, {os.path.getsize(path)} bytes")


def photo(width, height, portrait=False):
    """A synthetic photo at SS× of (width, height) 1× pixels: sky, sun, hills, a tree."""
    w, h = max(1, round(width * SS)), max(1, round(height * SS))
    picture = Image.new("RGB", (w, h))
    draw = ImageDraw.Draw(picture)
    bands = 12
    for i in range(bands):
        t = i / (bands - 1)
        colour = (int(120 + 90 * t), int(170 + 50 * t), int(225 + 20 * t))
        draw.rectangle([0, h * 0.62 * i / bands, w, h * 0.62 * (i + 1) / bands + 1], fill=colour)
    draw.ellipse([w * 0.66, h * 0.12, w * 0.66 + h * 0.2, h * 0.32], fill=(250, 206, 90))
    draw.polygon([(0, h * 0.66), (w * 0.3, h * 0.42), (w * 0.62, h * 0.64), (w, h * 0.5), (w, h), (0, h)], fill=(104, 150, 92))
    draw.polygon([(0, h * 0.8), (w * 0.45, h * 0.66), (w, h * 0.78), (w, h), (0, h)], fill=(72, 122, 66))
    tx = w * (0.5 if portrait else 0.38)
    draw.rectangle([tx - w * 0.012, h * 0.55, tx + w * 0.012, h * 0.78], fill=(96, 70, 48))
    draw.ellipse([tx - h * 0.1, h * 0.36, tx + h * 0.1, h * 0.62], fill=(46, 96, 50))
    return picture


def faded(picture, amount=0.6):
    return Image.blend(picture, Image.new("RGB", picture.size, WHITE), amount)


# --- fit and letterbox (seed 004) -----------------------------------------------------------

def fit_and_letterbox():
    s = 0.3  # diagram pixels per picture pixel
    W, H = 375, 667
    w, h = 1280, 800
    zmin = min(W / w, H / h)
    shown = (W, rounded(h * zmin))             # 375x234: the width limits
    top = (H - shown[1]) // 2                  # 216, floored
    bottom = H - shown[1] - top                # 217: the odd pixel goes to the bottom bar
    zoomed = (rounded(W * 2.5), rounded(h * zmin * 2.5))  # 938x586
    scroll = rounded(0.35 * (zoomed[0] - W))   # 197 of 563
    ztop = (H - zoomed[1]) // 2                # 40

    c = Canvas(840, 336)
    y0 = 67
    # 1: fit
    x1 = 20
    c.text(x1, 10, "fit 375x667", 12, bold=True)
    c.text(x1, 26, "1280×800 → 375×234", 10, GREY)
    c.rect(x1, y0, x1 + W * s, y0 + H * s, outline=LIGHT)
    c.text(x1 + W * s / 2, y0 + 6, "viewport", 9, GREY, "ma")
    py = y0 + top * s
    c.paste(photo(shown[0] * s, shown[1] * s), x1, py)
    c.rect(x1, py, x1 + W * s, py + shown[1] * s, outline=ACCENT)
    c.dimension((x1, py + shown[1] * s + 9), (x1 + W * s, py + shown[1] * s + 9), "w·z = W = 375", ACCENT, "below")
    c.dimension((x1 + W * s + 6, py), (x1 + W * s + 6, py + shown[1] * s), "h·z = 234", ACCENT, "right")
    c.text(x1 + W * s / 2, y0 + 20, "z = zmin", 10, INK, "ma")
    c.text(x1 + W * s / 2, y0 + 33, "= min(W/w, H/h)", 10, INK, "ma")
    c.text(x1 + W * s / 2, y0 + 46, "= 375/1280", 10, INK, "ma")
    c.text(x1, y0 + H * s + 8, "the output is the", 9, GREY)
    c.text(x1, y0 + H * s + 20, "picture alone", 9, GREY)

    # 2: letterbox, smaller
    x2 = 210
    c.text(x2, 10, "| letterbox 375x667", 12, bold=True)
    c.text(x2, 26, "smaller: centred, floored", 10, GREY)
    c.rect(x2, y0, x2 + W * s, y0 + H * s, fill=BLACK)
    c.paste(photo(shown[0] * s, shown[1] * s), x2, y0 + top * s)
    c.dimension((x2 + W * s + 6, y0), (x2 + W * s + 6, y0 + top * s), f"⌊(H − h)/2⌋ = {top}", BLUE, "right")
    c.dimension((x2 + W * s + 6, y0 + (top + shown[1]) * s), (x2 + W * s + 6, y0 + H * s), f"{bottom}: odd pixel", BLUE, "right")
    c.text(x2 + W * s / 2, y0 + top * s / 2, "bar", 10, WHITE, "mm")
    c.text(x2 + W * s / 2, y0 + (top + shown[1] + bottom / 2) * s, "bar", 10, WHITE, "mm")
    c.text(x2, y0 + H * s + 8, "canvas W×H, black bars", 9, GREY)

    # 3: letterbox, larger on one axis (after fit zoom=2.5)
    x3 = 450
    c.text(x3, 4, "fit 375x667 zoom=2.5", 12, bold=True)
    c.text(x3, 19, "| letterbox 375x667 offset=0.35,0.5", 12, bold=True)
    c.text(x3, 36, "938×586: larger across, so the window at the scroll offset;", 10, GREY)
    c.text(x3, 49, "smaller down, so centred there", 10, GREY)
    left = x3 + 12
    vx = left + scroll * s
    pic = photo(zoomed[0] * s, zoomed[1] * s)
    pty = y0 + ztop * s
    c.paste(faded(pic), left, pty)
    c.rect(vx, y0, vx + W * s, y0 + H * s, fill=BLACK)
    c.paste(pic.crop((round(scroll * s * SS), 0, round((scroll + W) * s * SS), pic.size[1])), vx, pty)
    c.rect(vx, y0, vx + W * s, y0 + H * s, outline=ACCENT, width=2)
    c.text(vx + W * s / 2, y0 + 3, "canvas W×H", 9, WHITE, "ma", bold=True)
    c.text(vx + W * s + 8, y0 + H * s - 16, f"bars: ⌊(667 − 586)/2⌋ = {ztop}", 9, BLUE, "ld", halo=True)
    c.text(vx + W * s + 8, y0 + H * s - 4, "on top, 41 below", 9, BLUE, "ld", halo=True)
    c.dimension((left, y0 + H * s + 10), (vx, y0 + H * s + 10), "", BLUE)
    c.text(left, y0 + H * s + 16, f"ox = 0.35·(938 − 375) = 197.05 → {scroll}", 9, BLUE, "la")
    c.dimension((left, y0 + H * s + 38), (left + zoomed[0] * s, y0 + H * s + 38), "w = 938 (the zoomed picture)", GREY, "below")
    c.save("fit-letterbox.png")


# --- slice (seed 001) ------------------------------------------------------------------------

def slice_window():
    s = 0.5
    w, h, Ws, Hs = 1280, 800, 300, 300
    zmin = max(Ws / w, Hs / h)       # 0.375: cover
    z = min(max(zmin * 1.5, zmin), max(1, zmin))  # 0.5625
    zw, zh = w * z, h * z            # 720 x 450
    ox, oy = 0.33 * (zw - Ws), 0.0   # 138.6, 0

    c = Canvas(620, 330)
    c.text(16, 10, "slice 300x300 zoom=1.5 offset=0.33,0", 12, bold=True)
    c.text(16, 26, f"1280×800 picture: zmin = max(Ws/w, Hs/h) = 0.375, zmax = max(1, zmin) = 1,", 10, GREY)
    c.text(16, 39, f"z = 1.5·zmin = {z:g}; the picture scaled by z, and the slice window on it", 10, GREY)
    x0, y0 = 76, 80
    pic = photo(zw * s, zh * s)
    c.paste(faded(pic, 0.55), x0, y0)
    c.paste(pic.crop((round(ox * s * SS), round(oy * s * SS), round((ox + Ws) * s * SS), round((oy + Hs) * s * SS))), x0 + ox * s, y0 + oy * s)
    c.rect(x0, y0, x0 + zw * s, y0 + zh * s, outline=GREY)
    c.rect(x0 + ox * s, y0 + oy * s, x0 + (ox + Ws) * s, y0 + (oy + Hs) * s, outline=ACCENT, width=2)
    c.text(x0 + (ox + Ws / 2) * s, y0 + (oy + 40) * s, "Ws×Hs = 300×300", 11, WHITE, "mm", bold=True)
    c.dimension((x0, y0 - 10), (x0 + zw * s, y0 - 10), f"w·z = {zw:g}", GREY, "above")
    c.dimension((x0 - 10, y0), (x0 - 10, y0 + zh * s), f"h·z = {zh:g}", GREY, "left")
    c.dimension((x0, y0 + Hs * s + 14), (x0 + ox * s, y0 + Hs * s + 14), f"ox = {ox:g}", BLUE, "below")
    c.dimension((x0 + (ox + Ws) * s, y0 + Hs * s + 14), (x0 + zw * s, y0 + Hs * s + 14), "", GREY)
    c.text(x0 + (ox + Ws) * s + 4, y0 + Hs * s + 32, f"w·z − Ws − ox", 10, GREY, "la")
    c.text(x0 + zw * s + 12, y0 + 6, "ox = ax·(w·z − Ws)", 10, BLUE)
    c.text(x0 + zw * s + 12, y0 + 22, f"   = 0.33·{zw - Ws:g}", 10, BLUE)
    c.text(x0 + zw * s + 12, y0 + 48, "oy = ay·(h·z − Hs)", 10, BLUE)
    c.text(x0 + zw * s + 12, y0 + 64, f"   = 0·{zh - Hs:g}", 10, BLUE)
    c.text(x0 + zw * s + 12, y0 + 96, "in image pixels:", 10, INK)
    c.text(x0 + zw * s + 12, y0 + 112, "(ox/z, oy/z, Ws/z, Hs/z)", 10, ACCENT)
    c.text(x0 + zw * s + 12, y0 + 128, f"= ({ox / z:.1f}, 0, {Ws / z:.1f}, {Hs / z:.1f})", 10, ACCENT)
    c.text(x0 + zw * s + 12, y0 + 152, "only this window", 10, INK)
    c.text(x0 + zw * s + 12, y0 + 166, "is resampled", 10, INK)
    c.save("slice.png")


# --- the avatar editor (seed 000) ----------------------------------------------------------

def editor_state(W, H, gap, w, h, zoom, offset):
    """CropViewport.clamp and friends, as in the Swift code."""
    d = min(W, H) - gap
    cx, cy = (W - d) / 2, (H - d) / 2
    zmin = d / min(w, h)
    z = min(max(zoom, zmin), max(5, zmin))
    rx = (-cx, max(-cx, w * z - cx - d))
    ry = (-cy, max(-cy, h * z - cy - d))
    o = (min(max(offset[0], rx[0]), rx[1]), min(max(offset[1], ry[0]), ry[1]))
    return dict(d=d, c=(cx, cy), zmin=zmin, z=z, o=o, rx=rx, ry=ry)


def draw_editor(c, x0, y0, s, W, H, w, h, st, full_picture=True):
    """The editor screen at (x0, y0): the picture at −o, dimmed outside the circle, the ring."""
    z, (ox, oy), d, (cx, cy) = st["z"], st["o"], st["d"], st["c"]
    px, py = x0 - ox * s, y0 - oy * s
    pic = photo(w * z * s, h * z * s)
    if full_picture:
        c.paste(faded(pic, 0.65), px, py)
    screen = Image.new("RGB", (round(W * s * SS), round(H * s * SS)), BLACK)
    screen.paste(pic, (round(-ox * s * SS), round(-oy * s * SS)))
    dim = Image.new("RGBA", screen.size, (0, 0, 0, 0))
    ImageDraw.Draw(dim).rectangle([0, 0, screen.size[0], screen.size[1]], fill=(0, 0, 0, 140))
    ImageDraw.Draw(dim).ellipse([cx * s * SS, cy * s * SS, (cx + d) * s * SS, (cy + d) * s * SS], fill=(0, 0, 0, 0))
    screen.paste(Image.new("RGB", screen.size, BLACK), (0, 0), dim)
    c.paste(screen, x0, y0)
    c.dashed_circle(x0 + (cx + d / 2) * s, y0 + (cy + d / 2) * s, d / 2 * s, WHITE, 1.2, 3.5)
    c.rect(x0, y0, x0 + W * s, y0 + H * s, outline=INK, width=1)
    return px, py


def circle_editor():
    s = 0.42
    W, H, gap, w, h = 375, 667, 20, 1280, 800
    st = editor_state(W, H, gap, w, h, 1.3 * (355 / 800), (260, 50))
    z, (ox, oy), d, (cx, cy) = st["z"], st["o"], st["d"], st["c"]

    c = Canvas(700, 370)
    c.text(16, 10, "crop-editor 375x667 gap=20 zoom=1.3 offset=260,50", 12, bold=True)
    c.text(16, 26, f"1280×800 picture; d = 375 − 20 = {d:g}, zmin = d/800 = {st['zmin']:g}, z = 1.3·zmin = {z:g}", 10, GREY)
    x0, y0 = 260, 62
    px, py = draw_editor(c, x0, y0, s, W, H, w, h, st)
    # the content offset: from the picture's corner to the viewport's corner
    c.arrow((px, py), (x0, y0), BLUE, 1.5, head=6)
    c.ellipse(px, py, 2.5, fill=BLUE)
    c.text(px - 4, py - 4, "picture (0,0)", 10, BLUE, "rd", halo=True)
    c.text(px - 4, py + 8, f"o = ({ox:g}, {oy:g}):", 10, BLUE, "ra", halo=True)
    c.text(px - 4, py + 22, "the viewport's corner", 9, BLUE, "ra", halo=True)
    c.text(px - 4, py + 34, "in zoomed picture px;", 9, BLUE, "ra", halo=True)
    c.text(px - 4, py + 46, "oy bounced back from 50", 9, BLUE, "ra", halo=True)
    # insets and the circle
    ccx, ccy = x0 + (cx + d / 2) * s, y0 + (cy + d / 2) * s
    c.dimension((x0, ccy), (x0 + cx * s, ccy), "", WHITE)
    c.text(x0 + 2, ccy + 5, f"c.x={cx:g}", 9, WHITE, "la")
    c.dimension((ccx, y0), (ccx, y0 + cy * s), f"c.y = {cy:g}", WHITE, "right")
    c.dimension((x0 + cx * s, ccy + d / 2 * s + 12), (x0 + (cx + d) * s, ccy + d / 2 * s + 12), f"d = {d:g}", WHITE)
    c.ellipse(ccx, ccy, 2.5, fill=ACCENT)
    c.text(ccx + 4, ccy - 4, "circle centre", 9, WHITE, "ld")
    c.text(x0 + W * s / 2, y0 + H * s + 6, "viewport W×H = 375×667", 10, INK, "ma", bold=True)
    # picture edge that bounced the offset: the picture's bottom is tangent to the circle
    right = px + w * z * s
    c.dashed_line((right + 4, y0 + (cy + d) * s), (right + 150, y0 + (cy + d) * s), ACCENT, 1)
    c.text(right + 14, y0 + (cy + d) * s + 4, "picture's bottom edge", 9, ACCENT)
    c.text(right + 14, y0 + (cy + d) * s + 16, "= circle's bottom", 9, ACCENT)
    # formulas at the side
    tx, ty = right + 12, y0 + 10
    for i, line in enumerate(["offsets that keep the circle covered:",
                              "−c.x ≤ ox ≤ w·z − c.x − d",
                              f"  −10 ≤ ox ≤ {st['rx'][1]:.1f}",
                              "−c.y ≤ oy ≤ h·z − c.y − d",
                              f"  −156 ≤ oy ≤ {st['ry'][1]:.1f}",
                              "",
                              "what circle-crop cuts, in image px:",
                              "centre ((ox+c.x+d/2)/z, (oy+c.y+d/2)/z)",
                              f"  = ({(ox + cx + d / 2) / z:.1f}, {(oy + cy + d / 2) / z:.1f})",
                              f"radius d/(2z) = {d / (2 * z):.1f}"]):
        c.text(tx, ty + 14 * i, line, 10, ACCENT if i >= 6 else INK)
    c.save("circle-editor.png")


def editor_rotation():
    s = 0.3
    w, h, gap = 1280, 800, 20
    before = editor_state(375, 667, gap, w, h, 1.3 * (355 / 800), (260, 50))
    after = editor_state(667, 375, gap, w, h, before["z"], before["o"])
    c = Canvas(580, 300)
    c.text(16, 10, "crop-editor 667x375 gap=20 zoom=1.3 offset=260,50 rotated-from=375x667", 12, bold=True)
    c.text(16, 26, "the state set in portrait, the device turned: circle laid out again, zoom and offset clamped again", 10, GREY)
    xa, ya = 30, 60
    draw_editor(c, xa, ya, s, 375, 667, w, h, before, full_picture=False)
    c.text(xa + 375 * s / 2, ya + 667 * s + 6, "375×667", 10, INK, "ma", bold=True)
    c.text(xa + 375 * s + 10, ya + 4, f"c = ({before['c'][0]:g}, {before['c'][1]:g})", 10, INK)
    c.text(xa + 375 * s + 10, ya + 18, f"o = ({before['o'][0]:g}, {before['o'][1]:g})", 10, BLUE)
    c.arrow((xa + 375 * s + 10, ya + 120), (xa + 375 * s + 80, ya + 120), GREY, 2, head=8)
    c.text(xa + 375 * s + 45, ya + 128, "turn", 10, GREY, "ma")
    xb, yb = 270, 60
    draw_editor(c, xb, yb, s, 667, 375, w, h, after, full_picture=False)
    c.text(xb + 667 * s / 2, yb + 375 * s + 6, "667×375", 10, INK, "ma", bold=True)
    lines = [f"d = min(667, 375) − 20 = {after['d']:g}",
             f"c = ({after['c'][0]:g}, {after['c'][1]:g})",
             f"zmin = {after['zmin']:g}: z = {after['z']:g} stays",
             f"ox: 260 → {after['o'][0]:.1f} (max w·z − c.x − d)",
             f"oy: {before['o'][1]:g} → {after['o'][1]:g} (min −c.y)"]
    for i, line in enumerate(lines):
        c.text(xb, yb + 375 * s + 26 + 14 * i, line, 10, BLUE if i >= 3 else INK)
    c.save("editor-rotation.png")


# --- rotate about an anchor (seed 003) -------------------------------------------------------

def rotate_anchor():
    s = 0.3
    w, h = 375, 667
    ax, ay = 0.5, 1.5
    pan = 120
    angle = pan / w * math.pi / 4  # 14.4°
    c = Canvas(560, 400)
    c.text(16, 10, "rotate pan=120 anchor=0.5,1.5", 12, bold=True)
    c.text(16, 26, f"angle = pan / w · 45° = 120/375 · 45° = {math.degrees(angle):g}°, clockwise about (0.5·w, 1.5·h)", 10, GREY)
    x0, y0 = 150, 60
    pivot = (x0 + ax * w * s, y0 + ay * h * s)

    def turned(x, y):
        dx, dy = x - pivot[0], y - pivot[1]
        return (pivot[0] + math.cos(angle) * dx - math.sin(angle) * dy, pivot[1] + math.sin(angle) * dx + math.cos(angle) * dy)

    corners = [(x0, y0), (x0 + w * s, y0), (x0 + w * s, y0 + h * s), (x0, y0 + h * s)]
    # the turned picture
    pic = photo(w * s, h * s, portrait=True).convert("RGBA")
    big = Image.new("RGBA", c.image.size, (0, 0, 0, 0))
    big.paste(pic, (round(x0 * SS), round(y0 * SS)))
    big = big.rotate(-math.degrees(angle), resample=Image.BICUBIC, center=(pivot[0] * SS, pivot[1] * SS))
    faded_big = big.copy()
    faded_big.putalpha(big.getchannel("A").point(lambda a: a * 45 // 100))
    c.image.paste(faded_big, (0, 0), faded_big)
    # the kept frame (canvas=same): the turned picture seen through it
    clip = Image.new("L", c.image.size, 0)
    ImageDraw.Draw(clip).rectangle([x0 * SS, y0 * SS, (x0 + w * s) * SS, (y0 + h * s) * SS], fill=255)
    inside = ImageChops.multiply(big.getchannel("A"), clip)
    c.rect(x0, y0, x0 + w * s, y0 + h * s, fill=(211, 211, 211))
    c.image.paste(big.convert("RGB"), (0, 0), inside)
    c.polygon([turned(*p) for p in corners], outline=ACCENT, width=1.5)
    c.rect(x0, y0, x0 + w * s, y0 + h * s, outline=INK, width=1)
    c.text(x0 + 4, y0 + 4, "frame kept", 9, INK, "la", halo=True)
    c.text(x0 + 4, y0 + 16, "(canvas=same)", 9, INK, "la", halo=True)
    # the lever from the anchor to the picture's centre, before and after
    centre = (x0 + w * s / 2, y0 + h * s / 2)
    c.dashed_line(pivot, centre, BLUE, 1)
    c.dashed_line(pivot, turned(*centre), ACCENT, 1)
    r = 75
    c.draw.arc(Canvas._p([(pivot[0] - r, pivot[1] - r), (pivot[0] + r, pivot[1] + r)]),
               -90, -90 + math.degrees(angle), fill=ACCENT, width=2 * SS)
    c.text(pivot[0] + 24, pivot[1] - r + 6, f"{math.degrees(angle):g}°", 10, ACCENT, "la", bold=True)
    c.ellipse(*pivot, 3.5, fill=BLUE)
    c.text(pivot[0] + 8, pivot[1] + 4, "anchor (0.5, 1.5): the pivot, below the picture", 10, BLUE, "la")
    c.dimension((x0 - 12, y0), (x0 - 12, y0 + h * s), "h", GREY, "left")
    c.dimension((x0 - 12, y0 + h * s), (x0 - 12, pivot[1]), "0.5·h", GREY, "left")
    tx = x0 + w * s + 90
    for i, line in enumerate(["positive = clockwise on screen",
                              "pivot = (ax·w, ay·h)",
                              "each output pixel p samples",
                              "R(−angle)·(p − pivot) + pivot",
                              "",
                              "the picture stays put:",
                              "frame.origin =",
                              "  position − anchor × size"]):
        c.text(tx, y0 + 40 + 14 * i, line, 10, INK)
    c.save("rotate-anchor.png")


if __name__ == "__main__":
    fit_and_letterbox()
    slice_window()
    circle_editor()
    editor_rotation()
    rotate_anchor()
