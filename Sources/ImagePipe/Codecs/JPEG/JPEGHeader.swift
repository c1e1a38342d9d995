/// The header of a JPEG, read by walking its markers up to the frame header (SOF), fed chunk by
/// chunk as the file is read.
///
/// gdk-pixbuf's JPEG loader is not used for this: it reassembles the APP2 ICC chunks as it reads
/// the header, and chunks whose (sequence, count) pairs repeat and go out of order made it write
/// out of bounds (a 1,104-byte file crashed every command). Here the walk only steps over the
/// segments by their lengths; the profile is put together later, by libjpeg or by
/// `MetadataScanner`, both of which check the sequence.
struct JPEGHeader {
    var storedSize: Size
    /// The EXIF orientation of the first APP1 "Exif" segment, 1–8 (1 when there is none).
    var orientation: Int

    /// Color components: 1 gray, 3 YCbCr or RGB, 4 CMYK (decoded whole, then converted).
    var components: Int
    /// Whether its planes can be resampled as they are decoded (`Plan.decodeResampling`): gray,
    /// or three components whose chroma is full, half or quarter the luma's size (4:4:4, 4:2:2,
    /// 4:4:0, 4:2:0; not 4:1:1's quarter width, nor CMYK).
    var planesResample = false
    /// Every component's DCT blocks, padded to whole MCUs, at 128 bytes a block (`ImageHeader`).
    var coefficientBytes = 0
    /// Progressive (SOF2, SOF10): its coefficients come in scans of rising detail.
    var progressive = false

    var imageHeader: ImageHeader {
        var header = ImageHeader(storedSize: storedSize, format: .jpeg, orientation: orientation, rowsInOrder: components != 4)
        header.resamplesInPlanes = planesResample
        header.coefficientBytes = coefficientBytes
        header.progressive = progressive
        return header
    }

    /// The walk, fed with `feed` until it has found the frame header.
    struct Reader {
        private let path: String?
        /// Bytes of a segment not yet complete; never more than one segment (≤ 64 KiB).
        private var pending: [UInt8] = []
        /// Bytes still to pass over inside a segment that is not kept.
        private var skipping = 0
        private var startSeen = false
        private var orientation = 1
        private var exifSeen = false
        private(set) var header: JPEGHeader?

        init(path: String?) { self.path = path }

        /// Takes the next bytes of the file; the header once it is known.
        mutating func feed(_ chunk: UnsafeRawBufferPointer) throws(ImageError) -> JPEGHeader? {
            guard header == nil else { return header }
            var bytes = chunk.bindMemory(to: UInt8.self)[...]
            if skipping > 0 {
                let taken = min(skipping, bytes.count)
                skipping -= taken
                bytes = bytes.dropFirst(taken)
            }
            pending.append(contentsOf: bytes)
            try walk()
            return header
        }

        /// Steps over whole segments in `pending`, keeping what is left of an incomplete one.
        private mutating func walk() throws(ImageError) {
            var position = 0
            defer { pending.removeFirst(min(position, pending.count)) }
            if !startSeen {
                guard pending.count >= 2 else { return }
                guard pending[0] == 0xFF, pending[1] == 0xD8 else { throw corrupt("it does not start with a JPEG start-of-image marker") }
                startSeen = true
                position = 2
            }
            while header == nil {
                // libjpeg passes over stray bytes between segments (with a warning that strict
                // decoding turns into an error) and over fill bytes before a marker.
                while position < pending.count, pending[position] != 0xFF { position += 1 }
                while position + 1 < pending.count, pending[position + 1] == 0xFF { position += 1 }
                guard position + 1 < pending.count else { return }
                let marker = pending[position + 1]
                switch marker {
                case 0x01, 0xD0...0xD7:
                    position += 2 // no length: a marker standing alone
                    continue
                case 0xD8:
                    throw corrupt("a second start-of-image marker comes before the frame header")
                case 0xD9:
                    throw corrupt("the picture ends before its frame header")
                case 0xDA:
                    throw corrupt("the image data starts before the frame header")
                default: break
                }
                guard position + 4 <= pending.count else { return }
                let length = Int(pending[position + 2]) << 8 | Int(pending[position + 3])
                guard length >= 2 else { throw corrupt("a segment (marker 0x\(hex(marker))) claims \(length) bytes, fewer than its own length field") }
                let isFrame = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
                let isExif = marker == 0xE1 && !exifSeen
                guard isFrame || isExif else {
                    let available = pending.count - position
                    if available >= 2 + length {
                        position += 2 + length
                    } else {
                        skipping = 2 + length - available
                        position = pending.count
                        return
                    }
                    continue
                }
                guard position + 2 + length <= pending.count else { return }
                let body = position + 4, end = position + 2 + length
                if isFrame {
                    header = try frame(pending[body..<end], marker: marker)
                } else if end - body >= 6, pending[body..<body + 6].elementsEqual(Self.exifMarker) {
                    exifSeen = true
                    let orientation = ExifOrientation.parse(jpeg: [0xFF, 0xD8] + pending[position..<end])
                    self.orientation = orientation
                }
                position = end
            }
        }

        private static let exifMarker = Array("Exif\0\0".utf8)

        /// The size and components of a frame header: precision, height, width, components.
        private func frame(_ body: ArraySlice<UInt8>, marker: UInt8) throws(ImageError) -> JPEGHeader {
            let b = Array(body)
            guard b.count >= 6 else { throw corrupt("its frame header is \(b.count) bytes long, too short to hold a size") }
            let height = Int(b[1]) << 8 | Int(b[2]), width = Int(b[3]) << 8 | Int(b[4]), components = Int(b[5])
            guard height > 0 else { throw corrupt("its frame header gives no height (a height given later, in a DNL marker, is not supported)") }
            guard width > 0 else { throw corrupt("its frame header gives a width of 0") }
            // The standard's precisions (8 and 12 bits; 2–16 in its lossless process): any other
            // is damage, refused here rather than reported by `info` and failed at decode.
            guard (2...16).contains(b[0]) else { throw corrupt("its frame header gives a sample precision of \(b[0]) bits") }
            guard [1, 3, 4].contains(components), b.count >= 6 + 3 * components else {
                throw corrupt("its frame header describes \(components) color components")
            }
            // Each component's sampling factors: the high and low nibbles of its second byte.
            let sampling: [(h: Int, v: Int)] = (0..<components).map { component in
                let factors = Int(b[7 + 3 * component])
                return (h: factors >> 4, v: factors & 15)
            }
            let planes = components == 1 || (components == 3 && [1, 2].contains(sampling[0].h) && [1, 2].contains(sampling[0].v)
                                              && sampling.dropFirst().allSatisfy { $0 == (h: 1, v: 1) })
            // As libjpeg lays them out: MCUs of the largest factors, each holding h × v blocks of
            // a component (a zero factor, which libjpeg refuses, counts as one here).
            let maxH = max(1, sampling.map(\.h).max() ?? 1), maxV = max(1, sampling.map(\.v).max() ?? 1)
            let mcus = ((width + 8 * maxH - 1) / (8 * maxH)) * ((height + 8 * maxV - 1) / (8 * maxV))
            let blocks = sampling.reduce(0) { $0 + max(1, $1.h) * max(1, $1.v) } * mcus
            return JPEGHeader(storedSize: Size(width, height), orientation: orientation, components: components, planesResample: planes,
                              coefficientBytes: blocks * 128, progressive: [0xC2, 0xCA].contains(marker))
        }

        /// The header, once all the data is in: an error when it never came.
        func finished() throws(ImageError) -> JPEGHeader {
            guard let header else { throw ImageError(.corrupt, path: path, reason: "starts like a JPEG but ends before its frame header") }
            return header
        }

        private func corrupt(_ reason: String) -> ImageError {
            ImageError(.corrupt, path: path, reason: "starts like a JPEG but its header cannot be read: \(reason)")
        }

        private func hex(_ byte: UInt8) -> String {
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
        }
    }

    /// The header of a whole JPEG held in memory.
    static func read(_ bytes: [UInt8], path: String?) throws -> JPEGHeader {
        var reader = Reader(path: path)
        _ = try bytes.withUnsafeBytes { try reader.feed($0) }
        return try reader.finished()
    }
}

extension JPEGHeader.Reader: HeaderReader {
    mutating func take(_ chunk: UnsafeRawBufferPointer) throws -> Bool { try feed(chunk) == nil }

    func finished(path: String) throws -> ImageHeader { try finished().imageHeader }
}
