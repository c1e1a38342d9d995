import Foundation
import Testing
import ImagePipe
import TestSupport

/// Hostile-input findings (issue #50): a GIF frame far larger than its canvas, a TIFF claiming
/// 65,535 samples a pixel, GIF delays browsers do not honour, cut animations in a still run, and
/// outputs too large for their format found only after the work. Every file is made here.
@Suite struct HostileInputTests {
    // MARK: Synthetic GIFs

    /// LZW data (the code size byte, the sub-blocks and their terminator) of at least `pixels`
    /// pixels of palette index `index`, packed as densely as LZW allows: each code one pixel
    /// longer than the one before until the table is full (4,096 codes), then code 4094 (4,090
    /// pixels in 12 bits) again and again. 4.3 gigapixels take 1.6 MB. 0 pixels: a clear code and
    /// the end code, a frame whose data ends at once (a short frame, which GIF allows).
    static func lzw(pixels wanted: Int, index: Int = 0) -> [UInt8] {
        let minimum = 2, clear = 1 << minimum, end = clear + 1
        var bytes: [UInt8] = [], bits = 0, count = 0
        func emit(_ code: Int, _ size: Int) {
            bits |= code << count
            count += size
            while count >= 8 {
                bytes.append(UInt8(bits & 0xFF))
                bits >>= 8
                count -= 8
            }
        }
        // The decoder's state, followed as it reads (its code size grows when the table reaches it).
        var size = minimum + 1, next = end + 1, pixels = 0
        emit(clear, size)
        if wanted > 0 {
            emit(index, size)
            pixels = 1
        }
        while pixels < wanted {
            if next < 4096 {
                emit(next, size) // the code being defined: the previous string and its first pixel
                pixels += next - end + 1
                next += 1
                if next == 1 << size, size < 12 { size += 1 }
            } else {
                emit(4094, size)
                pixels += 4094 - end + 1
            }
        }
        emit(end, size)
        if count > 0 { bytes.append(UInt8(bits & 0xFF)) }
        var data: [UInt8] = [UInt8(minimum)]
        for start in stride(from: 0, to: bytes.count, by: 255) {
            let block = bytes[start..<min(bytes.count, start + 255)]
            data.append(UInt8(block.count))
            data += block
        }
        return data + [0]
    }

    /// A GIF of a `screen` canvas with a 4-color table (0 red, 1 blue, 2 green, 3 white) and the
    /// frames given: where each lies and its LZW data.
    static func gif(screen: Size, frames: [(rect: Rect, data: [UInt8])]) -> [UInt8] {
        func little(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        var bytes = Array("GIF89a".utf8) + little(screen.width) + little(screen.height) + [0x81, 0, 0]
        bytes += [255, 0, 0, 0, 0, 255, 0, 255, 0, 255, 255, 255]
        for frame in frames {
            // A graphic control block: 50 ms, no transparency, kept.
            bytes += [0x21, 0xF9, 4, 0x04, 5, 0, 0, 0]
            bytes += [0x2C] + little(frame.rect.x) + little(frame.rect.y) + little(frame.rect.width) + little(frame.rect.height) + [0]
            bytes += frame.data
        }
        return bytes + [0x3B]
    }

    /// A first frame covering the canvas in blue.
    static func blue(_ canvas: Size) -> (rect: Rect, data: [UInt8]) {
        (Rect(x: 0, y: 0, width: canvas.width, height: canvas.height), lzw(pixels: canvas.pixelCount, index: 1))
    }

    // MARK: GIF frames past the canvas

    /// A 2x2 GIF whose second frame is 65535x65535: the plan counts the canvas (8 pixels for two
    /// frames), the frame would be 4.3 gigapixels. Refused before its data is read.
    @Test func aFrameLargerThanThePixelLimitIsRefusedBeforeItIsDecoded() throws {
        let directory = try TemporaryDirectory()
        let canvas = Size(2, 2)
        _ = try directory.write(Self.gif(screen: canvas, frames: [Self.blue(canvas), (Rect(x: 0, y: 0, width: 65535, height: 65535), Self.lzw(pixels: 0))]),
                                to: "huge-frame.gif")
        let result = try CommandRunner.run(["run", "-e", "resize 4x", "huge-frame.gif", "-o", "out.gif"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError.contains("huge-frame.gif: too large: GIF frame 1 is 65535x65535 (4294836225 pixels) on a 2x2 canvas, more than the limit of 178956970"),
                "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.gif")))
        // A smaller limit counts the frame's rectangle the same way.
        let small = Self.gif(screen: canvas, frames: [Self.blue(canvas), (Rect(x: 0, y: 0, width: 100, height: 100), Self.lzw(pixels: 0))])
        _ = try directory.write(small, to: "small-frame.gif")
        let limited = try CommandRunner.run(["run", "-e", "resize 4x", "small-frame.gif", "-o", "out.gif", "--max-pixels", "5000"], in: directory.path)
        #expect(limited.standardError.contains("GIF frame 1 is 100x100 (10000 pixels) on a 2x2 canvas, more than the limit of 5000"), "\(limited.standardError)")
        let allowed = try CommandRunner.run(["run", "-e", "resize 4x", "small-frame.gif", "-o", "out.gif"], in: directory.path)
        #expect(allowed.status == 0, "\(allowed.standardError)")
    }

    /// The same 65535x65535 frame with 4.3 gigapixels of real LZW data, no pixel limit: only the
    /// rows that reach the 2x2 canvas are decoded (browsers clip a frame to the canvas), and the
    /// rest of the data is passed over. Decoding it all took 26–33 s.
    @Test func aFrameIsDecodedOnlyAsFarAsItShows() throws {
        let canvas = Size(2, 2)
        let frame = Rect(x: 0, y: 0, width: 65535, height: 65535)
        let bytes = Self.gif(screen: canvas, frames: [Self.blue(canvas), (frame, Self.lzw(pixels: frame.width * frame.height))])
        #expect(bytes.count > 1_500_000)
        let clock = ContinuousClock(), start = clock.now
        let decoder = try #require(try AnimationDecoding.decoder(for: bytes, format: .gif, options: LoadOptions(maxPixels: nil), failOnDamage: true, path: "clip.gif"))
        let first = try #require(try decoder.next()), second = try #require(try decoder.next())
        #expect(try decoder.next() == nil)
        #expect(clock.now - start < .seconds(15), "\(clock.now - start)")
        #expect(first.image.pixel(x: 1, y: 1) == Color(red: 0, green: 0, blue: 255))
        for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            #expect(second.image.pixel(x: x, y: y) == Color(red: 255, green: 0, blue: 0), "(\(x), \(y))")
        }
    }

    /// Frames wider than a narrow canvas each decode their rows at their full width: what they
    /// decode beyond the canvas's own pixels counts against the limit, all frames together.
    @Test func framesPastTheCanvasCountTogether() throws {
        let canvas = Size(1, 2000)
        let wide = (rect: Rect(x: 0, y: 0, width: 65535, height: 100), data: Self.lzw(pixels: 0))
        let bytes = Self.gif(screen: canvas, frames: [wide, wide, wide])
        let decoder = try #require(try AnimationDecoding.decoder(for: bytes, format: .gif, options: LoadOptions(maxPixels: 10_000_000), failOnDamage: true, path: "wide.gif"))
        _ = try decoder.next() // 6.55 million pixels past the canvas
        let error = try #require(throws: ImageError.self) { try decoder.next() }
        #expect(error.kind == .tooLarge)
        #expect(error.reason == "GIF frame 1 (65535x100) reaches past the 1x2000 canvas: with the frames before it, 13103000 pixels to decode beyond the canvas's own, more than the limit of 10000000",
                "\(error.reason)")
    }

    /// A frame that is 4.3 gigapixels of work inside a 16x65535 canvas (1 megapixel, within any
    /// limit) stops at the time limit: the row loop checks it. Without the check the run went on
    /// for half a minute "inside a library that cannot be stopped".
    @Test func aFrameStopsAtTheTimeLimit() throws {
        let directory = try TemporaryDirectory()
        let canvas = Size(16, 65535)
        let frame = Rect(x: 0, y: 0, width: 65535, height: 65535)
        let first = (rect: Rect(x: 0, y: 0, width: 16, height: 65535), data: Self.lzw(pixels: 0))
        _ = try directory.write(Self.gif(screen: canvas, frames: [first, (frame, Self.lzw(pixels: frame.width * frame.height))]), to: "slow.gif")
        let clock = ContinuousClock(), start = clock.now
        let result = try CommandRunner.run(["run", "-e", "resize 8x", "slow.gif", "-o", "out.gif", "--timeout", "1", "--max-pixels", "0"], in: directory.path)
        #expect(clock.now - start < .seconds(15), "\(clock.now - start)")
        #expect(result.status == 1)
        #expect(result.standardError.contains("slow.gif: timed out"), "\(result.standardError)")
        #expect(!result.standardError.contains("cannot be stopped"), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.gif")))
    }

    // MARK: TIFF samples

    /// A little-endian TIFF of one uncompressed strip whose directory says what it is told to.
    static func tiff(width: Int, height: Int, samples: Int, bits: Int) -> [UInt8] {
        func word(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let pixels = [UInt8](repeating: 0x80, count: 16)
        let entries: [(tag: Int, type: Int, value: Int)] = [(256, 3, width), (257, 3, height), (258, 3, bits), (259, 3, 1), (262, 3, 2),
                                                           (273, 4, 8), (277, 3, samples), (278, 3, height), (279, 4, pixels.count), (284, 3, 1)]
        var bytes: [UInt8] = [0x49, 0x49, 42, 0] + word(8 + pixels.count, 4) + pixels + word(entries.count, 2)
        for entry in entries {
            bytes += word(entry.tag, 2) + word(entry.type, 2) + word(1, 4) + word(entry.value, entry.type == 3 ? 2 : 4) + (entry.type == 3 ? [0, 0] : [])
        }
        return bytes + word(0, 4)
    }

    /// 65,535 samples a pixel asked for a 171 GB strip buffer (the process aborted, a folder
    /// batch with it died), and `info` reported 65,535 channels: refused from the directory.
    @Test func aTIFFClaimingImpossibleSamplesIsRefused() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("in"), withIntermediateDirectories: true)
        _ = try directory.write(Self.tiff(width: 20, height: 65535, samples: 65535, bits: 16), to: "in/samples.tif")
        _ = try directory.write(Self.tiff(width: 4, height: 4, samples: 3, bits: 200), to: "in/bits.tif")
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "in/good.png")
        let info = try CommandRunner.run(["info", "in/samples.tif"], in: directory.path)
        #expect(info.status == 1)
        #expect(info.standardError.contains("in/samples.tif: corrupt image: the TIFF's first directory claims 65535 samples per pixel, where at most 64 are read"),
                "\(info.standardError)")
        let bits = try CommandRunner.run(["info", "in/bits.tif"], in: directory.path)
        #expect(bits.status == 1)
        #expect(bits.standardError.contains("claims 200 bits per sample, where a sample has 1 to 64"), "\(bits.standardError)")
        let batch = try CommandRunner.run(["run", "-e", "resize 4x", "in", "--out-dir", "out", "-o", "{stem}.png"], in: directory.path)
        #expect(batch.status == 1)
        #expect(batch.standardError.contains("samples.tif: corrupt image: the TIFF's first directory claims 65535 samples per pixel"), "\(batch.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out")) == ["good.png"])
        #expect(throws: ImageError.self) { try ImageHeader.read(bytes: Self.tiff(width: 4, height: 4, samples: 65535, bits: 8)) }
    }

    /// A PNG header with a bit depth its color type does not have (RGB at 4 bits) is refused by
    /// the header read, as libspng refuses it: `info` does not report it as a picture.
    @Test func aPNGHeaderWithoutAValidDepthIsRefused() throws {
        var png = try Synthetic.gradient(4, 4).encoded(as: .png)
        png[24] = 4
        // The IHDR chunk's CRC over its type and data, made again.
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in png[12..<29] {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        for index in 0..<4 { png[29 + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index)) }
        let directory = try TemporaryDirectory()
        _ = try directory.write(png, to: "depth.png")
        let info = try CommandRunner.run(["info", "depth.png"], in: directory.path)
        #expect(info.status == 1)
        #expect(info.standardError.contains("depth.png: corrupt image: starts like a PNG but its header cannot be read: its IHDR chunk gives color type 2 with 4 bits per sample"),
                "\(info.standardError)")
    }

    /// A JPEG frame header with a sample precision no JPEG has (200 bits) is refused by the
    /// header read: `info` reported it as a picture, and only the decode refused it.
    @Test func aJPEGHeaderWithAnImpossiblePrecisionIsRefused() throws {
        var jpeg = try Synthetic.gradient(16, 16).encoded(as: .jpeg)
        let frame = try #require((0..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg[frame + 4] = 200
        let directory = try TemporaryDirectory()
        _ = try directory.write(jpeg, to: "precision.jpg")
        let info = try CommandRunner.run(["info", "precision.jpg"], in: directory.path)
        #expect(info.status == 1)
        #expect(info.standardError.contains("precision.jpg: corrupt image: starts like a JPEG but its header cannot be read: its frame header gives a sample precision of 200 bits"),
                "\(info.standardError)")
    }

    // MARK: GIF delays

    /// `save delay=1` to `4` wrote 0 hundredths, which browsers show for 100 ms; 1 to 19 ms is
    /// written as 2 hundredths, the shortest they honour. Delays kept from the input round alone.
    @Test func shortDelaysAskedForAreWrittenAsBrowsersShowThem() throws {
        func delays(asked: Int?, given: Int) throws -> [Int] {
            var options = SaveOptions()
            options.delay = asked
            let encoder = try #require(AnimationEncoding.encoder(for: .gif, options: options, plays: 0))
            for color in [Color(red: 255, green: 0, blue: 0), Color(red: 0, green: 0, blue: 255)] {
                try encoder.add(Synthetic.image(4, 4) { _, _ in color }, delay: asked ?? given)
            }
            return CodingFacts.read(try encoder.finish().joined, format: .gif).delays
        }
        for asked in [1, 4, 10, 19] { #expect(try delays(asked: asked, given: 0) == [20, 20], "delay=\(asked)") }
        #expect(try delays(asked: 25, given: 0) == [30, 30])
        #expect(try delays(asked: 65, given: 0) == [70, 70])
        #expect(try delays(asked: 0, given: 0) == [0, 0])
        // The input's own 10 ms (a GIF's 1), shown for 100 ms, stays so.
        #expect(try delays(asked: nil, given: 10) == [10, 10])
    }

    // MARK: Cut animations in a still run

    /// A still run decodes an animation's first frame alone: a file cut in a later frame was
    /// taken as whole, where a cut AVIF sequence is refused. Both are refused from `fail=truncated`
    /// (the default `error` included); `fail=none` takes the first frame.
    @Test(arguments: ["gif", "webp"])
    func aCutAnimationIsRefusedInAStillRun(format: String) throws {
        let directory = try TemporaryDirectory()
        try AnimationTests.makePan(in: directory, frames: 6, format: format)
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory.file("pan.\(format)"))))
        _ = try directory.write(Array(whole.prefix(whole.count * 7 / 10)), to: "cut.\(format)")
        let refused = try CommandRunner.run(["run", "-e", "resize 80x", "cut.\(format)", "-o", "still.jpg"], in: directory.path)
        #expect(refused.status == 1)
        let name = format == "gif" ? "GIF is cut short: the file ends within the data of frame" : "animated WebP is cut short: the file ends within frame"
        #expect(refused.standardError.contains("cut.\(format): corrupt image: the \(name)"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("still.jpg")))
        let truncated = try CommandRunner.run(["run", "-e", "load fail=truncated | resize 80x", "cut.\(format)", "-o", "still.jpg"], in: directory.path)
        #expect(truncated.status == 1)
        let taken = try CommandRunner.run(["run", "-e", "load fail=none | resize 80x", "cut.\(format)", "-o", "still.jpg"], in: directory.path)
        #expect(taken.status == 0, "\(taken.standardError)")
        #expect(try Image.load(path: directory.file("still.jpg")).size == Size(80, 50))
        let uncut = try CommandRunner.run(["run", "-e", "resize 80x", "pan.\(format)", "-o", "uncut.jpg"], in: directory.path)
        #expect(uncut.status == 0, "\(uncut.standardError)")
    }

    // MARK: Outputs past their format's size

    /// libjpeg refuses a side past 65,500 pixels, libwebp past 16,383, only once the picture is
    /// made: refused by the plan, before the input is decoded (its data here is damaged, which a
    /// decode would have said first).
    @Test func anOutputTooLargeForItsFormatIsRefusedByThePlan() throws {
        let directory = try TemporaryDirectory()
        var png = try Synthetic.gradient(40, 4).encoded(as: .png)
        let idat = try #require((0..<png.count - 4).first { Array(png[$0..<$0 + 4]) == Array("IDAT".utf8) })
        png[idat + 10] ^= 0x5A
        _ = try directory.write(png, to: "in.png")
        let jpeg = try CommandRunner.run(["run", "-e", "resize 70000x4 fit=fill", "in.png", "-o", "wide.jpg"], in: directory.path)
        #expect(jpeg.status == 1)
        #expect(jpeg.standardError.contains("'wide.jpg' would be a 70000x4 JPEG, but JPEG holds at most 65500 pixels on a side (libjpeg's limit)"), "\(jpeg.standardError)")
        #expect(!jpeg.standardError.contains("corrupt"), "\(jpeg.standardError)")
        let webp = try CommandRunner.run(["run", "-e", "resize 4x20000 fit=fill | tee tall.webp | resize 4x", "in.png", "-o", "small.png"], in: directory.path)
        #expect(webp.status == 1)
        #expect(webp.standardError.contains("'tall.webp' would be a 4x20000 WebP, but WebP holds at most 16383 pixels on a side (libwebp's limit)"), "\(webp.standardError)")
        let explained = try CommandRunner.run(["explain", "-e", "resize 70000x4 fit=fill", "in.png", "-o", "wide.jpg"], in: directory.path)
        #expect(explained.status != 0)
        #expect(explained.standardError.contains("JPEG holds at most 65500 pixels on a side"), "\(explained.standardError)")
        let group = try CommandRunner.run(["run", "-e", "branch { resize 70000x4 fit=fill | save g.jpg } { save g.png }", "in.png"], in: directory.path)
        #expect(group.standardError.contains("'g.jpg' would be a 70000x4 JPEG"), "\(group.standardError)")
        #expect(try directory.contents().sorted() == ["in.png"])
        // At the limit, the plan lets it through (the decode then finds the damage).
        let within = try CommandRunner.run(["run", "-e", "resize 65500x4 fit=fill", "in.png", "-o", "wide.jpg"], in: directory.path)
        #expect(within.standardError.contains("corrupt"), "\(within.standardError)")
    }
}
