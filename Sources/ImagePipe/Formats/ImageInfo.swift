/// What `imagepipe info` shows of a picture file: format, size, orientation, color profile and
/// the EXIF facts people look for, read without decoding where the format allows.
public struct ImageInfo: Sendable {
    public var format: SourceFormat
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
    public var exif: ExifBlock.Summary?
    public var hasXMP: Bool

    /// Reads the file's header and metadata. JPEG, PNG and WebP are only scanned, HEIC and AVIF
    /// read through libheif's container parser; other formats (TIFF) are decoded.
    ///
    /// The file is read once, whole (within `maxInputBytes`): the header, the orientation, the
    /// metadata and the byte count all come from those bytes, where reading the header, then
    /// the orientation, then the metadata from the file read it two or three times.
    public static func read(path: String, options: LoadOptions = LoadOptions()) throws -> ImageInfo {
        let bytes = try ImageFile.readAll(path: path, limit: options.maxInputBytes, deadline: options.deadline)
        guard !bytes.isEmpty else { throw ImageError(.corrupt, path: path, reason: "the file is empty") }
        let header = try PixbufDecoder.header(of: bytes, options: options, path: path)
        guard let format = SourceFormat(rawValue: header.format) else {
            throw ImageError(.unsupported, path: path, reason: "\(header.format): not a known format")
        }
        let byteCount = bytes.count
        var metadata = ImageMetadata()
        if var scanner = MetadataScanner(format: format) {
            bytes.withUnsafeBytes { scanner.scan($0) }
            metadata = scanner.metadata
        } else if format.isHEIF {
            metadata = try HEIFDecoder.metadata(of: bytes, format: format, path: path)
        } else if format == .tiff {
            var keep = options
            keep.color = .keep
            metadata = try Image.decode(bytes, options: keep).metadata
        }
        let profile = metadata.sourceProfile.flatMap { try? ICCProfile(bytes: $0) }
        return ImageInfo(format: format, storedSize: header.storedSize, shownSize: header.decodedSize(applyingOrientation: true),
                         orientation: header.orientation, frameCount: header.frameCount, byteCount: byteCount,
                         profileName: profile.map { $0.name.isEmpty ? "(unnamed)" : $0.name }, profileSpace: profile?.space,
                         exif: metadata.exif.map { ExifBlock($0).summary }, hasXMP: metadata.xmp != nil)
    }

    /// The facts as JSON, keys in a fixed order.
    public var json: JSONValue {
        .object([
            ("format", .string(format.rawValue)),
            ("width", .number(Double(storedSize.width))), ("height", .number(Double(storedSize.height))),
            ("orientation", .number(Double(orientation))),
            ("shownWidth", .number(Double(shownSize.width))), ("shownHeight", .number(Double(shownSize.height))),
            ("frames", .number(Double(frameCount))), ("bytes", .number(Double(byteCount))),
            ("profile", profileName.map { name in .object([("name", .string(name)), ("space", .string(profileSpace?.rawValue ?? "other"))]) } ?? .null),
            ("exif", exif.map { exif in
                .object([("date", exif.date.map(JSONValue.string) ?? .null), ("camera", exif.camera.map(JSONValue.string) ?? .null),
                         ("gps", .bool(exif.hasGPS))])
            } ?? .null),
            ("xmp", .bool(hasXMP)),
        ])
    }

    /// The facts in lines of text.
    public var text: String {
        var lines = ["\(format.displayName) \(storedSize), \(byteCount) bytes"]
        if orientation != 1 { lines.append("orientation: \(orientation) (shown as \(shownSize))") }
        if frameCount > 1 { lines.append("frames: \(frameCount) (only the first is decoded)") }
        lines.append("color profile: " + (profileName.map { "\($0) (\(profileSpace?.rawValue ?? "other"))" } ?? "none (sRGB assumed)"))
        if let exif {
            lines.append("EXIF: date \(exif.date ?? "none"), camera \(exif.camera ?? "none"), GPS \(exif.hasGPS ? "yes" : "no")")
        } else {
            lines.append("EXIF: none")
        }
        lines.append("XMP: \(hasXMP ? "yes" : "none")")
        return lines.joined(separator: "\n")
    }
}
