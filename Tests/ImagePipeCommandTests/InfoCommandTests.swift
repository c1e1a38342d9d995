import Foundation
import ImagePipe
import Testing
import TestSupport

/// `imagepipe info` on every readable format, in text and JSON.
@Suite struct InfoCommandTests {
    /// One small file of every format ImagePipe reads: the writable ones by ImagePipe, HEIC by
    /// libheif, the rest written out by hand (their layouts are simple), with the size each holds.
    static func everyReadableFormat(in directory: TemporaryDirectory) throws -> [ImageFormat: (name: String, size: Size)] {
        let picture = try Synthetic.gradient(30, 20)
        let size = Size(30, 20)
        var files: [ImageFormat: (name: String, size: Size)] = [:]
        for format in ImageFormat.encodable {
            let name = "picture.\(format.rawValue)"
            _ = try directory.write(picture.encoded(as: format), to: name)
            files[format] = (name, size)
        }
        try HEICWriter.write(picture, to: directory.file("picture.heic"))
        files[.heif] = ("picture.heic", size)
        func little32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        func big32(_ value: Int) -> [UInt8] { little32(value).reversed() }
        var rgb: [UInt8] = []
        for y in 0..<20 { for x in 0..<30 { let c = picture.pixel(x: x, y: y); rgb += [c.red, c.green, c.blue] } }
        _ = try directory.write(Array("P6\n30 20\n255\n".utf8) + rgb, to: "picture.ppm")
        files[.pnm] = ("picture.ppm", size)
        // TGA: an 18-byte header (uncompressed true color, 24 bits) and BGR rows.
        var tga: [UInt8] = [0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 30, 0, 20, 0, 24, 0]
        for i in stride(from: 0, to: rgb.count, by: 3) { tga += [rgb[i + 2], rgb[i + 1], rgb[i]] }
        _ = try directory.write(tga, to: "picture.tga")
        files[.tga] = ("picture.tga", size)
        let bits = [String](repeating: "0x55", count: 4 * 20)
        let rows = stride(from: 0, to: bits.count, by: 12).map { bits[$0..<min($0 + 12, bits.count)].joined(separator: ", ") }
        _ = try directory.write("#define p_width 30\n#define p_height 20\nstatic unsigned char p_bits[] = {\n   "
                                + rows.joined(separator: ",\n   ") + " };\n", to: "picture.xbm")
        files[.xbm] = ("picture.xbm", size)
        let xpmRows = (0..<20).map { y in "\"" + String((0..<30).map { ($0 + y) % 2 == 0 ? "a" : "b" }) + "\"" }
        _ = try directory.write("/* XPM */\nstatic char *p[] = {\n\"30 20 2 1\",\n\"a c #FF0000\",\n\"b c #0000FF\",\n"
                                + xpmRows.joined(separator: ",\n") + "\n};\n", to: "picture.xpm")
        files[.xpm] = ("picture.xpm", size)
        _ = try directory.write("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"30\" height=\"20\"><rect width=\"30\" height=\"20\" fill=\"#c86432\"/></svg>",
                                to: "picture.svg")
        files[.svg] = ("picture.svg", size)
        // ICNS: one 256x256 PNG entry ('ic08'; gdk-pixbuf takes PNG entries of 256 px and up).
        let png256 = try Synthetic.gradient(256, 256).encoded(as: .png)
        let entry = Array("ic08".utf8) + big32(8 + png256.count) + png256
        _ = try directory.write(Array("icns".utf8) + big32(8 + entry.count) + entry, to: "picture.icns")
        files[.icns] = ("picture.icns", Size(256, 256))
        // ANI: a RIFF 'ACON' with its 36-byte header and one ICO frame.
        let ico = try picture.encoded(as: .ico)
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] { Array(type.utf8) + little32(data.count) + data + (data.count % 2 == 1 ? [0] : []) }
        let header = [36, 1, 1, 30, 20, 0, 0, 10, 1].flatMap(little32)
        let body = Array("ACON".utf8) + chunk("anih", header) + chunk("LIST", Array("fram".utf8) + chunk("icon", ico))
        _ = try directory.write(Array("RIFF".utf8) + little32(body.count) + body, to: "picture.ani")
        files[.ani] = ("picture.ani", size)
        // QuickTime image: an 'idsc' atom describing a PNG, then the PNG in 'idat'.
        let png = try picture.encoded(as: .png)
        let description = big32(86) + Array("png ".utf8) + [UInt8](repeating: 0, count: 78)
        _ = try directory.write(big32(8 + description.count) + Array("idsc".utf8) + description + big32(8 + png.count) + Array("idat".utf8) + png,
                                to: "picture.qtif")
        files[.qtif] = ("picture.qtif", size)
        return files
    }

    @Test func infoReadsEveryFormat() throws {
        let directory = try TemporaryDirectory()
        let files = try Self.everyReadableFormat(in: directory)
        #expect(Set(files.keys) == Set(ImageFormat.allCases), "a file for every readable format")
        let all = ImageFormat.allCases.map(\.rawValue).joined(separator: ",")
        for (format, (name, size)) in files.sorted(by: { $0.key < $1.key }) {
            let result = try CommandRunner.run(["info", "--json", "--allow-format", all, directory.file(name)])
            #expect(result.status == 0, "\(name): \(result.standardError)")
            let json = try #require(JSONValue.parse(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)), "\(name)")
            #expect(json["format"]?.stringValue == format.loaderName, "\(name): \(result.standardOutput)")
            #expect(json["width"]?.numberValue == Double(size.width) && json["height"]?.numberValue == Double(size.height), "\(name)")
            if [.heif, .avif, .tiff, .bmp, .png, .jpeg, .webp, .gif].contains(format) {
                // Every picture of the stock formats tells how it is coded.
                #expect(json["coding"]?["channels"]?.numberValue != nil && json["coding"]?["bitDepth"]?.numberValue != nil, "\(name): \(json["coding"]?.text ?? "")")
            }
            // The text form too, and the picture decodes as the header says.
            let text = try CommandRunner.run(["info", "--allow-format", all, directory.file(name)])
            #expect(text.status == 0 && text.standardOutput.contains("\(size.width)x\(size.height)"), "\(name): \(text.standardOutput)")
            let decoded = try Image.load(path: directory.file(name), options: LoadOptions(allowedFormats: Set(ImageFormat.allCases)))
            #expect(decoded.size == size, "\(name)")
        }
    }

    @Test func infoShowsProfileOrientationAndExif() throws {
        let directory = try TemporaryDirectory()
        let p3 = ColorReference.displayP3()
        let jpeg = try Synthetic.gradient(40, 20).withMetadata(ImageMetadata(iccProfile: p3)).encoded(as: .jpeg)
        let path = try directory.write(Synthetic.withExifOrientation(jpeg, orientation: 6), to: "phone.jpg")
        let text = try CommandRunner.run(["info", path])
        #expect(text.status == 0)
        #expect(text.standardOutput.contains("JPEG 40x20"))
        #expect(text.standardOutput.contains("orientation: 6 (shown as 20x40)"))
        #expect(text.standardOutput.contains("color profile: Display P3 (rgb)"))
        #expect(text.standardOutput.contains("EXIF: date none, camera none, GPS no"))
        let json = try #require(JSONValue.parse(CommandRunner.run(["info", "--json", path]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(json["profile"]?["name"]?.stringValue == "Display P3")
        #expect(json["orientation"]?.numberValue == 6 && json["shownWidth"]?.numberValue == 20)
        // A GPS position, written by ExifTool, is seen (libexif's GPS IFD, not its interoperability IFD).
        try ExifTool.write(path, ["-GPSLatitude=48.1", "-GPSLatitudeRef=N", "-Make=ImagePipeCam"])
        let located = try CommandRunner.run(["info", path])
        #expect(located.standardOutput.contains("camera ImagePipeCam, GPS yes"), "\(located.standardOutput)")
        let missing = try CommandRunner.run(["info", directory.file("none.png")])
        #expect(missing.status == 1 && missing.standardError.contains("none.png"))
    }

    /// How each file is coded, from files another library wrote (Pillow) with known settings:
    /// what the file's headers say, as vipsheader and identify report it.
    @Test func infoTellsHowAFileIsCoded() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(64, 48).encoded(as: .png), to: "source.png")
        let d = directory.path
        try ColorReference.python("""
            from PIL import Image
            im = Image.open('\(d)/source.png').convert('RGB')
            im.save('\(d)/q75.jpg', quality=75, dpi=(300, 300))
            im.save('\(d)/q92.jpg', quality=92, subsampling=0, progressive=True)
            im.convert('L').save('\(d)/gray.jpg', quality=80)
            im.convert('CMYK').save('\(d)/cmyk.jpg', quality=85)
            im.save('\(d)/plain.png', dpi=(96, 96))
            im.convert('RGBA').save('\(d)/rgba.png')
            im.convert('P').save('\(d)/palette.png', transparency=0)
            frames = [im.crop((i * 4, 0, i * 4 + 32, 32)) for i in range(5)]
            frames[0].save('\(d)/anim.gif', save_all=True, append_images=frames[1:], duration=[100, 200, 100, 100, 50], loop=3)
            frames[0].save('\(d)/anim.webp', save_all=True, append_images=frames[1:], duration=80, loop=0, lossless=True)
            im.save('\(d)/lossy.webp', quality=80)
            im.convert('RGBA').save('\(d)/rgba.tif', dpi=(150, 150))
            im.convert('L').save('\(d)/gray.tif')
            im.save('\(d)/plain.bmp')
            """)
        func info(_ name: String) throws -> (text: String, coding: JSONValue?) {
            let text = try CommandRunner.run(["info", directory.file(name)])
            #expect(text.status == 0, "\(name): \(text.standardError)")
            let json = JSONValue.parse(try CommandRunner.run(["info", "--json", directory.file(name)]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
            return (text.standardOutput, json?["coding"])
        }
        let expected: [(String, String, [String: JSONValue])] = [
            ("q75.jpg", "coding: 3 channels (YCbCr), 8 bits, 4:2:0, baseline, quality 75\n  resolution: 300 dpi",
             ["jpegQuality": .number(75), "chroma": .string("4:2:0"), "interlaced": .bool(false), "dpi": .array([.number(300), .number(300)])]),
            ("q92.jpg", "coding: 3 channels (YCbCr), 8 bits, 4:4:4, progressive, quality 92", ["jpegQuality": .number(92), "interlaced": .bool(true)]),
            ("gray.jpg", "coding: 1 channel (gray), 8 bits, baseline, quality 80", ["colorSpace": .string("gray"), "channels": .number(1)]),
            ("cmyk.jpg", "coding: 4 channels (CMYK), 8 bits, baseline, quality 85", ["colorSpace": .string("CMYK"), "alpha": .bool(false)]),
            ("plain.png", "coding: 3 channels (RGB), 8 bits, not interlaced\n  resolution: 96 dpi", ["alpha": .bool(false)]),
            ("rgba.png", "coding: 4 channels (RGB, alpha), 8 bits, not interlaced", ["alpha": .bool(true)]),
            ("palette.png", "coding: 1 channel (palette, alpha), 8 bits palette, not interlaced", ["colorSpace": .string("palette")]),
            ("anim.gif", "frames: 5, delays 100, 200, 100, 100, 50 ms, plays 4 times",
             ["delays": .array([100, 200, 100, 100, 50].map { .number($0) }), "plays": .number(4)]),
            ("anim.webp", "frames: 5, delays 80 ms each, loops forever", ["lossless": .bool(true), "plays": .number(0)]),
            ("lossy.webp", "coding: 3 channels (YCbCr), 8 bits, lossy", ["lossless": .bool(false), "delays": .array([])]),
            ("rgba.tif", "coding: 4 channels (RGB, alpha), 8 bits\n  resolution: 150 dpi", ["alpha": .bool(true)]),
            ("gray.tif", "coding: 1 channel (gray), 8 bits", ["alpha": .bool(false), "channels": .number(1)]),
            ("plain.bmp", "coding: 3 channels (RGB), 8 bits", ["alpha": .bool(false)]),
        ]
        for (name, line, fields) in expected {
            let (text, coding) = try info(name)
            #expect(text.contains(line), "\(name): \(text)")
            for (key, value) in fields { #expect(coding?[key] == value, "\(name) \(key): \(coding?.text ?? "nil")") }
        }
        // Gray and CMYK files without a profile say what they are taken as, not "sRGB assumed".
        #expect(try info("gray.jpg").text.contains("color profile: none (gray, shown as sRGB gray)"))
        #expect(try info("cmyk.jpg").text.contains("color profile: none (CMYK, converted by the plain formula, as ImageMagick does)"))
        // The exposure, as ExifTool writes it.
        try ExifTool.write(directory.file("q75.jpg"), ["-ExposureTime=1/125", "-FNumber=2.8", "-ISO=200", "-FocalLength=50", "-LensModel=Test Lens 50mm"])
        let exposure = try info("q75.jpg").text
        #expect(exposure.contains("exposure: lens Test Lens 50mm, 1/125 sec., f/2.8, ISO 200, 50.0 mm"), "\(exposure)")
    }

    /// The file is read once: a pipe, which gives its bytes only once, is told of as fully as a
    /// file (header, orientation, profile and the byte count all from that one read).
    @Test func infoReadsTheFileOnce() throws {
        let p3 = ColorReference.displayP3()
        let jpeg = Synthetic.withExifOrientation(try Synthetic.gradient(300, 200).withMetadata(ImageMetadata(iccProfile: p3)).encoded(as: .jpeg),
                                                 orientation: 6)
        let piped = try CommandRunner.run(["info", "--json", "/dev/stdin"], input: jpeg)
        #expect(piped.status == 0, "\(piped.standardError)")
        let json = try #require(JSONValue.parse(piped.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(json["bytes"]?.numberValue == Double(jpeg.count))
        #expect(json["width"]?.numberValue == 300 && json["orientation"]?.numberValue == 6 && json["shownWidth"]?.numberValue == 200)
        #expect(json["profile"]?["name"]?.stringValue == "Display P3")
    }

    /// A file is read only where its facts lie: a JPEG to its first scan, a PNG's chunks without
    /// their pixels, a TIFF's first directory. Each file here is 64 GiB long, its pixels a hole
    /// that takes no disc (a PNG with four 2 GiB IDAT chunks, then an EXIF chunk; a JPEG and a
    /// TIFF with a hole after their end): read whole, it could not be held.
    @Test func infoReadsAFileOnlyWhereItsFactsLie() throws {
        let directory = try TemporaryDirectory()
        let picture = try Synthetic.gradient(40, 20).withMetadata(ImageMetadata(iccProfile: ColorReference.displayP3()))
        let hole: UInt64 = 64 << 30
        func write(_ parts: [(offset: UInt64, bytes: [UInt8])], length: UInt64, to name: String) throws -> String {
            let path = directory.file(name)
            #expect(FileManager.default.createFile(atPath: path, contents: nil))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            for part in parts {
                try handle.seek(toOffset: part.offset)
                try handle.write(contentsOf: part.bytes)
            }
            try handle.truncate(atOffset: length)
            try handle.close()
            return path
        }
        let jpeg = Synthetic.withExifOrientation(try picture.encoded(as: .jpeg), orientation: 6)
        let tiff = try picture.encoded(as: .tiff)
        // The PNG: its chunks to the first IDAT, four IDATs of 2 GiB each (holes), an eXIf, IEND.
        let png = try picture.encoded(as: .png)
        let idat = try #require((8..<png.count - 4).first { Array(png[$0..<$0 + 4]) == Array("IDAT".utf8) }) - 4
        let exif = Array(jpeg[jpeg.firstRange(of: Array("Exif\0\0".utf8))!.upperBound...].prefix(26))
        func chunk(_ type: String, length: Int, _ data: [UInt8] = []) -> [UInt8] {
            [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) } + Array(type.utf8) + data + [0, 0, 0, 0]
        }
        let pixelChunk = UInt64(Int32.max)
        var parts: [(offset: UInt64, bytes: [UInt8])] = [(0, Array(png[..<idat]))]
        var offset = UInt64(idat)
        for _ in 0..<4 {
            parts.append((offset, Array(chunk("IDAT", length: Int(pixelChunk)).prefix(8))))
            offset += 12 + pixelChunk
        }
        let tail = chunk("eXIf", length: exif.count, exif) + chunk("IEND", length: 0)
        parts.append((offset, tail))
        let files = [("jpeg.jpg", try write([(0, jpeg)], length: hole, to: "jpeg.jpg")),
                     ("tiff.tif", try write([(0, tiff)], length: hole, to: "tiff.tif")),
                     ("png.png", try write(parts, length: offset + UInt64(tail.count), to: "png.png"))]
        for (name, path) in files {
            let info = try ImageInfo.read(path: path, options: LoadOptions(maxInputBytes: nil))
            #expect(info.storedSize == Size(40, 20) && info.byteCount > Int(Int32.max) * 4, "\(name)")
            #expect(info.profileName == "Display P3", "\(name)")
            #expect(info.coding.channels == 3 && info.coding.bitDepth == 8, "\(name)")
            if name != "tiff.tif" { #expect(info.exif?.orientation == 6, "\(name): the EXIF after the pixels") }
        }
    }

    /// `info --exif` lists every EXIF tag by directory, as many in each as ExifTool finds there,
    /// and the GPS position as signed coordinates (west negative), in text and JSON.
    @Test func exifListsEveryTagAndThePosition() throws {
        let directory = try TemporaryDirectory()
        let (input, _) = try MetadataKeepTests.cameraJPEG(in: directory)
        try ExifTool.write(input, ["-GPSLongitude=11.5", "-GPSLongitudeRef=W", "-ExifImageWidth=40", "-LensModel=Test 50mm"])
        let text = try CommandRunner.run(["info", "--exif", input])
        #expect(text.status == 0, "\(text.standardError)")
        for line in ["GPS yes (48.1, -11.5)", "    IFD0 Make: ImagePipeCam", "    IFD0 Model: T1", "    ExifIFD DateTimeOriginal: 2024:05:06 07:08:09",
                     "    ExifIFD LensModel: Test 50mm", "    GPS GPSLatitudeRef: N"] {
            #expect(text.standardOutput.contains(line), "\(line) in \(text.standardOutput)")
        }
        // Without --exif, the summary only.
        let plain = try CommandRunner.run(["info", input]).standardOutput
        #expect(!plain.contains("EXIF tags") && plain.contains("GPS yes (48.1, -11.5)"), "\(plain)")
        let json = try #require(JSONValue.parse(CommandRunner.run(["info", "--json", "--exif", input]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(json["exif"]?["gpsPosition"] == .array([.number(48.1), .number(-11.5)]))
        let tags = try #require(json["exifTags"]?.arrayValue)
        #expect(tags.contains { $0["directory"]?.stringValue == "IFD0" && $0["name"]?.stringValue == "Make" && $0["tag"]?.numberValue == 0x010F
            && $0["value"]?.stringValue == "ImagePipeCam" })
        let summaryOnly = try #require(JSONValue.parse(CommandRunner.run(["info", "--json", input]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(summaryOnly["exifTags"] == nil)
        // As many tags in each directory as ExifTool lists there (its -G1 groups).
        let reference = try CommandRunner.runProgram(ExifTool.program, ["-j", "-G1", "-EXIF:all", input])
        let exiftool = try #require(JSONValue.parse(reference.standardOutput)?.arrayValue?.first?.objectKeys)
        for group in ["IFD0", "ExifIFD", "GPS"] {
            let theirs = exiftool.filter { $0.hasPrefix(group + ":") }.count
            let ours = tags.filter { $0["directory"]?.stringValue == group }.count
            #expect(theirs > 0 && ours == theirs, "\(group): \(ours) tags listed, ExifTool lists \(theirs): \(exiftool.sorted())")
        }
    }
}
