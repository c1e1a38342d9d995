import Foundation
import Testing
import ImagePipe
import TestSupport

/// Animated GIF, WebP and AVIF through the pipeline: frames composed as viewers show them, every frame
/// through the stages, delays and loop count kept, the limits, and damage.
@Suite struct AnimationTests {
    static let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples/images/boats.jpg").path

    /// A GIF written byte by byte with every disposal, a transparent index, offsets, a local
    /// color table and a frame reaching past the canvas, and each frame as a browser composes it
    /// (`expected-N.png`), worked out in Python independently of the decoder. (Pillow 9.4 fills a
    /// frame disposed "to background" with the background color where browsers and libvips
    /// clear it; libvips 8.14 renders the file exactly as expected here.)
    static func makeDisposals(in directory: TemporaryDirectory) throws {
        try ColorReference.python(#"""
import io, struct, sys
from PIL import Image, ImageSequence
d = '\#(directory.path)'
W, H = 40, 30
def lzw(img):
    # The LZW data (code size byte to block terminator) of a one-frame GIF Pillow writes.
    buf = io.BytesIO(); img.save(buf, 'GIF', optimize=False); b = buf.getvalue()
    i = 13 + (3 << ((b[10] & 7) + 1) if b[10] & 0x80 else 13)
    while b[i] == 0x21:
        i += 2
        while b[i]: i += 1 + b[i]
        i += 1
    assert b[i] == 0x2C
    i += 10
    return b[i:-1]
def table(colors):
    out = b''.join(bytes(c) for c in colors)
    return out + b'\0' * (3 * 16 - len(out))
def frame(x, y, w, h, pixels, disposal, transparent=None, delay=10, local=None):
    img = Image.new('P', (w, h)); img.putdata(pixels)
    img.putpalette([v for c in (local or glob) for v in c] + [0] * (768 - 3 * len(local or glob)))
    gce = b'\x21\xf9\x04' + bytes([(disposal << 2) | (1 if transparent is not None else 0)]) + struct.pack('<H', delay) + bytes([transparent or 0]) + b'\0'
    packed = 0x83 if local else 0
    return gce + b'\x2c' + struct.pack('<HHHH', x, y, w, h) + bytes([packed]) + (table(local) if local else b'') + lzw(img)
glob = [(0, 0, 0), (255, 0, 0), (0, 0, 255), (0, 255, 0), (255, 255, 255)] + [(9, 9, 9)] * 11
body = b''
body += frame(0, 0, W, H, [1] * (W * H), 1)                                        # red canvas, kept
body += frame(5, 5, 10, 10, [0 if (i % 10) in (4, 5) else 2 for i in range(100)], 2, transparent=0)  # blue, a clear stripe; cleared after
body += frame(20, 10, 10, 10, [3] * 100, 3)                                        # green; put back after
body += frame(0, 0, 8, 8, [1] * 64, 1, local=[(0, 0, 0), (255, 255, 0)] + [(0, 0, 0)] * 14)  # yellow from a local table
body += frame(38, 28, 4, 4, [4] * 16, 1)                                           # white, half outside the canvas
head = b'GIF89a' + struct.pack('<HH', W, H) + bytes([0xF3, 0, 0]) + table(glob)
loop = b'\x21\xff\x0bNETSCAPE2.0\x03\x01\x02\x00\x00'  # 2 repeats: 3 showings
open(d + '/dispose.gif', 'wb').write(head + loop + body + b'\x3b')
# What a browser shows, composed here independently: RGBA frames.
canvas = [(0, 0, 0, 0)] * (W * H)
expected = []
def draw(x, y, w, h, color_of):
    for j in range(h):
        for i in range(w):
            if x + i < W and y + j < H:
                c = color_of(i, j)
                if c is not None: canvas[(y + j) * W + x + i] = c
draw(0, 0, W, H, lambda i, j: (255, 0, 0, 255)); expected.append(list(canvas))
draw(5, 5, 10, 10, lambda i, j: None if i in (4, 5) else (0, 0, 255, 255)); expected.append(list(canvas))
draw(5, 5, 10, 10, lambda i, j: (0, 0, 0, 0))
saved = list(canvas)
draw(20, 10, 10, 10, lambda i, j: (0, 255, 0, 255)); expected.append(list(canvas))
canvas = saved
draw(0, 0, 8, 8, lambda i, j: (255, 255, 0, 255)); expected.append(list(canvas))
draw(38, 28, 4, 4, lambda i, j: (255, 255, 255, 255)); expected.append(list(canvas))
for n, e in enumerate(expected):
    im = Image.new('RGBA', (W, H)); im.putdata(e); im.save(d + '/expected-%d.png' % n)
"""#)
    }

    /// 16 frames of a window panning across a real photo, written by Pillow.
    static func makePan(in directory: TemporaryDirectory, frames: Int = 16, format: String = "gif") throws {
        try ColorReference.python(#"""
            from PIL import Image
            src = Image.open('\#(Self.photo)').convert('RGB')
            frames = []
            for i in range(\#(frames)):
                x = 40 * i
                frames.append(src.crop((x, 100, x + 480, 400)).resize((160, 100)))
            frames[0].save('\#(directory.path)/pan.\#(format)', save_all=True, append_images=frames[1:],
                           duration=[60 + 10 * (i % 3) for i in range(\#(frames))], loop=0)
            """#)
    }

    /// Each frame of an animation, its delay and the loop count, as Pillow reads them back.
    static func pillowFrames(_ path: String) throws -> (delays: [Int], loop: Int?, frames: [[UInt8]], size: Size) {
        let json = path + ".json"
        try ColorReference.python("""
            import json
            from PIL import Image, ImageSequence
            im = Image.open('\(path)')
            delays, frames = [], []
            for frame in ImageSequence.Iterator(im):
                # Pillow reads a WebP frame's duration as it decodes the frame.
                frames.append(list(frame.convert('RGBA').tobytes()))
                delays.append(round(frame.info.get('duration', 0)))
            json.dump({'delays': delays, 'loop': im.info.get('loop'), 'frames': frames, 'size': im.size}, open('\(json)', 'w'))
            """)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as! [String: Any]
        let size = object["size"] as! [Int]
        return (object["delays"] as! [Int], object["loop"] as? Int, (object["frames"] as! [[Int]]).map { $0.map(UInt8.init) }, Size(size[0], size[1]))
    }

    /// A picture's pixels as RGBA bytes, row by row, as `pillowFrames` gives a frame.
    static func rgba(_ image: Image) -> [UInt8] {
        (0..<image.height).flatMap { y in (0..<image.width).flatMap { x in
            let p = image.pixel(x: x, y: y)
            return [p.red, p.green, p.blue, p.alpha]
        } }
    }

    @Test func framesAreComposedAsBrowsersShowThem() throws {
        let directory = try TemporaryDirectory()
        try Self.makeDisposals(in: directory)
        for frame in 0..<5 {
            let result = try CommandRunner.run(["run", "-e", "load frames=\(frame)", "dispose.gif", "-o", "frame-\(frame).png"], in: directory.path)
            #expect(result.status == 0, "\(result.standardError)")
            let made = try Image.load(path: directory.file("frame-\(frame).png"))
            let expected = try Image.load(path: directory.file("expected-\(frame).png"))
            #expect(made.size == expected.size)
            var differing = 0
            for y in 0..<made.height {
                for x in 0..<made.width {
                    let a = made.pixel(x: x, y: y), b = expected.pixel(x: x, y: y)
                    // Clear is clear, whatever color sits under it.
                    if a != b && !(a.alpha == 0 && b.alpha == 0) { differing += 1 }
                }
            }
            #expect(differing == 0, "frame \(frame): \(differing) pixels differ")
        }
        // Written back as an animation, a second reader sees the same frames (opaque ones exactly:
        // Pillow's disposal of a cleared frame differs, see above) and the loop count.
        let whole = try CommandRunner.run(["run", "-e", "load", "dispose.gif", "-o", "again.gif"], in: directory.path)
        #expect(whole.status == 0, "\(whole.standardError)")
        let back = try Self.pillowFrames(directory.file("again.gif"))
        #expect(back.frames.count == 5)
        #expect(back.loop == 2)
        #expect(back.delays == [100, 100, 100, 100, 100])
        let first = try Image.load(path: directory.file("expected-0.png"))
        #expect(back.frames[0] == Self.rgba(first))
    }

    @Test(arguments: ["gif", "webp"])
    func delaysAndLoopCountRoundTrip(format: String) throws {
        let directory = try TemporaryDirectory()
        try Self.makePan(in: directory, frames: 6, format: format)
        let result = try CommandRunner.run(["run", "-e", "resize 80x", "pan.\(format)", "-o", "small.\(format)"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let source = try Self.pillowFrames(directory.file("pan.\(format)"))
        let made = try Self.pillowFrames(directory.file("small.\(format)"))
        #expect(made.size == Size(80, 50))
        #expect(made.frames.count == 6)
        #expect(made.delays == source.delays, "\(made.delays) against \(source.delays)")
        #expect(made.loop == 0)
        // The frames are the source's, scaled: frame 5 is not frame 0 (each went through the stages).
        #expect(made.frames[5] != made.frames[0])
        // GIF into WebP and back: the timing is the animation's, whatever the container.
        let other = format == "gif" ? "webp" : "gif"
        let crossed = try CommandRunner.run(["run", "-e", "load", "small.\(format)", "-o", "crossed.\(other)"], in: directory.path)
        #expect(crossed.status == 0, "\(crossed.standardError)")
        #expect(try Self.pillowFrames(directory.file("crossed.\(other)")).delays == source.delays)
    }

    /// `save loop=` and `delay=` set what the input said, as sharp's and ImageMagick's options do:
    /// every frame the delay given, the count of showings in each format's own terms.
    @Test func loopAndDelayCanBeSet() throws {
        let directory = try TemporaryDirectory()
        try Self.makePan(in: directory, frames: 4)
        for format in ["gif", "webp"] {
            let result = try CommandRunner.run(["run", "-e", "resize 80x | save loop=3 delay=50", "pan.gif", "-o", "set.\(format)"], in: directory.path)
            #expect(result.status == 0, "\(result.standardError)")
            let info = try CommandRunner.run(["info", "set.\(format)"], in: directory.path).standardOutput
            #expect(info.contains("frames: 4, delays 50 ms each, plays 3 times"), "\(info)")
            let read = try Self.pillowFrames(directory.file("set.\(format)"))
            #expect(read.delays == [50, 50, 50, 50])
            // GIF's NETSCAPE2.0 count is the repeats after the first showing; WebP's the showings.
            #expect(read.loop == (format == "gif" ? 2 : 3), "\(format)")
        }
        let forever = try CommandRunner.run(["run", "-e", "save loop=0", "set.gif", "-o", "forever.avif"], in: directory.path)
        #expect(forever.status == 0, "\(forever.standardError)")
        let refused = try CommandRunner.run(["run", "-e", "save loop=2", "pan.gif", "-o", "twice.avif"], in: directory.path)
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("loop=2: an AVIF sequence holds no loop count here"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("twice.avif")))
        let checked = try CommandRunner.run(["check", "-e", "save loop=2 format=avif"], in: directory.path)
        #expect(checked.status != 0 && checked.standardError.contains("loop=2: an AVIF sequence"), "\(checked.standardError)")
    }

    /// The frames sit on the canvas the still picture has: a GIF's screen widened to hold a first
    /// frame that reaches past it, and a WebP turned by its EXIF orientation.
    @Test func framesSitOnTheCanvasTheStillPictureHas() throws {
        let directory = try TemporaryDirectory()
        try ColorReference.python(#"""
            import io, struct
            from PIL import Image
            d = '\#(directory.path)'
            def lzw(w, h, index):
                buf = io.BytesIO(); im = Image.new('P', (w, h), index); im.putpalette([255, 0, 0, 0, 0, 255] + [0] * 762)
                im.save(buf, 'GIF'); b = buf.getvalue()
                i = 13 + (3 << ((b[10] & 7) + 1) if b[10] & 0x80 else 13)
                while b[i] == 0x21:
                    i += 2
                    while b[i]: i += 1 + b[i]
                    i += 1
                return b[i + 10:-1]
            table = bytes([255, 0, 0, 0, 0, 255]) + bytes(6)
            head = b'GIF89a' + struct.pack('<HH', 20, 10) + bytes([0xF1, 0, 0]) + table
            frame = lambda x, y, w, h, index: bytes([0x21, 0xF9, 4, 4, 10, 0, 0, 0, 0x2C]) + struct.pack('<HHHHB', x, y, w, h, 0) + lzw(w, h, index)
            # The first frame is 10x30 on a 20x10 screen.
            open(d + '/tall.gif', 'wb').write(head + frame(0, 0, 10, 30, 0) + frame(0, 0, 20, 10, 1) + bytes([0x3B]))
            frames = [Image.new('RGB', (40, 20), c) for c in ((255, 0, 0), (0, 0, 255))]
            for f in frames: f.paste((0, 255, 0), (0, 0, 10, 10))
            exif = Image.Exif(); exif[0x0112] = 6
            frames[0].save(d + '/turned.webp', save_all=True, append_images=frames[1:], duration=50, loop=0, lossless=True, exif=exif.tobytes())
            """#)
        let still = try CommandRunner.run(["run", "-e", "load frames=first", "tall.gif", "-o", "still.png"], in: directory.path)
        #expect(still.status == 0, "\(still.standardError)")
        let widened = try Image.load(path: directory.file("still.png")).size
        let animated = try CommandRunner.run(["run", "-e", "load", "tall.gif", "-o", "all.gif"], in: directory.path)
        #expect(animated.status == 0, "\(animated.standardError)")
        #expect(try Self.pillowFrames(directory.file("all.gif")).size == widened)
        #expect(widened == Size(20, 30))
        let turned = try CommandRunner.run(["run", "-e", "load", "turned.webp", "-o", "upright.webp"], in: directory.path)
        #expect(turned.status == 0, "\(turned.standardError)")
        let upright = try Self.pillowFrames(directory.file("upright.webp"))
        #expect(upright.size == Size(20, 40) && upright.frames.count == 2)
        // Orientation 6 turns a quarter clockwise: the green top-left corner goes top-right.
        for frame in upright.frames {
            let pixel = Array(frame[(2 * 20 + 17) * 4..<(2 * 20 + 17) * 4 + 3]) // lossy WebP: near green
            #expect(pixel[0] < 40 && pixel[1] > 215 && pixel[2] < 40, "\(pixel)")
        }
    }

    /// Lossless animated WebP keeps every frame's pixels: each equals the GIF's frame as Pillow
    /// composes it.
    @Test func aLosslessWebPAnimationKeepsEveryPixel() throws {
        let directory = try TemporaryDirectory()
        try Self.makePan(in: directory, frames: 5)
        let result = try CommandRunner.run(["run", "-e", "save lossless=true", "pan.gif", "-o", "pan.webp"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let source = try Self.pillowFrames(directory.file("pan.gif")), made = try Self.pillowFrames(directory.file("pan.webp"))
        #expect(made.frames.count == 5)
        for (index, (a, b)) in zip(source.frames, made.frames).enumerated() {
            #expect(a == b, "frame \(index)")
        }
    }

    /// An AVIF image sequence (libavif): the `avis` brand, a sample a frame, each lasting its
    /// frame's delay in a millisecond timescale; still readers see the first frame.
    @Test func anAVIFSequenceHoldsEveryFrameWithItsDuration() throws {
        let directory = try TemporaryDirectory()
        try Self.makePan(in: directory, frames: 5)
        let result = try CommandRunner.run(["run", "-e", "resize 80x", "pan.gif", "-o", "pan.avif"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory.file("pan.avif"))))
        func box(_ name: String) -> Int? {
            let tag = Array(name.utf8)
            return (0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual(tag) }
        }
        func word(_ at: Int) -> Int {
            var value = 0
            for byte in bytes[at..<at + 4] { value = value << 8 | Int(byte) }
            return value
        }
        #expect(bytes[8..<12].elementsEqual("avis".utf8))
        let sizes = try #require(box("stsz")), times = try #require(box("stts")), header = try #require(box("mdhd"))
        #expect(word(sizes + 12) == 5, "samples")
        // Time to sample: (count, duration) runs; the source's delays were 60, 70, 80, 60, 70 ms.
        let runs = word(times + 8)
        var durations: [Int] = []
        for run in 0..<runs {
            let entry: Int = times + 12 + run * 8
            durations += Array(repeating: word(entry + 4), count: word(entry))
        }
        #expect(durations == [60, 70, 80, 60, 70])
        // mdhd version 1: 64-bit creation and modification times, then the timescale.
        #expect(bytes[header + 4] == 1 && word(header + 24) == 1000, "timescale")
        #expect(try Image.load(path: directory.file("pan.avif")).size == Size(80, 50))
    }

    /// An AVIF sequence read back frame by frame (libavif): losslessly written, every frame is the
    /// GIF's own, with its duration; `info` lists them, and one frame can be taken alone.
    @Test func anAVIFSequenceIsReadFrameByFrame() throws {
        let directory = try TemporaryDirectory()
        try Self.makePan(in: directory, frames: 5)
        for (pipeline, output) in [("save lossless=true", "pan.avif"), ("save lossless=true", "direct.webp"), ("save lossless=true", "via.webp")] {
            let input = output == "via.webp" ? "pan.avif" : "pan.gif"
            let result = try CommandRunner.run(["run", "-e", pipeline, input, "-o", output], in: directory.path)
            #expect(result.status == 0, "\(output): \(result.standardError)")
        }
        let info = try CommandRunner.run(["info", "pan.avif"], in: directory.path)
        #expect(info.standardOutput.contains("frames: 5, delays 60, 70, 80, 60, 70 ms, loops forever"), "\(info.standardOutput)")
        let direct = try Self.pillowFrames(directory.file("direct.webp")), via = try Self.pillowFrames(directory.file("via.webp"))
        #expect(via.frames.count == 5)
        #expect(via.delays == [60, 70, 80, 60, 70])
        #expect(via.loop == 0)
        for (index, (a, b)) in zip(direct.frames, via.frames).enumerated() {
            #expect(a == b, "frame \(index)")
        }
        let one = try CommandRunner.run(["run", "-e", "load frames=3", "pan.avif", "-o", "three.png"], in: directory.path)
        #expect(one.status == 0, "\(one.standardError)")
        let three = try Image.load(path: directory.file("three.png"))
        #expect(three.size == Size(160, 100))
        #expect(Self.rgba(three) == direct.frames[3])
        // The frame limit counts the sequence's frames before any is decoded.
        let limited = try CommandRunner.run(["run", "-e", "resize 80x", "pan.avif", "-o", "out.gif", "--max-frames", "4"], in: directory.path)
        #expect(limited.status == 1)
        #expect(limited.standardError.contains("an animation of 5 frames to decode, more than the limit of 4"), "\(limited.standardError)")
    }

    /// A sequence whose frame 3 is damaged: an error naming the frame, nothing written; with
    /// `fail=none`, the frames before it. A sequence cut short is refused as such, though its
    /// still image (the first frame) is whole.
    @Test func aDamagedAVIFSequenceFailsUnlessAskedToTakeWhatCame() throws {
        let directory = try TemporaryDirectory()
        try Self.makePan(in: directory, frames: 6)
        let made = try CommandRunner.run(["run", "-e", "resize 80x", "pan.gif", "-o", "pan.avif"], in: directory.path)
        #expect(made.status == 0, "\(made.standardError)")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory.file("pan.avif"))))
        func word(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        func box(_ name: String) throws -> Int {
            try #require((0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual(name.utf8) }, "\(name)")
        }
        // The samples lie one after another from the chunk's offset (libavif writes one chunk).
        let chunk = word(try box("stco") + 12), sizes = try box("stsz")
        #expect(word(sizes + 12) == 6)
        let third = chunk + (0..<3).map { word(sizes + 16 + 4 * $0) }.reduce(0, +)
        _ = try directory.write(Array(bytes[..<(third + 2)]), to: "cut.avif")
        // 0xFF starts no valid AV1 unit (its forbidden bit is set).
        for index in third..<(third + word(sizes + 28)) { bytes[index] = 0xFF }
        _ = try directory.write(bytes, to: "damaged.avif")

        let refused = try CommandRunner.run(["run", "-e", "resize 40x", "damaged.avif", "-o", "out.gif"], in: directory.path)
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("damaged.avif: corrupt image: AVIF frame 3 cannot be decoded"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.gif")))
        let taken = try CommandRunner.run(["run", "-e", "load fail=false | resize 40x", "damaged.avif", "-o", "out.gif"], in: directory.path)
        #expect(taken.status == 0, "\(taken.standardError)")
        #expect(try Self.pillowFrames(directory.file("out.gif")).frames.count == 3)

        let cut = try CommandRunner.run(["run", "-e", "resize 40x", "cut.avif", "-o", "cut.gif"], in: directory.path)
        #expect(cut.status == 1)
        #expect(cut.standardError.contains("cut.avif: corrupt image: the AVIF data is cut short"), "\(cut.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("cut.gif")))
        // Bytes after the last box that start no box are not a cut (libheif reads past them).
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory.file("pan.avif"))))
        _ = try directory.write(whole + [0, 0, 0, 0] + Array("\u{1}junk".utf8), to: "padded.avif")
        let padded = try CommandRunner.run(["run", "-e", "resize 40x", "padded.avif", "-o", "padded.gif"], in: directory.path)
        #expect(padded.status == 0, "\(padded.standardError)")
        #expect(try Self.pillowFrames(directory.file("padded.gif")).frames.count == 6)
    }

    @Test func everyFrameOfAnAvatarHasTheCircle() throws {
        let directory = try TemporaryDirectory()
        try Self.makePan(in: directory)
        let result = try CommandRunner.run(["run", "-e", "circle-crop size=128", "pan.gif", "-o", "avatar.gif"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let made = try Self.pillowFrames(directory.file("avatar.gif"))
        #expect(made.size == Size(128, 128))
        #expect(made.frames.count == 16)
        for (index, frame) in made.frames.enumerated() {
            func alpha(_ x: Int, _ y: Int) -> UInt8 { frame[(y * 128 + x) * 4 + 3] }
            // Corners outside the circle are clear; the middle and just inside the rim are not.
            #expect([alpha(0, 0), alpha(127, 0), alpha(0, 127), alpha(127, 127), alpha(10, 10)] == [0, 0, 0, 0, 0], "frame \(index)")
            #expect([alpha(64, 64), alpha(64, 3), alpha(3, 64), alpha(124, 64)] == [255, 255, 255, 255], "frame \(index)")
        }
    }

    @Test func stagesThatDecideFromPixelsDecideOnTheFirstFrame() throws {
        let directory = try TemporaryDirectory()
        // A border that narrows frame by frame: trimmed alone, each frame would keep a different box.
        try ColorReference.python("""
            from PIL import Image, ImageDraw
            frames = []
            for i in range(4):
                im = Image.new('RGB', (60, 40), (255, 255, 255))
                ImageDraw.Draw(im).rectangle((20 - 4 * i, 10, 39 + 4 * i, 29), fill=(200, 30, 30))
                frames.append(im)
            frames[0].save('\(directory.path)/grow.gif', save_all=True, append_images=frames[1:], duration=50, loop=0)
            """)
        let result = try CommandRunner.run(["run", "-e", "trim", "grow.gif", "-o", "trimmed.gif", "--json"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let made = try Self.pillowFrames(directory.file("trimmed.gif"))
        #expect(made.size == Size(20, 20))
        #expect(made.frames.count == 4)
        #expect(result.standardOutput.contains("20x20+20+10 of 60x40"), "\(result.standardOutput)")
    }

    @Test func theFirstFrameAloneWhenTheOutputHoldsOnePicture() throws {
        let directory = try TemporaryDirectory()
        try Self.makePan(in: directory, frames: 4)
        let still = try CommandRunner.run(["run", "-e", "resize 80x", "pan.gif", "-o", "still.jpg"], in: directory.path)
        #expect(still.status == 0)
        #expect(still.standardError.contains("pan.gif: an animated GIF of 4 frames: only the first frame is used (JPEG holds one picture"), "\(still.standardError)")
        let many = try CommandRunner.run(["run", "-e", "load frames=all | resize 80x", "pan.gif", "-o", "many.jpg"], in: directory.path)
        #expect(many.status == 2 || many.status == 1)
        #expect(many.standardError.contains("frames=all decodes 4 frames, but JPEG holds one picture"), "\(many.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("many.jpg")))
        // frames=N takes that frame: the third frame is not the first.
        let third = try CommandRunner.run(["run", "-e", "load frames=2", "pan.gif", "-o", "third.png"], in: directory.path)
        #expect(third.status == 0, "\(third.standardError)")
        let first = try CommandRunner.run(["run", "-e", "load frames=first", "pan.gif", "-o", "first.png"], in: directory.path)
        #expect(first.status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("third.png"))) != Data(contentsOf: URL(fileURLWithPath: directory.file("first.png"))))
        // One frame is a still picture: a tee on the way writes it too, and a branch each group.
        let teed = try CommandRunner.run(["run", "-e", "load frames=2 | tee teed.png | resize 40x", "pan.gif", "-o", "small.png"], in: directory.path)
        #expect(teed.status == 0, "\(teed.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("teed.png"))) == Data(contentsOf: URL(fileURLWithPath: directory.file("third.png"))))
        #expect(try Image.load(path: directory.file("small.png")).size == Size(40, 25))
        let branched = try CommandRunner.run(["run", "-e", "load frames=2 | branch { save a.png } { resize 40x | save b.webp }", "pan.gif"], in: directory.path)
        #expect(branched.status == 0, "\(branched.standardError)")
        #expect(try Image.load(path: directory.file("a.png")).size == Size(160, 100) && Image.load(path: directory.file("b.webp")).size == Size(40, 25))
        let missing = try CommandRunner.run(["run", "-e", "load frames=9", "pan.gif", "-o", "none.png"], in: directory.path)
        #expect(missing.standardError.contains("frames=9: pan.gif has 4 frames (0–3)"), "\(missing.standardError)")
    }

    /// A tee whose file holds an animation writes every frame as it sees it, as a save there
    /// would; a tee to a format of one picture keeps the run to the first frame, and says so.
    @Test func aTeeWritesEveryFrameWhenItsFileHoldsThem() throws {
        let directory = try TemporaryDirectory()
        try Self.makePan(in: directory, frames: 4)
        let teed = try CommandRunner.run(["run", "-e", "resize 80x | tee small.gif | circle-crop size=40", "pan.gif", "-o", "round.webp"], in: directory.path)
        #expect(teed.status == 0, "\(teed.standardError)")
        #expect(!teed.standardError.contains("only the first frame"), "\(teed.standardError)")
        let direct = try CommandRunner.run(["run", "-e", "resize 80x", "pan.gif", "-o", "direct.gif"], in: directory.path)
        #expect(direct.status == 0, "\(direct.standardError)")
        let small = try Self.pillowFrames(directory.file("small.gif")), expected = try Self.pillowFrames(directory.file("direct.gif"))
        #expect(small.size == Size(80, 50) && small.frames.count == 4)
        #expect(small.frames == expected.frames && small.delays == expected.delays && small.loop == expected.loop)
        #expect(small.frames[0] != small.frames[3], "the pan moves: the frames are not the first repeated")
        let round = try Self.pillowFrames(directory.file("round.webp"))
        #expect(round.size == Size(40, 40) && round.frames.count == 4 && round.delays == expected.delays)

        let still = try CommandRunner.run(["run", "-e", "resize 80x | tee small.bmp | flip", "pan.gif", "-o", "only.gif"], in: directory.path)
        #expect(still.status == 0, "\(still.standardError)")
        #expect(still.standardError.contains("only the first frame is used (tee's BMP holds one picture"), "\(still.standardError)")
        #expect(try ImageHeader.read(path: directory.file("only.gif")).frameCount == 1)
        let refused = try CommandRunner.run(["run", "-e", "load frames=all | tee small.jpg | flip", "pan.gif", "-o", "many.gif"], in: directory.path)
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("frames=all decodes 4 frames, but tee's JPEG holds one picture"), "\(refused.standardError)")

        // The tee's file cannot be written (its folder is a file): neither file is.
        let blocked = try CommandRunner.run(["run", "-e", "resize 80x | tee pan.gif/small.gif | circle-crop size=40", "pan.gif", "-o", "blocked.webp"],
                                            in: directory.path)
        #expect(blocked.status != 0)
        #expect(!FileManager.default.fileExists(atPath: directory.file("blocked.webp")))
        // The save's cannot: the tee's file, written first, is taken back.
        let unsaved = try CommandRunner.run(["run", "-e", "resize 80x | tee taken-back.gif | circle-crop size=40", "pan.gif", "-o", "pan.gif/round.webp"],
                                            in: directory.path)
        #expect(unsaved.status != 0)
        #expect(!FileManager.default.fileExists(atPath: directory.file("taken-back.gif")))
    }

    /// Each group of a branch writes every frame as it reaches the branch, as a run of its own
    /// stages would: pixel decisions are the group's own (a smart crop after `normalize` before
    /// the branch), a still format in a group keeps the run to the first frame, and a group that
    /// cannot write takes back the others.
    @Test func aBranchWritesEveryFrameToEachGroup() throws {
        let directory = try TemporaryDirectory()
        try Self.makePan(in: directory, frames: 5)
        let branched = try CommandRunner.run(["run", "-e", "normalize | branch { resize 60x60 position=attention | save crop.gif } { branch { circle-crop size=40 | save round.webp } }",
                                              "pan.gif"], in: directory.path)
        #expect(branched.status == 0, "\(branched.standardError)")
        #expect(!branched.standardError.contains("only the first frame"), "\(branched.standardError)")
        for (pipeline, made, direct) in [("normalize | resize 60x60 position=attention", "crop.gif", "direct.gif"), ("normalize | circle-crop size=40", "round.webp", "direct.webp")] {
            let run = try CommandRunner.run(["run", "-e", pipeline, "pan.gif", "-o", direct], in: directory.path)
            #expect(run.status == 0, "\(run.standardError)")
            let grouped = try Self.pillowFrames(directory.file(made)), expected = try Self.pillowFrames(directory.file(direct))
            #expect(grouped.frames.count == 5 && grouped.frames == expected.frames, "\(made)")
            #expect(grouped.delays == [60, 70, 80, 60, 70] && grouped.loop == 0, "\(made)")
            #expect(grouped.frames[0] != grouped.frames[4], "\(made): the pan moves")
        }

        // A trace shows the first frame through every group, as for a still picture.
        let traced = try CommandRunner.run(["run", "-e", "branch { resize 40x | save a.gif } { flip | save b.webp }", "pan.gif", "--trace", "trace"], in: directory.path)
        #expect(traced.status == 0, "\(traced.standardError)")
        let traces = try FileManager.default.contentsOfDirectory(atPath: directory.file("trace")).filter { $0.hasSuffix(".png") }.sorted()
        #expect(traces == ["00-load.png", "01-branch.png", "02-resize.png", "03-save.png", "04-flip.png", "05-save.png"], "\(traces)")
        #expect(try Image.load(path: directory.file("trace/03-save.png")).size == Size(40, 25))

        let still = try CommandRunner.run(["run", "-e", "branch { save all.gif } { resize 40x | save one.bmp }", "pan.gif"], in: directory.path)
        #expect(still.status == 0, "\(still.standardError)")
        #expect(still.standardError.contains("only the first frame is used (BMP holds one picture"), "\(still.standardError)")
        #expect(try ImageHeader.read(path: directory.file("all.gif")).frameCount == 1)

        // The second group's file cannot be written (its folder is a file): the first is taken back.
        let blocked = try CommandRunner.run(["run", "-e", "branch { save first.gif } { save pan.gif/second.webp }", "pan.gif"], in: directory.path)
        #expect(blocked.status != 0)
        #expect(!FileManager.default.fileExists(atPath: directory.file("first.gif")))
    }

    /// Frames go through one at a time: 200 frames of 480x270 (100 MB as canvases, 16 MB of file)
    /// take little more than 2 frames do, plus the output.
    @Test func memoryHoldsAFrameNotTheAnimation() throws {
        let directory = try TemporaryDirectory()
        try ColorReference.python(#"""
            from PIL import Image
            src = Image.open('\#(Self.photo)').convert('RGB')
            frames = [src.crop((3 * i, 200, 3 * i + 640, 560)).resize((480, 270)) for i in range(200)]
            frames[0].save('\#(directory.path)/long.gif', save_all=True, append_images=frames[1:], duration=40, loop=0)
            frames[0].save('\#(directory.path)/short.gif', save_all=True, append_images=frames[1:2], duration=40, loop=0)
            """#)
        let short = try PeakMemory.run(["run", "-e", "resize 240x", "short.gif", "-o", "short-out.gif"], in: directory.path)
        let long = try PeakMemory.run(["run", "-e", "resize 240x", "long.gif", "-o", "long-out.gif"], in: directory.path)
        #expect(short.status == 0 && long.status == 0, "\(long.standardError)")
        let output = try FileManager.default.attributesOfItem(atPath: directory.file("long-out.gif"))[.size] as! Int
        let input = try FileManager.default.attributesOfItem(atPath: directory.file("long.gif"))[.size] as! Int
        #expect(input > 10 << 20)
        // Generous: the output, plus 8 MiB for the allocator's slack. Holding the file would add
        // its 16 MB; holding the frames, 100 MB.
        #expect(long.peakBytes - short.peakBytes < output + (8 << 20), "\(long.peakBytes >> 20) MiB against \(short.peakBytes >> 20) MiB, output \(output >> 20) MiB")
    }

    /// 10,000 one-pixel frames on a 1000x1000 canvas: decoding them would make 10 gigapixels.
    @Test func aFrameBombIsRefusedBeforeDecoding() throws {
        let directory = try TemporaryDirectory()
        var gif: [UInt8] = Array("GIF89a".utf8) + [0xE8, 0x03, 0xE8, 0x03, 0x80, 0, 0, 0, 0, 0, 255, 255, 255]
        let frame: [UInt8] = [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00]
        for _ in 0..<10_000 { gif += frame }
        gif.append(0x3B)
        _ = try directory.write(gif, to: "bomb.gif")
        let clock = ContinuousClock(), start = clock.now
        let result = try CommandRunner.run(["run", "-e", "resize 10x", "bomb.gif", "-o", "out.gif"], in: directory.path)
        #expect(clock.now - start < .seconds(5))
        #expect(result.status == 1)
        #expect(result.standardError.contains("an animation of 10000 frames to decode, more than the limit of 1000 (--max-frames)"), "\(result.standardError)")
        let pixels = try CommandRunner.run(["run", "-e", "resize 10x", "bomb.gif", "-o", "out.gif", "--max-frames", "0"], in: directory.path)
        #expect(pixels.standardError.contains("10000 frames of 1000x1000 are 10000000000 pixels, more than the limit"), "\(pixels.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.gif")))
    }

    @Test func aDamagedFrameInTheMiddleFailsUnlessAskedToTakeWhatCame() throws {
        let directory = try TemporaryDirectory()
        try Self.makePan(in: directory, frames: 6)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory.file("pan.gif"))))
        // The fourth image descriptor's LZW data is cut: the file ends inside frame 3.
        var descriptors: [Int] = []
        var index = 13 + (bytes[10] & 0x80 != 0 ? 3 << (Int(bytes[10] & 7) + 1) : 0)
        while index < bytes.count, bytes[index] != 0x3B {
            if bytes[index] == 0x21 {
                index += 2
                while bytes[index] != 0 { index += 1 + Int(bytes[index]) }
                index += 1
            } else {
                descriptors.append(index)
                let packed = bytes[index + 9]
                index += 10 + (packed & 0x80 != 0 ? 3 << (Int(packed & 7) + 1) : 0) + 1
                while bytes[index] != 0 { index += 1 + Int(bytes[index]) }
                index += 1
            }
        }
        #expect(descriptors.count == 6)
        let packed = bytes[descriptors[3] + 9]
        bytes = Array(bytes[..<(descriptors[3] + 10 + (packed & 0x80 != 0 ? 3 << (Int(packed & 7) + 1) : 0) + 200)])
        _ = try directory.write(bytes, to: "cut.gif")
        let refused = try CommandRunner.run(["run", "-e", "resize 80x", "cut.gif", "-o", "out.gif"], in: directory.path)
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("cut.gif: corrupt image: GIF frame 3 is damaged or cut short"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.gif")))
        let taken = try CommandRunner.run(["run", "-e", "load fail=false | resize 80x", "cut.gif", "-o", "out.gif"], in: directory.path)
        #expect(taken.status == 0, "\(taken.standardError)")
        // The three whole frames, and the rows of the fourth that came.
        #expect(try Self.pillowFrames(directory.file("out.gif")).frames.count == 4)
    }
}
