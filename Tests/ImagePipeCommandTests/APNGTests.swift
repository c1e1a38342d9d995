import Foundation
import Testing
import ImagePipe
import TestSupport

/// Animated PNG through the pipeline: frames blended and disposed of as the specification says
/// (the cases of Pillow's APNG suite, made the same way here), delays as fractions, the play
/// count, the default image outside the animation, damage refused, and APNG written and read
/// back by Pillow.
@Suite struct APNGTests {
    /// A Python function `apng(path, W, H, frames, ...)` that writes an APNG chunk by chunk, so
    /// that every field (and every fault) is the test's: each frame a dict of x, y, w, h, its
    /// pixels (`fill`, an RGBA tuple, or `pixels`, a list), dispose, blend and the delay
    /// fraction; `hidden` a default image that is not part of the animation; `edit` a function
    /// that changes the list of chunks before they are written.
    static let builder = #"""
import struct, zlib
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
def rows(w, h, pixels):
    width = len(pixels[0]) if pixels else 4
    raw = b''.join(b'\0' + b''.join(bytes(p) for p in pixels[y * w:(y + 1) * w]) for y in range(h))
    return zlib.compress(raw)
def pixels_of(f):
    return f['pixels'] if 'pixels' in f else [f['fill']] * (f['w'] * f['h'])
def apng(path, W, H, frames, plays=0, hidden=None, announced=None, color_type=6, before=(), edit=None):
    chunks = [(b'IHDR', struct.pack('>IIBBBBB', W, H, 8, color_type, 0, 0, 0))]
    chunks.append((b'acTL', struct.pack('>II', len(frames) if announced is None else announced, plays)))
    chunks += list(before)
    seq = 0
    if hidden is not None:
        chunks.append((b'IDAT', rows(W, H, [hidden] * (W * H))))
    for n, f in enumerate(frames):
        chunks.append((b'fcTL', struct.pack('>IIIIIHHBB', seq, f['w'], f['h'], f.get('x', 0), f.get('y', 0),
                                            f.get('num', 1), f.get('den', 10), f.get('dispose', 0), f.get('blend', 0))))
        seq += 1
        data = rows(f['w'], f['h'], pixels_of(f))
        if n == 0 and hidden is None:
            chunks.append((b'IDAT', data))
        else:
            chunks.append((b'fdAT', struct.pack('>I', seq) + data))
            seq += 1
    chunks.append((b'IEND', b''))
    if edit: chunks = edit(chunks)
    open(path, 'wb').write(b'\x89PNG\r\n\x1a\n' + b''.join(chunk(k, d) for k, d in chunks))
"""#

    /// Writes APNGs with `script`, run after the builder in `directory`.
    static func make(_ script: String, in directory: TemporaryDirectory) throws {
        try ColorReference.python(builder + "\nd = '\(directory.path)'\n" + script)
    }

    /// Frame `frame` of `file`, as a still PNG the run writes, loaded.
    static func frame(_ frame: Int, of file: String, in directory: TemporaryDirectory, options: String = "") throws -> Image {
        let output = "\(file)-\(frame).png"
        let result = try CommandRunner.run(["run", "-e", "load frames=\(frame) \(options)", file, "-o", output], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        return try Image.load(path: directory.file(output))
    }

    /// Four frames on a 40x30 canvas: an opaque red canvas; a half-transparent blue square
    /// blended over it, then cleared to the background; a green square, then put back to what
    /// was under it; a transparent square drawn with `source`, which clears what it covers.
    static let operations = """
        apng(d + '/ops.png', 40, 30, [
            dict(w=40, h=30, fill=(255, 0, 0, 255)),
            dict(x=5, y=5, w=10, h=10, fill=(0, 0, 255, 128), blend=1, dispose=1),
            dict(x=20, y=10, w=10, h=10, fill=(0, 255, 0, 255), dispose=2),
            dict(x=0, y=0, w=4, h=4, fill=(0, 0, 0, 0), blend=0),
        ])
        """

    @Test func framesAreBlendedAndDisposedOfAsTheSpecificationSays() throws {
        let directory = try TemporaryDirectory()
        try Self.make(Self.operations, in: directory)
        let info = try CommandRunner.run(["info", "ops.png"], in: directory.path)
        #expect(info.standardOutput.contains("frames: 4"), "\(info.standardOutput)")
        let first = try Self.frame(0, of: "ops.png", in: directory)
        #expect(first.size == Size(40, 30))
        #expect(first.pixel(x: 7, y: 7) == Color(red: 255, green: 0, blue: 0, alpha: 255))
        // Blue at 128/255 over red: 127 red and 128 blue, opaque.
        let second = try Self.frame(1, of: "ops.png", in: directory)
        #expect(second.pixel(x: 7, y: 7) == Color(red: 127, green: 0, blue: 128, alpha: 255))
        #expect(second.pixel(x: 20, y: 20) == Color(red: 255, green: 0, blue: 0, alpha: 255))
        // The blue square was cleared to transparent; green is drawn.
        let third = try Self.frame(2, of: "ops.png", in: directory)
        #expect(third.pixel(x: 7, y: 7).alpha == 0)
        #expect(third.pixel(x: 22, y: 12) == Color(red: 0, green: 255, blue: 0, alpha: 255))
        // The green square was put back to red; `source` with clear pixels clears the corner.
        let fourth = try Self.frame(3, of: "ops.png", in: directory)
        #expect(fourth.pixel(x: 22, y: 12) == Color(red: 255, green: 0, blue: 0, alpha: 255))
        #expect(fourth.pixel(x: 1, y: 1).alpha == 0)
        #expect(fourth.pixel(x: 7, y: 7).alpha == 0)
        #expect(fourth.pixel(x: 39, y: 29) == Color(red: 255, green: 0, blue: 0, alpha: 255))
        // Pillow, an outside reader, composes the same frames (clear is clear, whatever its color).
        // Pillow 9.4 blends `over` by pasting the frame with its alpha as the mask, alpha included,
        // so half-transparent blue over opaque red comes out 191 opaque where the specification's
        // "over" (and browsers) make it opaque: frame 1's alpha is not compared, its colors are.
        let pillow = try AnimationTests.pillowFrames(directory.file("ops.png"))
        #expect(pillow.frames.count == 4)
        for (index, ours) in [first, second, third, fourth].enumerated() {
            let theirs = pillow.frames[index]
            var differing = 0
            let pixels = AnimationTests.rgba(ours)
            for offset in 0..<pixels.count / 4 {
                let pixel = pixels[offset * 4..<offset * 4 + 4], other = theirs[offset * 4..<offset * 4 + 4]
                if pixel.last == 0 && other.last == 0 { continue }
                if zip(pixel.prefix(index == 1 ? 3 : 4), other).contains(where: { abs(Int($0) - Int($1)) > 1 }) { differing += 1 }
            }
            #expect(differing == 0, "frame \(index): \(differing) pixels differ from Pillow's")
        }
    }

    /// Every frame goes through the stages and into an animated output, with its delay (a
    /// fraction of a second, den 0 meaning hundredths) and the play count.
    @Test func delaysAndPlaysAreKept() throws {
        let directory = try TemporaryDirectory()
        try Self.make("""
            apng(d + '/timing.png', 20, 10, [
                dict(w=20, h=10, fill=(255, 0, 0, 255), num=1, den=3),
                dict(w=20, h=10, fill=(0, 255, 0, 255), num=5, den=0),
                dict(w=20, h=10, fill=(0, 0, 255, 255), num=0, den=0),
            ], plays=3)
            """, in: directory)
        let info = try CommandRunner.run(["info", "timing.png"], in: directory.path)
        #expect(info.standardOutput.contains("frames: 3"), "\(info.standardOutput)")
        #expect(info.standardOutput.contains("333") && info.standardOutput.contains("plays 3 times"), "\(info.standardOutput)")
        for format in ["gif", "webp"] {
            let result = try CommandRunner.run(["run", "-e", "resize 10x", "timing.png", "-o", "timing.\(format)"], in: directory.path)
            #expect(result.status == 0, "\(result.standardError)")
            let read = try AnimationTests.pillowFrames(directory.file("timing.\(format)"))
            #expect(read.frames.count == 3 && read.size == Size(10, 5))
            // GIF counts hundredths: 333 ms is 330.
            #expect(read.delays == (format == "gif" ? [330, 50, 0] : [333, 50, 0]), "\(format): \(read.delays)")
            #expect(read.loop == (format == "gif" ? 2 : 3), "\(format)")
            // WebP is lossy at its default quality: blue within two levels.
            #expect(zip(read.frames[2][0..<4], [0, 0, 255, 255] as [UInt8]).allSatisfy { abs(Int($0) - Int($1)) <= 2 }, "\(format): \(read.frames[2][0..<4])")
        }
    }

    /// A default image before the first fcTL is not part of the animation: the frames are the
    /// animation's, as browsers play them, and a still output is its first frame. (Pillow counts
    /// the default image as a frame of its own.)
    @Test func aDefaultImageOutsideTheAnimationIsNotAFrame() throws {
        let directory = try TemporaryDirectory()
        try Self.make("""
            apng(d + '/hidden.png', 16, 8, [dict(w=16, h=8, fill=(255, 0, 0, 255)), dict(x=8, y=0, w=8, h=8, fill=(0, 255, 0, 255))],
                 hidden=(0, 0, 255, 255))
            """, in: directory)
        let info = try CommandRunner.run(["info", "hidden.png"], in: directory.path)
        #expect(info.standardOutput.contains("frames: 2"), "\(info.standardOutput)")
        let still = try CommandRunner.run(["run", "-e", "load", "hidden.png", "-o", "still.jpg"], in: directory.path)
        #expect(still.status == 0, "\(still.standardError)")
        let first = try Image.load(path: directory.file("still.jpg"))
        #expect(first.pixel(x: 4, y: 4).red > 240 && first.pixel(x: 4, y: 4).blue < 16)
        let moved = try CommandRunner.run(["run", "-e", "load", "hidden.png", "-o", "moved.gif"], in: directory.path)
        #expect(moved.status == 0, "\(moved.standardError)")
        let read = try AnimationTests.pillowFrames(directory.file("moved.gif"))
        #expect(read.frames.count == 2)
        #expect(read.frames[1][(4 * 16 + 12) * 4..<(4 * 16 + 12) * 4 + 3] == [0, 255, 0])
        #expect(read.frames[1][(4 * 16 + 4) * 4..<(4 * 16 + 4) * 4 + 3] == [255, 0, 0])
    }

    /// Palette frames share the file's PLTE and tRNS: each frame's stream carries them.
    @Test func paletteFramesShareThePalette() throws {
        let directory = try TemporaryDirectory()
        try Self.make("""
            apng(d + '/palette.png', 8, 8, [dict(w=8, h=8, pixels=[(0,)] * 64), dict(x=2, y=2, w=4, h=4, pixels=[(1,)] * 16, blend=1)],
                 color_type=3, before=[(b'PLTE', bytes([255, 0, 0, 0, 0, 255])), (b'tRNS', bytes([255, 128]))])
            """, in: directory)
        let second = try Self.frame(1, of: "palette.png", in: directory)
        #expect(second.pixel(x: 0, y: 0) == Color(red: 255, green: 0, blue: 0, alpha: 255))
        // Blue at 128/255 over red.
        #expect(second.pixel(x: 3, y: 3) == Color(red: 127, green: 0, blue: 128, alpha: 255))
    }

    /// The damage Pillow's suite holds: each refused with what is wrong, or the frames before it
    /// taken under `fail=none`; what Pillow reads as a still picture is one here too.
    @Test func damagedAnimationsAreRefused() throws {
        let directory = try TemporaryDirectory()
        try Self.make("""
            two = [dict(w=8, h=8, fill=(255, 0, 0, 255)), dict(w=8, h=8, fill=(0, 255, 0, 255)), dict(w=8, h=8, fill=(0, 0, 255, 255))]
            def renumber(chunks):  # the second fdAT's sequence number skips one
                at = [i for i, c in enumerate(chunks) if c[0] == b'fdAT'][1]
                chunks[at] = (b'fdAT', struct.pack('>I', 9) + chunks[at][1][4:]); return chunks
            apng(d + '/gap.png', 8, 8, two, edit=renumber)
            apng(d + '/outside.png', 8, 8, [two[0], dict(x=4, y=4, w=8, h=8, fill=(0, 0, 255, 255))])
            apng(d + '/high.png', 8, 8, two, announced=5)
            apng(d + '/low.png', 8, 8, two, announced=2)
            def no_data(chunks): return [c for i, c in enumerate(chunks) if not (c[0] == b'fdAT' and i == len(chunks) - 2)]
            apng(d + '/nodata.png', 8, 8, two, edit=no_data)
            def twice(chunks): return chunks[:2] + [chunks[1]] + chunks[2:]
            apng(d + '/twoactl.png', 8, 8, two, edit=twice)
            def late(chunks): return [chunks[0]] + chunks[2:-1] + [chunks[1], chunks[-1]]
            apng(d + '/late.png', 8, 8, two, edit=late)
            apng(d + '/zero.png', 8, 8, two, announced=0)
            """, in: directory)
        let refusals = [
            ("gap.png", "sequence number 9 comes where 4 is next"),
            ("outside.png", "frame 1 of the APNG (8x8 at 4,4) does not lie within its 8x8 canvas"),
            ("high.png", "the APNG announces 5 frames and holds 3"),
            ("nodata.png", "frame 2 of the APNG has no image data"),
        ]
        for (file, reason) in refusals {
            let result = try CommandRunner.run(["run", "-e", "load", file, "-o", "out-\(file).gif"], in: directory.path)
            #expect(result.status != 0 && result.standardError.contains(reason), "\(file): \(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: directory.file("out-\(file).gif")))
            // Under fail=none the frames before the damage are the animation.
            let taken = try CommandRunner.run(["run", "-e", "load fail=none", file, "-o", "taken-\(file).gif"], in: directory.path)
            #expect(taken.status == 0, "\(file): \(taken.standardError)")
            let frames = try AnimationTests.pillowFrames(directory.file("taken-\(file).gif")).frames
            #expect(frames.count == (file == "high.png" ? 3 : file == "outside.png" ? 1 : 2), "\(file): \(frames.count) frames")
            #expect(frames.first?.prefix(4) == [255, 0, 0, 255])
        }
        // Fewer frames announced than held: the announced ones.
        let low = try CommandRunner.run(["run", "-e", "load", "low.png", "-o", "low.gif"], in: directory.path)
        #expect(low.status == 0, "\(low.standardError)")
        #expect(try AnimationTests.pillowFrames(directory.file("low.gif")).frames.count == 2)
        // Two acTL chunks, an acTL after the image data, or 0 frames: a still PNG, its default image.
        for file in ["twoactl.png", "late.png", "zero.png"] {
            let info = try CommandRunner.run(["info", file], in: directory.path)
            #expect(info.status == 0 && !info.standardOutput.contains("frames: "), "\(file): \(info.standardOutput)")
            let result = try CommandRunner.run(["run", "-e", "load", file, "-o", "still-\(file).gif"], in: directory.path)
            #expect(result.status == 0, "\(file): \(result.standardError)")
            #expect(try AnimationTests.pillowFrames(directory.file("still-\(file).gif")).frames.count == 1, "\(file)")
        }
    }

    /// A file of a few hundred bytes announcing 100,000 frames on a 1000x1000 canvas is refused
    /// from its header, before any frame is decoded.
    @Test func aFrameBombIsRefusedBeforeDecoding() throws {
        let directory = try TemporaryDirectory()
        try Self.make("apng(d + '/bomb.png', 1000, 1000, [dict(w=1, h=1, fill=(0, 0, 0, 0))] * 2, announced=100000, "
                      + "edit=lambda c: [x if x[0] != b'fcTL' or x[1][:4] != bytes(4) else (b'fcTL', x[1][:4] + struct.pack('>II', 1000, 1000) + x[1][12:]) for x in c])",
                      in: directory)
        let result = try CommandRunner.run(["run", "-e", "resize 10x", "bomb.png", "-o", "out.gif"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError.contains("an animation of 100000 frames to decode, more than the limit of 1000"), "\(result.standardError)")
    }

    /// An animated GIF written to `.png` is an APNG: every frame, its delay and the loop count,
    /// as Pillow reads them back; `info` says so too.
    @Test func anAnimationIsWrittenAsAnAPNG() throws {
        let directory = try TemporaryDirectory()
        try AnimationTests.makePan(in: directory, frames: 5)
        let result = try CommandRunner.run(["run", "-e", "resize 80x", "pan.gif", "-o", "pan.png"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!result.standardError.contains("only the first frame"), "\(result.standardError)")
        let gif = try AnimationTests.pillowFrames(directory.file("pan.gif"))
        let read = try AnimationTests.pillowFrames(directory.file("pan.png"))
        #expect(read.size == Size(80, 50))
        #expect(read.frames.count == 5)
        #expect(read.delays == gif.delays, "\(read.delays) against \(gif.delays)")
        #expect(read.loop == 0)
        #expect(read.frames[4] != read.frames[0])
        // Our reader and Pillow see the same pixels in every frame.
        for index in 0..<5 {
            #expect(AnimationTests.rgba(try Self.frame(index, of: "pan.png", in: directory)) == read.frames[index], "frame \(index)")
        }
        let info = try CommandRunner.run(["info", "pan.png"], in: directory.path)
        #expect(info.standardOutput.contains("frames: 5"), "\(info.standardOutput)")
        // loop= and delay= as for GIF and WebP.
        let set = try CommandRunner.run(["run", "-e", "save loop=2 delay=70", "pan.png", "-o", "set.png"], in: directory.path)
        #expect(set.status == 0, "\(set.standardError)")
        let again = try AnimationTests.pillowFrames(directory.file("set.png"))
        #expect(again.delays == [70, 70, 70, 70, 70] && again.loop == 2)
    }

    /// Frames that are opaque until one has alpha: the earlier frames are written again with
    /// alpha, as every frame of an APNG has the file's one color type.
    @Test func alphaInALaterFrameMakesEveryFrameRGBA() throws {
        let directory = try TemporaryDirectory()
        try Self.make("""
            apng(d + '/late-alpha.png', 6, 4, [dict(w=6, h=4, fill=(255, 0, 0, 255)),
                 dict(w=6, h=4, pixels=[(0, 255, 0, 255 if i % 2 else 0) for i in range(24)])])
            """, in: directory)
        let result = try CommandRunner.run(["run", "-e", "load", "late-alpha.png", "-o", "copy.png"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let read = try AnimationTests.pillowFrames(directory.file("copy.png"))
        #expect(read.frames.count == 2)
        #expect(read.frames[0].prefix(8) == [255, 0, 0, 255, 255, 0, 0, 255])
        #expect(read.frames[1][4..<8] == [0, 255, 0, 255])
        #expect(read.frames[1][3] == 0)
    }
}
