import CExif

/// A TIFF-structured EXIF block: what `imagepipe info` shows of it (read with libexif), and the
/// orientation reset that `save keep=exif` needs.
///
/// Why libexif: it is a maintained C library (no C++ interop, unlike exiv2, whose extra reach —
/// XMP and IPTC editing — ImagePipe does not need: XMP is carried as an opaque packet), and it
/// reads every tag, maker-note offsets and all, far more thoroughly than a hand-written walker.
/// Writing goes the other way: the orientation is patched in place rather than re-serialised
/// through `exif_data_save_data`, which rewrites offsets and can drop maker notes it does not
/// know; a patch keeps every other byte as the camera wrote it.
package struct ExifBlock: Sendable {
    package let bytes: [UInt8]

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// What a quick look wants to know.
    package struct Summary: Equatable, Sendable {
        package var orientation: Int?
        package var date: String?
        package var camera: String?
        package var hasGPS: Bool
        package var lens: String?
        /// As libexif words them: `1/125 sec.`, `f/2.8`, `100`, `50.0 mm`.
        package var exposureTime: String?
        package var fNumber: String?
        package var iso: String?
        package var focalLength: String?
    }

    /// The orientation, date, camera make and model, whether there is a GPS position, the lens
    /// and the exposure.
    package var summary: Summary {
        var summary = Summary(orientation: nil, date: nil, camera: nil, hasGPS: false, lens: nil, exposureTime: nil, fNumber: nil, iso: nil, focalLength: nil)
        let data = withLibexif { data in
            summary.orientation = Self.value(data, EXIF_IFD_0, EXIF_TAG_ORIENTATION).flatMap { Int($0.prefix { $0.isNumber }) }
                ?? Self.orientationNumber(data)
            summary.date = Self.value(data, EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_ORIGINAL) ?? Self.value(data, EXIF_IFD_0, EXIF_TAG_DATE_TIME)
            let make = Self.value(data, EXIF_IFD_0, EXIF_TAG_MAKE), model = Self.value(data, EXIF_IFD_0, EXIF_TAG_MODEL)
            let parts = [make, model].compactMap { $0 }.filter { !$0.isEmpty }
            // Models often repeat the make ("Canon" "Canon EOS 5D").
            if let make, let model, model.hasPrefix(make) { summary.camera = model } else if !parts.isEmpty { summary.camera = parts.joined(separator: " ") }
            if let gps = Self.ifdContent(data, EXIF_IFD_GPS), gps.pointee.count > 0 { summary.hasGPS = true }
            summary.lens = Self.value(data, EXIF_IFD_EXIF, EXIF_TAG_LENS_MODEL)
            summary.exposureTime = Self.value(data, EXIF_IFD_EXIF, EXIF_TAG_EXPOSURE_TIME)
            summary.fNumber = Self.value(data, EXIF_IFD_EXIF, EXIF_TAG_FNUMBER)
            summary.iso = Self.value(data, EXIF_IFD_EXIF, EXIF_TAG_ISO_SPEED_RATINGS)
            summary.focalLength = Self.value(data, EXIF_IFD_EXIF, EXIF_TAG_FOCAL_LENGTH)
        }
        _ = data
        return summary
    }

    /// Runs `body` on the block as libexif reads it.
    private func withLibexif(_ body: (UnsafeMutablePointer<ExifData>) -> Void) -> Bool {
        let framed = MetadataScanner.exifMarker + bytes
        guard let data = framed.withUnsafeBufferPointer({ exif_data_new_from_data($0.baseAddress, UInt32($0.count)) }) else { return false }
        defer { exif_data_unref(data) }
        body(data)
        return true
    }

    private static func value(_ data: UnsafeMutablePointer<ExifData>, _ ifd: ExifIfd, _ tag: ExifTag) -> String? {
        guard let content = ifdContent(data, ifd), let entry = exif_content_get_entry(content, tag) else { return nil }
        var text = [CChar](repeating: 0, count: 256)
        guard exif_entry_get_value(entry, &text, UInt32(text.count)) != nil else { return nil }
        let value = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: " ")
        return value.isEmpty ? nil : value
    }

    private static func orientationNumber(_ data: UnsafeMutablePointer<ExifData>) -> Int? {
        guard let content = ifdContent(data, EXIF_IFD_0), let entry = exif_content_get_entry(content, EXIF_TAG_ORIENTATION),
              let raw = entry.pointee.data, entry.pointee.size >= 2 else { return nil }
        return Int(exif_get_short(raw, exif_data_get_byte_order(data)))
    }

    static func ifdContent(_ data: UnsafeMutablePointer<ExifData>, _ ifd: ExifIfd) -> UnsafeMutablePointer<ExifContent>? {
        withUnsafePointer(to: data.pointee.ifd) { tuple in
            tuple.withMemoryRebound(to: UnsafeMutablePointer<ExifContent>?.self, capacity: Int(EXIF_IFD_COUNT.rawValue)) { $0[Int(ifd.rawValue)] }
        }
    }

    /// Whether the block is TIFF-structured: a byte order, the number 42, and a first directory
    /// (after the 8-byte header) whose entries lie wholly inside the block, as ExifTool reads
    /// them: an empty directory is a valid block (ExifTool reads it without a warning), as is one
    /// whose next-directory pointer or a value lies past the end (ExifTool reads the rest); a
    /// directory that starts inside the header or runs past the end is not ("Malformed APP1 EXIF
    /// segment", "Bad IFD0 directory"). Random bytes are not.
    package var isWellFormed: Bool {
        guard bytes.count >= 8 else { return false }
        let little: Bool
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0x49, 0x49, 0x2A, 0x00): little = true
        case (0x4D, 0x4D, 0x00, 0x2A): little = false
        default: return false
        }
        func number(_ offset: Int, _ count: Int) -> Int {
            (0..<count).reduce(0) { value, index in
                little ? value | Int(bytes[offset + index]) << (8 * index) : value << 8 | Int(bytes[offset + index])
            }
        }
        let directory = number(4, 4)
        guard directory >= 8, directory + 2 <= bytes.count else { return false }
        let entries = number(directory, 2)
        return directory + 2 + 12 * entries <= bytes.count
    }

    /// The block with IFD0's orientation tag set to 1 (as stored = as shown), every other byte
    /// unchanged; the block itself when it has no such tag, or one not of type SHORT.
    package func withOrientationReset() -> ExifBlock {
        guard bytes.count >= 8, bytes[0] == bytes[1], bytes[0] == 0x49 || bytes[0] == 0x4D,
              let entry = ExifOrientation.orientationEntry(inTIFF: bytes, end: bytes.count),
              entry.type == 3, entry.valueOffset + 2 <= bytes.count else { return self }
        let little = bytes[0] == 0x49
        var bytes = self.bytes
        bytes[entry.valueOffset] = little ? 1 : 0
        bytes[entry.valueOffset + 1] = little ? 0 : 1
        return ExifBlock(bytes)
    }
}

private extension String {
    func trimmingCharacters(in set: Character) -> String {
        var text = Substring(self)
        while text.first == set { text.removeFirst() }
        while text.last == set { text.removeLast() }
        return String(text)
    }
}
