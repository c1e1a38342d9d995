import CExif

/// Every tag of an EXIF block as libexif names and words it, for `imagepipe info --exif`, and
/// the GPS position as coordinates.
extension ExifBlock {
    /// One tag: its directory (`IFD0`, `ExifIFD`, `GPS`, `InteropIFD`, `IFD1`), number, name
    /// and value in words (`Rotate 90 CW` is libexif's `Right-top`; `1/125 sec.`).
    package struct Tag: Equatable, Sendable {
        package var directory: String
        package var number: Int
        package var name: String
        package var value: String
    }

    /// The tags in the order of their directories, each directory's in the file's order.
    package var tags: [Tag] {
        var tags: [Tag] = []
        withLibexifAsStored { data in
            // The directories as `exiftool -G1` names them.
            for (ifd, directory) in [(EXIF_IFD_0, "IFD0"), (EXIF_IFD_EXIF, "ExifIFD"), (EXIF_IFD_GPS, "GPS"),
                                     (EXIF_IFD_INTEROPERABILITY, "InteropIFD"), (EXIF_IFD_1, "IFD1")] {
                guard let content = Self.ifdContent(data, ifd), let entries = content.pointee.entries else { continue }
                for index in 0..<Int(content.pointee.count) {
                    guard let entry = entries[index] else { continue }
                    let number = Int(entry.pointee.tag.rawValue)
                    let name = exif_tag_get_name_in_ifd(entry.pointee.tag, ifd).map { String(cString: $0) } ?? Self.hex(number)
                    var text = [CChar](repeating: 0, count: 1024)
                    let value = exif_entry_get_value(entry, &text, UInt32(text.count)) != nil ? Self.printable(text) : ""
                    tags.append(Tag(directory: directory, number: number, name: name, value: value))
                }
            }
        }
        return tags
    }

    /// The GPS position in signed decimal degrees (south and west negative), as maps take it;
    /// nil without a latitude and longitude of three rationals each.
    package var gpsPosition: (latitude: Double, longitude: Double)? {
        var position: (latitude: Double, longitude: Double)?
        withLibexifAsStored { data in
            guard let gps = Self.ifdContent(data, EXIF_IFD_GPS) else { return }
            let order = exif_data_get_byte_order(data)
            func degrees(_ tag: UInt32, reference: UInt32, negative: UInt8) -> Double? {
                guard let entry = exif_content_get_entry(gps, ExifTag(rawValue: tag)), entry.pointee.format == EXIF_FORMAT_RATIONAL,
                      entry.pointee.components == 3, let raw = entry.pointee.data, entry.pointee.size >= 24 else { return nil }
                var value = 0.0
                for (index, scale) in [1.0, 60, 3600].enumerated() {
                    let rational = exif_get_rational(raw + 8 * index, order)
                    guard rational.denominator != 0 else { return nil }
                    value += Double(rational.numerator) / Double(rational.denominator) / scale
                }
                let side = exif_content_get_entry(gps, ExifTag(rawValue: reference)).flatMap { $0.pointee.data?.pointee }
                return side == negative ? -value : value
            }
            // 2 latitude, 1 its N/S; 4 longitude, 3 its E/W.
            guard let latitude = degrees(2, reference: 1, negative: UInt8(ascii: "S")), let longitude = degrees(4, reference: 3, negative: UInt8(ascii: "W")),
                  abs(latitude) <= 90, abs(longitude) <= 180 else { return }
            position = (latitude, longitude)
        }
        return position
    }

    /// `48.1, -11.5`: six decimals at most (about 10 cm).
    package static func positionText(_ position: (latitude: Double, longitude: Double)) -> String {
        func text(_ value: Double) -> String { NumberFormat.text((value * 1_000_000).rounded() / 1_000_000) }
        return "\(text(position.latitude)), \(text(position.longitude))"
    }

    /// Runs `body` on the block as stored: libexif neither adds the tags the standard asks for
    /// nor drops those it does not know, as its defaults would, so the listing is the file's.
    private func withLibexifAsStored(_ body: (UnsafeMutablePointer<ExifData>) -> Void) {
        guard let data = exif_data_new() else { return }
        defer { exif_data_unref(data) }
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
        let framed = MetadataScanner.exifMarker + bytes
        framed.withUnsafeBufferPointer { exif_data_load_data(data, $0.baseAddress, UInt32($0.count)) }
        body(data)
    }

    private static func hex(_ number: Int) -> String {
        let digits = String(number, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// libexif's words, with control characters (a string tag's stray bytes) shown as `?`.
    private static func printable(_ text: [CChar]) -> String {
        let words = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(words.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) }).trimmingSpaces
    }
}

private extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
