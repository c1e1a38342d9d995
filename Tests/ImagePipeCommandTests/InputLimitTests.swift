import Foundation
import Testing
import ImagePipe
import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// Limits hold before the work they bound: bytes read, pipeline text, animation frames, time.
@Suite struct InputLimitTests {
    private func seconds(since start: Date) -> Double { Date().timeIntervalSince(start) }

    @Test func endlessStandardInputFailsAtTheByteLimit() throws {
        let directory = try TemporaryDirectory()
        let start = Date()
        let result = try CommandRunner.runProgram("/bin/sh", ["-c", "exec '\(CommandRunner.binary)' run -e 'fit 10x10' - -o out.png < /dev/zero"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError == "imagepipe: -: too large: more than 268435456 bytes, the input limit (--max-input-bytes)\n")
        #expect(seconds(since: start) < 20)
        let small = try CommandRunner.runProgram("/bin/sh", ["-c", "exec '\(CommandRunner.binary)' run -e 'fit 10x10' - -o out.png --max-input-bytes 1M < /dev/zero"], in: directory.path)
        #expect(small.standardError == "imagepipe: -: too large: more than 1048576 bytes, the input limit (--max-input-bytes)\n")
        #expect(try directory.contents().isEmpty)
    }

    @Test func aFileOverTheByteLimitFailsAndTheBatchGoesOn() throws {
        let directory = try TemporaryDirectory()
        let noise = try Synthetic.image(64, 64) { x, y in Color(red: UInt8((x * 7919 + y * 104_729) & 255), green: UInt8((x * y * 31) & 255), blue: UInt8((x ^ y) & 255)) }
        _ = try directory.write(noise.encoded(as: .png), to: "big.png")
        _ = try directory.write(Synthetic.gradient(4, 4).encoded(as: .png), to: "small.png")
        let result = try CommandRunner.run(["run", "-e", "fit 2x2", "big.png", "small.png", "--out-dir", "out", "-o", "{stem}.png",
                                            "--max-input-bytes", "1K", "-q"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError == "imagepipe: big.png: too large: more than 1024 bytes, the input limit (--max-input-bytes)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out")) == ["small.png"])
        // A device is judged as it is read, and fails on its first bytes here: not a picture.
        let device = try CommandRunner.run(["run", "-e", "fit 2x2", "/dev/zero", "-o", "zero.png"], in: directory.path)
        #expect(device.status == 1)
        #expect(device.standardError == "imagepipe: /dev/zero: unsupported format: not a picture format ImagePipe recognizes by its first bytes\n")
        let bad = try CommandRunner.run(["run", "-e", "", "small.png", "-o", "x.png", "--max-input-bytes", "lots"], in: directory.path)
        #expect(bad.status == 2)
    }

    @Test func aLineOfErrorsGivesAFewMessagesFast() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("fit " + String(repeating: "$", count: 128 * 1024) + "\n", to: "dollars.pipe")
        let start = Date()
        let result = try CommandRunner.run(["check", "dollars.pipe"], in: directory.path)
        #expect(result.status == 2)
        #expect(seconds(since: start) < 20)
        #expect(result.standardError.utf8.count < 20_000, "\(result.standardError.utf8.count) bytes of diagnostics")
        // One error per `$`, and none for the size they leave empty.
        #expect(result.standardError.hasSuffix("… and \(128 * 1024 - PipelineSyntaxError.maxDiagnostics) more errors\n"), "\(result.standardError.suffix(200))")
    }

    @Test func variableExpansionIsBounded() throws {
        let value = String(repeating: "a", count: 100_000)
        let text = "fit " + String(repeating: "$X", count: 100)
        let error = try #require(throws: PipelineSyntaxError.self) { try StandardPlugins.compiler.compile(text, variables: ["X": value]) }
        #expect(error.diagnostics.contains { $0.message == "variables expand to more than 1048576 bytes of text here; is $X meant to be this long?" })
        #expect(error.description.utf8.count < 2_000, "\(error.description.utf8.count) bytes")
    }

    @Test func aMegabyteOfPipelineCompilesInLinearTime() throws {
        // 20,000 arguments to one stage took 11 s when each argument copied the ones before it.
        let arguments = (0..<20_000).map { "x\($0)=1" }.joined(separator: " ")
        var start = Date()
        let error = try #require(throws: PipelineSyntaxError.self) { try StandardPlugins.compiler.compile("fit " + arguments) }
        #expect(error.diagnostics.count == 1)
        #expect(seconds(since: start) < 3, "debug build")
        let stages = String(decoding: (0..<60_000).map { "fit \($0 % 500 + 1)x\($0 % 300 + 1) | circle-crop\n" }.joined().utf8.prefix(1_000_000), as: UTF8.self)
        let text = String(stages[..<stages.lastIndex(of: "\n")!])
        start = Date()
        let pipeline = try StandardPlugins.compiler.compile(text)
        #expect(pipeline.transforms.count > 40_000)
        #expect(seconds(since: start) < 15, "debug build; a release build takes well under a second")
        let tooLong = try #require(throws: PipelineSyntaxError.self) { try StandardPlugins.compiler.compile(String(repeating: "#", count: (1 << 20) + 1)) }
        #expect(tooLong.description.contains("the pipeline text is 1048577 bytes, more than the limit of 1048576"))
    }

    /// An animated WebP: `frames` 16x16 lossless frames on a `canvas`-sized canvas.
    /// An animated WebP: `frames` frames of `frameSide` pixels (a gradient) at (`offset`, `offset`) on the canvas.
    static func animatedWebP(canvas: Int, frames: Int, frameSide: Int = 16, offset: Int = 0) throws -> [UInt8] {
        let still = try Synthetic.gradient(frameSide, frameSide).encoded(as: .webp)
        let frame = Array(still[12...]) // the VP8/VP8L chunk after "RIFF....WEBP"
        func little(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] { Array(type.utf8) + little(data.count, 4) + data + (data.count % 2 == 1 ? [0] : []) }
        var body = chunk("VP8X", [0x02, 0, 0, 0] + little(canvas - 1, 3) + little(canvas - 1, 3)) + chunk("ANIM", [0, 0, 0, 0, 0, 0])
        for _ in 0..<frames {
            body += chunk("ANMF", little(offset / 2, 3) + little(offset / 2, 3) + little(frameSide - 1, 3) + little(frameSide - 1, 3)
                          + little(100, 3) + [0] + frame)
        }
        return Array("RIFF".utf8) + little(body.count + 4, 4) + Array("WEBP".utf8) + body
    }

    /// An animated GIF: `frames` frames, each covering the whole `width`x`height` canvas.
    static func animatedGIF(width: Int, height: Int, frames: Int) -> [UInt8] {
        func little16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        var bytes = Array("GIF89a".utf8) + little16(width) + little16(height) + [0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF]
        for _ in 0..<frames {
            bytes += [0x21, 0xF9, 0x04, 0x04, 0x0A, 0x00, 0x00, 0x00] // a delay
            bytes += [0x2C] + little16(0) + little16(0) + little16(width) + little16(height) + [0, 0x02, 0x01, 0x2C, 0x00] // clear, end
        }
        return bytes + [0x3B]
    }

    @Test func animationsDecodeTheirFirstFrameOnly() throws {
        let directory = try TemporaryDirectory()
        // 10 frames on an 8000x8000 canvas: gdk-pixbuf alone made them all, 2.7 GB, and crashed.
        let bomb = try Self.animatedWebP(canvas: 8000, frames: 10)
        #expect(bomb.count < 2048)
        _ = try directory.write(bomb, to: "bomb.webp")
        _ = try directory.write(Self.animatedGIF(width: 300, height: 200, frames: 50), to: "anim.gif")
        let explained = try CommandRunner.run(["explain", "-e", "fit 8x8", "bomb.webp"], in: directory.path)
        #expect(explained.status == 0, "\(explained.standardError)")
        // The first frame is placed on its canvas, as viewers show it: one canvas, not ten.
        #expect(explained.standardOutput.hasPrefix("bomb.webp: webp 8000x8000, an animated WebP of 10 frames\n"), "\(explained.standardOutput)")
        #expect(explained.standardOutput.contains("→ 8000x8000              its first frame decoded at full size;"), "\(explained.standardOutput)")
        let run = try CommandRunner.run(["run", "-e", "fit 8x8", "bomb.webp", "anim.gif", "--out-dir", "out", "-o", "{name}.bmp", "-q"], in: directory.path)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("imagepipe: warning: bomb.webp: an animated WebP of 10 frames: only the first frame is used (BMP holds one picture; write .gif, .webp, .avif or .png for every frame, or say load frames=first)\n"))
        #expect(run.standardError.contains("imagepipe: warning: anim.gif: an animated GIF of 50 frames: only the first frame is used (BMP holds one picture; write .gif, .webp, .avif or .png for every frame, or say load frames=first)\n"))
        #expect(try Image.load(path: directory.file("out/bomb.webp.bmp")).size == Size(8, 8))
        #expect(try Image.load(path: directory.file("out/anim.gif.bmp")).size == Size(8, 5))
        // Written as an animation, every frame counts against the pixel limit, before any is decoded.
        let animated = try CommandRunner.run(["run", "-e", "fit 8x8", "bomb.webp", "-o", "all.webp"], in: directory.path)
        #expect(animated.status == 1)
        #expect(animated.standardError.contains("10 frames of 8000x8000 are 640000000 pixels, more than the limit of \(LoadOptions.defaultMaxPixels)"), "\(animated.standardError)")
        // An animation cut inside its first frame: one line, no noise from the loader.
        _ = try directory.write(Array(bomb.prefix(70)), to: "cut.webp")
        let cut = try CommandRunner.run(["run", "-e", "", "cut.webp", "-o", "cut.png"], in: directory.path)
        #expect(cut.status == 1)
        #expect(cut.standardError == "imagepipe: cut.webp: corrupt image: an animated WebP whose first frame is missing or cut short\n")
        // From memory too.
        let header = try ImageHeader.read(bytes: bomb)
        #expect(header.frameCount == 10 && header.storedSize == Size(8000, 8000))
        #expect(try Image.decode(bomb).size == Size(8000, 8000))
    }

    /// An animation whose first frame is 10x10 at (50, 50) on a 100x100 canvas comes out as the
    /// canvas with the frame in its place, transparent around it (Pillow and libvips give that).
    @Test func anAnimatedWebPsFirstFrameSitsOnItsCanvas() throws {
        let bytes = try Self.animatedWebP(canvas: 100, frames: 3, frameSide: 10, offset: 50)
        #expect(try ImageHeader.read(bytes: bytes).storedSize == Size(100, 100))
        let picture = try Image.decode(bytes)
        let frame = try Image.decode(Synthetic.gradient(10, 10).encoded(as: .webp))
        #expect(picture.size == Size(100, 100))
        #expect(picture.pixel(x: 5, y: 5).alpha == 0 && picture.pixel(x: 99, y: 99).alpha == 0)
        let placed = picture.pixel(x: 53, y: 57), source = frame.pixel(x: 3, y: 7)
        #expect(placed.red == source.red && placed.green == source.green && placed.blue == source.blue && placed.alpha == 255)
        // Over the pixel limit as a canvas, however small the frame.
        #expect(throws: ImageError.self) { try Image.decode(bytes, options: LoadOptions(maxPixels: 5000)) }
    }

    /// Work that takes some 30 s on a 2500x2500 picture (a second a blur, optimized), stopped
    /// between its row pieces: what the time-limit tests cut.
    static let slowWork = Array(repeating: "blur 50", count: 30).joined(separator: " | ")

    @Test func aPictureOverTheTimeLimitFailsAndTheBatchGoesOn() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(2500, 2500).encoded(as: .png), to: "slow.png")
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "quick.png")
        // Thirty wide blurs of 6 megapixels take some 30 s of a core, so the limit of 2 s cuts
        // that picture and no other, however fast or busy the machine: the 8x8 picture takes
        // 0.03 s. A run that went on to the end would take far over 20 s.
        let slowWork = Self.slowWork
        let start = Date()
        let result = try CommandRunner.run(["run", "-e", slowWork, "slow.png", "quick.png", "--out-dir", "out",
                                            "-o", "{stem}.png", "--timeout", "2", "--jobs", "1", "-q"], in: directory.path)
        #expect(result.status == 1)
        #expect(result.standardError == "imagepipe: slow.png: timed out: took more than 2 s; nothing written (--timeout)\n")
        #expect(seconds(since: start) < 20, "the picture past its limit was stopped, not run to its end")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out")) == ["quick.png"], "no temporary or late file")
        let bad = try CommandRunner.run(["run", "-e", "", "quick.png", "-o", "x.png", "--timeout", "soon"], in: directory.path)
        #expect(bad.status == 2)
    }

    /// A writer that sends a byte a second never ends the read on its own: the timeout does.
    /// The writer never stops, so the run's ending at all, with the timeout's message, is the
    /// proof; `timeout 60` turns a hang into a failure instead of a stuck test.
    @Test func aTricklingStandardInputEndsAtTheTimeout() throws {
        let directory = try TemporaryDirectory()
        let script = "(while printf x; do sleep 1; done) | timeout 60 '\(CommandRunner.binary)' run -e 'fit 10x10' - -o out.png --timeout 2"
        let result = try CommandRunner.runProgram("/bin/sh", ["-c", script], in: directory.path)
        #expect(result.status == 1, "status 124 is the 60 s guard: the timeout never ended the read")
        #expect(result.standardError.hasPrefix("imagepipe: -: timed out: standard input was still open after 2 s, the time limit, with "), "\(result.standardError)")
        #expect(result.standardError.hasSuffix(" bytes read; nothing written (--timeout)\n"))
        #expect(try directory.contents().isEmpty)
    }

    /// Reading standard input and working on its picture share one limit: a slow writer leaves
    /// the picture only what is left of it (here 1 of 9 s, where the work needs far more).
    ///
    /// Had the picture a fresh limit once read, the run could not end before the writer's 8 s
    /// and a whole 9 s more; ending before 16 s is the behaviour, not a guess at how fast this
    /// machine is, and leaves 7 s for a busy one.
    @Test func standardInputAndItsPictureShareOneTimeout() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(3000, 3000).encoded(as: .png), to: "slow.png")
        let start = ContinuousClock.now
        let script = "(sleep 8; cat slow.png) | '\(CommandRunner.binary)' run -e '\(Self.slowWork)' - -o out.png --timeout 9"
        let result = try CommandRunner.runProgram("/bin/sh", ["-c", script], in: directory.path)
        let took = ContinuousClock.now - start
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError == "imagepipe: -: timed out: took more than 9 s; nothing written (--timeout)\n")
        #expect(took < .seconds(16), "\(took): the picture had a whole limit again after the read")
        #expect(try directory.contents() == ["slow.png"])
    }
}
