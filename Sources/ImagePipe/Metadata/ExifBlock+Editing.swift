/// The edits `save keep=exif` makes to the block it copies, each in place (`TIFFDirectories`).
extension ExifBlock {
    /// The block without its GPS directory, as exiftool's `-gps:all=` leaves it: IFD0's pointer
    /// (tag 0x8825) is taken out, and the directory and its values are zeroed, so the position
    /// is not left in the file where a reader that walks the bytes would still find it.
    package func withoutGPS() -> ExifBlock {
        guard var tiff = TIFFDirectories(bytes), let first = tiff.firstDirectory,
              tiff.entries(at: first).contains(where: { $0.tag == TIFFDirectories.gpsPointer }) else { return self }
        if let gps = tiff.directory(TIFFDirectories.gpsPointer, in: first) {
            // Only what is the GPS directory's alone: a block whose directories overlap (made so,
            // or damaged) keeps the bytes the others still use.
            let exif = tiff.directory(TIFFDirectories.exifPointer, in: first)
            let kept = [first, exif, tiff.directory(TIFFDirectories.interoperabilityPointer, in: exif)]
                .compactMap { $0 }.filter { $0 != gps }.flatMap { tiff.extents(ofDirectory: $0) }
            for range in tiff.extents(ofDirectory: gps) where !kept.contains(where: { $0.overlaps(range) }) { tiff.zero(range) }
        }
        tiff.remove(tag: TIFFDirectories.gpsPointer, fromDirectory: first)
        return ExifBlock(tiff.bytes)
    }

    /// The block without IFD1, the thumbnail's directory, and without the thumbnail, as libvips
    /// writes it: the thumbnail shows the picture before it was edited. IFD0's next pointer is
    /// set to 0; IFD1 and the thumbnail are zeroed, and cut off when they end the block with
    /// nothing of the other directories after them (the usual layout), so the block shrinks.
    package func withoutThumbnail() -> ExifBlock {
        guard var tiff = TIFFDirectories(bytes), let first = tiff.firstDirectory,
              let next = tiff.nextPointer(after: first), next.value >= 8, next.value < bytes.count, next.value != first else { return self }
        let ifd1 = next.value
        var removed = tiff.extents(ofDirectory: ifd1)
        let entries = tiff.entries(at: ifd1)
        // A JPEG thumbnail (offset 0x0201, length 0x0202), or an uncompressed one's strip (0x0111, 0x0117).
        for (offsetTag, lengthTag) in [(0x0201, 0x0202), (0x0111, 0x0117)] {
            if let offsetEntry = entries.first(where: { $0.tag == offsetTag }), let lengthEntry = entries.first(where: { $0.tag == lengthTag }),
               let start = tiff.read(offsetEntry.valueOffset, Self.valueSize(offsetEntry.type)),
               let length = tiff.read(lengthEntry.valueOffset, Self.valueSize(lengthEntry.type)), length > 0 {
                removed.append(start..<(start + length))
            }
        }
        // What the other directories still use, so that nothing they point to is cut off.
        let exif = tiff.directory(TIFFDirectories.exifPointer, in: first)
        let kept = [first, exif, tiff.directory(TIFFDirectories.gpsPointer, in: first),
                    tiff.directory(TIFFDirectories.interoperabilityPointer, in: exif)]
            .compactMap { $0 }.flatMap { tiff.extents(ofDirectory: $0) }
        // Only what is IFD1's alone is zeroed (see withoutGPS).
        removed = removed.filter { range in !kept.contains { $0.overlaps(range) } }
        for range in removed { tiff.zero(range) }
        tiff.write(0, at: next.at, 4)
        var bytes = tiff.bytes
        // Cut off when what is removed reaches the end and nothing kept lies past its start.
        if let cut = removed.map(\.lowerBound).min(), cut >= 8, cut < bytes.count, kept.allSatisfy({ $0.upperBound <= cut }),
           removed.map(\.upperBound).max().map({ $0 >= bytes.count }) == true || bytes[cut...].allSatisfy({ $0 == 0 }) {
            bytes.removeSubrange(cut...)
        }
        return ExifBlock(bytes)
    }

    /// The block with the Exif directory's PixelXDimension and PixelYDimension (0xA002, 0xA003:
    /// exiftool's ExifImageWidth and ExifImageHeight) set to the written picture's size, as
    /// libvips does, and IFD0's ImageWidth and ImageLength (0x0100, 0x0101) too where a camera
    /// wrote them, so that no tag states the input's size; a SHORT that cannot hold the size
    /// becomes a LONG, which fits the same four bytes. The block itself when it has no such tags.
    package func withPixelDimensions(width: Int, height: Int) -> ExifBlock {
        guard var tiff = TIFFDirectories(bytes), let first = tiff.firstDirectory else { return self }
        var sizeTags = [(directory: first, width: 0x0100, height: 0x0101)]
        if let exif = tiff.directory(TIFFDirectories.exifPointer, in: first) { sizeTags.append((exif, 0xA002, 0xA003)) }
        for (directory, widthTag, heightTag) in sizeTags {
            for (tag, value) in [(widthTag, width), (heightTag, height)] {
                guard let entry = tiff.entries(at: directory).first(where: { $0.tag == tag }), entry.count == 1, entry.type == 3 || entry.type == 4 else { continue }
                if entry.type == 3, value <= 0xFFFF {
                    tiff.write(value, at: entry.offset + 8, 2)
                } else {
                    tiff.write(4, at: entry.offset + 2, 2)
                    tiff.write(value, at: entry.offset + 8, 4)
                }
            }
        }
        return ExifBlock(tiff.bytes)
    }

    /// A SHORT or LONG offset or length, as IFD1's thumbnail tags may be either.
    private static func valueSize(_ type: Int) -> Int { type == 3 ? 2 : 4 }
}
