/// What `imagepipe info` shows of a picture file: format, size, orientation, color profile and
/// the EXIF facts people look for, read without decoding where the format allows.
public struct ImageInfo: Sendable {
    public var format: ImageFormat
    /// The stored size, before EXIF orientation.
    public var storedSize: Size
    /// The size as shown (turned by the EXIF orientation).
    public var shownSize: Size
    public var orientation: Int
    public var frameCount: Int
    public var byteCount: Int
    /// The embedded profile's name and color space, if any.
    public var profileName: String?
    public var profileSpace: ICCProfile.Space?
    package var exif: ExifBlock.Summary?
    /// Every EXIF tag, for `info --exif`, and the GPS position in signed decimal degrees.
    package var exifTags: [ExifBlock.Tag] = []
    package var gpsPosition: (latitude: Double, longitude: Double)?
    public var hasXMP: Bool
    /// Channels, bit depth, color space, JPEG quality and chroma, interlacing, DPI, frames.
    public var coding: CodingFacts

    /// Reads the file's header and metadata. JPEG, PNG and WebP are only scanned, HEIC and AVIF
    /// read through libheif's container parser, TIFF's first directory through libtiff.
    ///
    /// A regular file is read where its facts lie: a JPEG up to its first scan, a PNG's chunks
    /// without their pixels, a TIFF's first directory; other formats are read whole (within
    /// `maxInputBytes`). A FIFO or device is read once, whole.
    public static func read(path: String, options: LoadOptions = LoadOptions()) throws -> ImageInfo {
        guard let file = try OpenedFile.open(path: path, limit: options.maxInputBytes) else {
            return try read(bytes: try ImageFile.readAll(path: path, limit: options.maxInputBytes, deadline: options.deadline), path: path, options: options)
        }
        guard file.size > 0 else { throw ImageError(.corrupt, path: path, reason: "the file is empty") }
        let header = try ImageHeader.read(file: file, options: options)
        let (metadata, coding) = try Codecs.of(header.format).metadataAndCoding(of: file, options: options, path: path)
        return ImageInfo(header: header, byteCount: file.size, metadata: metadata, coding: coding)
    }

    /// The facts of a picture's `bytes` (standard input's, say); `path` names it in errors.
    public static func read(bytes: [UInt8], path: String, options: LoadOptions = LoadOptions()) throws -> ImageInfo {
        guard !bytes.isEmpty else { throw ImageError(.corrupt, path: path, reason: "the file is empty") }
        let header = try Codecs.header(of: bytes, options: options, path: path)
        let codec = Codecs.of(header.format)
        return ImageInfo(header: header, byteCount: bytes.count, metadata: try codec.metadata(of: bytes, path: path), coding: codec.codingFacts(of: bytes))
    }

    private init(header: ImageHeader, byteCount: Int, metadata: ImageMetadata, coding: CodingFacts) {
        let profile = metadata.sourceProfile.flatMap { try? ICCProfile(bytes: $0) }
        let exif = metadata.exif.map(ExifBlock.init)
        (format, storedSize, shownSize) = (header.format, header.storedSize, header.decodedSize(applyingOrientation: true))
        (orientation, frameCount, self.byteCount) = (header.orientation, header.frameCount, byteCount)
        (profileName, profileSpace) = (profile.map { $0.name.isEmpty ? "(unnamed)" : $0.name }, profile?.space)
        (self.exif, exifTags, gpsPosition) = (exif?.summary, exif?.tags ?? [], exif?.gpsPosition)
        (hasXMP, self.coding) = (metadata.xmp != nil, coding)
    }

    /// What the pixels are taken to be without a profile: sRGB for color, and what a gray or
    /// CMYK file is converted by.
    var assumedColor: String {
        switch coding.colorSpace {
        case "gray": "none (gray, shown as sRGB gray)"
        case "CMYK", "YCCK": "none (\(coding.colorSpace!), converted by the plain formula, as ImageMagick does)"
        default: "none (sRGB assumed)"
        }
    }

    /// `3 channels (YCbCr), 8 bits, 4:2:0, progressive, quality 75`
    var codingLine: String? {
        var parts: [String] = []
        if let channels = coding.channels {
            let space = coding.colorSpace.map { " (\($0)\(coding.hasAlpha == true ? ", alpha" : ""))" } ?? ""
            parts.append("\(channels) channel\(channels == 1 ? "" : "s")\(space)")
        }
        if let bits = coding.bitDepth { parts.append("\(bits) bit\(bits == 1 ? "" : "s")\(coding.colorSpace == "palette" ? " palette" : "")") }
        if let chroma = coding.chroma { parts.append(chroma) }
        if let interlaced = coding.interlaced {
            let words = Codecs.of(format).interlacingWords
            parts.append(interlaced ? words.yes : words.no)
        }
        if let lossless = coding.lossless { parts.append(lossless ? "lossless" : "lossy") }
        if let quality = coding.jpegQuality { parts.append("quality \(quality)") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// The facts as JSON, keys in a fixed order.
    public var json: JSONValue { json(listingEXIF: false) }

    /// The facts as JSON; with `listingEXIF`, every EXIF tag too (`"exifTags"`: directory,
    /// tag number, name and value in words).
    public func json(listingEXIF: Bool) -> JSONValue {
        guard case let .object(pairs) = summaryJSON, listingEXIF else { return summaryJSON }
        let tags = exifTags.map { tag in
            JSONValue.object([("directory", .string(tag.directory)), ("tag", .number(Double(tag.number))),
                              ("name", .string(tag.name)), ("value", .string(tag.value))])
        }
        return .object(pairs + [("exifTags", .array(tags))])
    }

    private var summaryJSON: JSONValue {
        .object([
            ("format", .string(format.rawValue)),
            ("width", .number(Double(storedSize.width))), ("height", .number(Double(storedSize.height))),
            ("orientation", .number(Double(orientation))),
            ("shownWidth", .number(Double(shownSize.width))), ("shownHeight", .number(Double(shownSize.height))),
            ("frames", .number(Double(frameCount))), ("bytes", .number(Double(byteCount))),
            ("profile", profileName.map { name in .object([("name", .string(name)), ("space", .string(profileSpace?.rawValue ?? "other"))]) } ?? .null),
            ("exif", exif.map { exif in
                func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
                return .object([("date", text(exif.date)), ("camera", text(exif.camera)), ("gps", .bool(exif.hasGPS)),
                                // Six decimals (about 10 cm), as the text shows it.
                                ("gpsPosition", gpsPosition.map { position in
                                    .array([position.latitude, position.longitude].map { .number(($0 * 1_000_000).rounded() / 1_000_000) })
                                } ?? .null),
                                ("lens", text(exif.lens)), ("exposureTime", text(exif.exposureTime)), ("fNumber", text(exif.fNumber)),
                                ("iso", text(exif.iso)), ("focalLength", text(exif.focalLength))])
            } ?? .null),
            ("xmp", .bool(hasXMP)),
            ("coding", codingJSON),
        ])
    }

    private var codingJSON: JSONValue {
        func number(_ value: Int?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }
        func flag(_ value: Bool?) -> JSONValue { value.map(JSONValue.bool) ?? .null }
        return .object([
            ("channels", number(coding.channels)), ("alpha", flag(coding.hasAlpha)), ("bitDepth", number(coding.bitDepth)),
            ("colorSpace", coding.colorSpace.map(JSONValue.string) ?? .null),
            ("jpegQuality", number(coding.jpegQuality)), ("chroma", coding.chroma.map(JSONValue.string) ?? .null),
            ("interlaced", flag(coding.interlaced)), ("lossless", flag(coding.lossless)),
            ("dpi", coding.dpi.map { .array([.number($0.x), .number($0.y)]) } ?? .null),
            ("delays", .array(coding.delays.map { .number(Double($0)) })), ("plays", number(coding.plays)),
            ("colorChunks", .array(coding.colorChunks.map(JSONValue.string))),
        ])
    }

    /// The facts in lines of text.
    public var text: String { text(listingEXIF: false) }

    /// The facts in lines of text; with `listingEXIF`, a line for every EXIF tag after them
    /// (`IFD0 Make: Canon`), the directories named as `exiftool -G1` names them.
    public func text(listingEXIF: Bool) -> String {
        var lines = ["\(format.displayName) \(storedSize), \(byteCount) bytes"]
        if orientation != 1 { lines.append("orientation: \(orientation) (shown as \(shownSize))") }
        if let codingLine { lines.append("coding: \(codingLine)") }
        if let dpi = coding.dpi {
            // PNG stores pixels per metre: 3780 is 96.012 dpi, shown as the 96 it was meant as.
            let (x, y) = (NumberFormat.text((dpi.x * 10).rounded() / 10), NumberFormat.text((dpi.y * 10).rounded() / 10))
            lines.append("resolution: \(x == y ? x : "\(x)x\(y)") dpi")
        }
        if frameCount > 1 { lines.append("frames: \(Self.framesText(count: frameCount, coding: coding))") }
        lines.append("color profile: " + (profileName.map { "\($0) (\(profileSpace?.rawValue ?? "other"))" } ?? assumedColor))
        if !coding.colorChunks.isEmpty { lines.append("PNG color chunks: \(coding.colorChunks.joined(separator: ", "))") }
        if let exif {
            let position = gpsPosition.map { " (\(ExifBlock.positionText($0)))" } ?? ""
            lines.append("EXIF: date \(exif.date ?? "none"), camera \(exif.camera ?? "none"), GPS \(exif.hasGPS ? "yes" + position : "no")")
            let exposure = [exif.lens.map { "lens \($0)" }, exif.exposureTime, exif.fNumber, exif.iso.map { "ISO \($0)" }, exif.focalLength].compactMap { $0 }
            if !exposure.isEmpty { lines.append("exposure: \(exposure.joined(separator: ", "))") }
        } else {
            lines.append("EXIF: none")
        }
        lines.append("XMP: \(hasXMP ? "yes" : "none")")
        if listingEXIF {
            lines.append("EXIF tags: \(exifTags.isEmpty ? "none" : String(exifTags.count))")
            lines += exifTags.map { "  \($0.directory) \($0.name): \($0.value)" }
        }
        return lines.joined(separator: "\n")
    }

    /// `100 ms each`, or the first few delays: `100, 200, 100 ms …`
    /// `12, delays 100 ms each, loops forever`: an animation's frames as `info` and `explain`
    /// show them.
    public static func framesText(count: Int, coding: CodingFacts) -> String {
        let delays = coding.delays.isEmpty ? "" : ", delays \(delaysText(coding.delays))"
        let loops = coding.plays.map { $0 == 0 ? ", loops forever" : ", plays \($0) time\($0 == 1 ? "" : "s")" } ?? ", plays once"
        return "\(count)\(delays)\(loops)"
    }

    static func delaysText(_ delays: [Int]) -> String {
        if Set(delays).count == 1 { return "\(delays[0]) ms each" }
        let shown = delays.prefix(8).map(String.init).joined(separator: ", ")
        return "\(shown) ms\(delays.count > 8 ? " …" : "")"
    }
}
