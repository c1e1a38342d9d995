import CDeflate

/// Collects the ICC profile, EXIF and XMP of a JPEG, PNG or WebP file as its bytes stream past a
/// decoder, keeping only those blocks: the picture is never held twice, and no second read of
/// the file is needed.
///
/// Each of the three containers is a run of tagged, length-prefixed blocks after a fixed
/// signature (JPEG markers up to the first scan, PNG chunks, RIFF chunks), so one small state
/// machine walks them all; only the blocks that can hold metadata are copied.
struct MetadataScanner {
    private enum Container { case jpeg, png, webp }
    private enum State {
        case skip(Int)
        case header
        case body(tag: [UInt8], remaining: Int, keep: Bool, trailer: Int)
        case done
    }

    private let container: Container
    private var state: State
    private var header: [UInt8] = []
    private var body: [UInt8] = []
    /// The kept blocks in the order met, with their tags (JPEG: the marker byte).
    private var blocks: [(tag: [UInt8], data: [UInt8])] = []
    /// Whether a profile chunk was passed over for being larger than `ICCProfile.maxBytes`.
    private var profileTooLarge = false
    /// Whether a PNG has an empty eXIf chunk (an EXIF block has at least its 8-byte TIFF header).
    private var emptyExifChunk = false

    /// A scanner for `format`, or nil for formats whose metadata is read otherwise.
    init?(format: ImageFormat) {
        switch format {
        case .jpeg: container = .jpeg; state = .skip(2)
        case .png: container = .png; state = .skip(8)
        case .webp: container = .webp; state = .skip(12)
        default: return nil
        }
    }

    private var headerLength: Int { container == .jpeg ? 4 : 8 }

    /// Takes the next bytes of the file.
    mutating func scan(_ chunk: UnsafeRawBufferPointer) {
        var offset = 0
        let bytes = chunk.bindMemory(to: UInt8.self)
        while offset < bytes.count {
            switch state {
            case .done:
                return
            case let .skip(count):
                let taken = min(count, bytes.count - offset)
                offset += taken
                state = count == taken ? .header : .skip(count - taken)
            case .header:
                let taken = min(headerLength - header.count, bytes.count - offset)
                header += bytes[offset..<offset + taken]
                offset += taken
                // A fill byte before the marker, or a byte that starts none: libjpeg passes over
                // both (the latter with a warning) and reads the segments after them.
                if container == .jpeg, let first = header.first, first != 0xFF || header.count >= 2 && header[1] == 0xFF {
                    header.removeFirst()
                    continue
                }
                if header.count == headerLength { startBlock() }
            case let .body(tag, remaining, keep, trailer):
                let taken = min(remaining, bytes.count - offset)
                if keep { body += bytes[offset..<offset + taken] }
                offset += taken
                if taken == remaining {
                    endBlock(tag, keep: keep, trailer: trailer)
                } else {
                    state = .body(tag: tag, remaining: remaining - taken, keep: keep, trailer: trailer)
                }
            }
        }
    }

    /// What the scanner takes next, for a reader that need not hand it every byte
    /// (`MetadataScanner.walk`): bytes it must see (a block's header, a kept block), bytes it may
    /// be spared (a signature, a trailer, a block it does not keep), or nothing more.
    enum Need: Equatable {
        case bytes(Int)
        case skippable(Int)
        case done
    }

    var need: Need {
        switch state {
        case .done: .done
        case let .skip(count): .skippable(count)
        case .header: .bytes(headerLength - header.count)
        case let .body(_, remaining, keep, _): keep ? .bytes(remaining) : .skippable(remaining)
        }
    }

    /// Steps over the bytes `need` said may be skipped, all of them, unread.
    mutating func passOverSkippable() {
        switch state {
        case .skip: state = .header
        case let .body(tag, _, false, trailer): endBlock(tag, keep: false, trailer: trailer)
        default: break
        }
    }

    /// A block's data is all seen: kept if wanted, then its trailer skipped.
    private mutating func endBlock(_ tag: [UInt8], keep: Bool, trailer: Int) {
        if keep { blocks.append((tag, body)) }
        body = []
        state = trailer > 0 ? .skip(trailer) : .header
        if container == .png, tag == Array("IEND".utf8) { state = .done }
    }

    private mutating func startBlock() {
        defer { header = [] }
        let h = header
        switch container {
        case .jpeg:
            // The first scan ends the markers that can hold metadata; a marker without a length
            // (or no marker at all) means the data is not what it claims: stop looking.
            guard h[0] == 0xFF, h[1] != 0xDA, h[1] != 0xD9, !(0xD0...0xD8).contains(h[1]), h[1] != 0x01 else {
                state = .done
                return
            }
            let length = Int(h[2]) << 8 | Int(h[3])
            guard length >= 2 else { state = .done; return }
            state = .body(tag: [h[1]], remaining: length - 2, keep: h[1] == 0xE1 || h[1] == 0xE2, trailer: 0)
        case .png:
            let length = h[0..<4].reduce(0) { $0 << 8 | Int($1) }
            let tag = Array(h[4..<8])
            if length == 0, tag == Array("eXIf".utf8) { emptyExifChunk = true }
            var keep = ["iCCP", "eXIf", "iTXt"].contains { Array($0.utf8) == tag } && length <= Self.keptChunkLimit
                || ["gAMA", "cHRM", "sRGB", "cICP"].contains { Array($0.utf8) == tag } && length <= 32
            // Compressed already larger than a profile may be: not copied, let alone inflated.
            if tag == Array("iCCP".utf8), length > ICCProfile.maxBytes {
                keep = false
                profileTooLarge = true
            }
            state = .body(tag: tag, remaining: length, keep: keep, trailer: 4)
        case .webp:
            let length = (0..<4).reduce(0) { $0 | Int(h[4 + $1]) << (8 * $1) }
            let tag = Array(h[0..<4])
            var keep = ["ICCP", "EXIF", "XMP "].contains { Array($0.utf8) == tag } && length <= Self.keptChunkLimit
            if tag == Array("ICCP".utf8), length > ICCProfile.maxBytes {
                keep = false
                profileTooLarge = true
            }
            state = .body(tag: tag, remaining: length, keep: keep, trailer: length & 1)
        }
    }

    /// What the blocks seen so far hold.
    var metadata: ImageMetadata {
        var metadata = ImageMetadata()
        metadata.profileTooLarge = profileTooLarge
        if emptyExifChunk { metadata.decodeWarnings = ["the PNG's eXIf chunk is empty"] }
        switch container {
        case .jpeg:
            var iccChunks: [(sequence: Int, count: Int, data: [UInt8])] = []
            for (tag, data) in blocks {
                if tag == [0xE1], metadata.exif == nil, data.starts(with: Self.exifMarker) {
                    metadata.exif = Array(data.dropFirst(6))
                } else if tag == [0xE1], metadata.xmp == nil, data.starts(with: Self.xmpMarker) {
                    metadata.xmp = Array(data.dropFirst(Self.xmpMarker.count))
                } else if tag == [0xE2], data.count > 14, data.starts(with: Array("ICC_PROFILE\0".utf8)) {
                    iccChunks.append((Int(data[12]), Int(data[13]), Array(data.dropFirst(14))))
                }
            }
            metadata.sourceProfile = Self.assembledProfile(iccChunks)
            if let profile = metadata.sourceProfile, profile.count > ICCProfile.maxBytes {
                metadata.sourceProfile = nil
                metadata.profileTooLarge = true
            }
        case .png:
            for (tag, data) in blocks {
                switch String(decoding: tag, as: UTF8.self) {
                case "iCCP" where metadata.sourceProfile == nil:
                    // name, NUL, compression method 0, zlib data
                    if let nul = data.firstIndex(of: 0), nul + 2 <= data.count {
                        let (profile, tooLarge) = Self.inflated(data[(nul + 2)...], limit: ICCProfile.maxBytes)
                        metadata.sourceProfile = profile
                        if tooLarge { metadata.profileTooLarge = true }
                    }
                case "eXIf" where metadata.exif == nil && !data.isEmpty:
                    metadata.exif = Self.withoutExifMarker(data)
                case "iTXt" where metadata.xmp == nil:
                    metadata.xmp = Self.pngXMP(data)
                default: break
                }
            }
            // The color chunks in PNG 3's order: cICP over iCCP, which is over sRGB, then gAMA/cHRM.
            func chunk(_ name: String) -> [UInt8]? { blocks.first { $0.tag == Array(name.utf8) }?.data }
            if let cicp = chunk("cICP"), let profile = PNGColorChunks.profile(cicp: cicp) {
                metadata.sourceProfile = profile
            } else if metadata.sourceProfile == nil, chunk("sRGB") == nil, let gama = chunk("gAMA") {
                metadata.sourceProfile = PNGColorChunks.profile(gama: gama, chrm: chunk("cHRM"))
            }
        case .webp:
            for (tag, data) in blocks {
                switch String(decoding: tag, as: UTF8.self) {
                case "ICCP" where metadata.sourceProfile == nil: metadata.sourceProfile = data
                case "EXIF" where metadata.exif == nil: metadata.exif = Self.withoutExifMarker(data)
                case "XMP " where metadata.xmp == nil: metadata.xmp = data
                default: break
                }
            }
        }
        return metadata.screeningEXIF()
    }

    /// The ICC profile of a JPEG's APP2 chunks, or nil unless they are numbered 1 to N, each
    /// once, all saying N: the same rule as libjpeg's `jpeg_read_icc_profile`, so that `info`
    /// and the decoder agree on which files have a profile.
    private static func assembledProfile(_ chunks: [(sequence: Int, count: Int, data: [UInt8])]) -> [UInt8]? {
        guard let count = chunks.first?.count, count > 0, chunks.count == count, chunks.allSatisfy({ $0.count == count }) else { return nil }
        let ordered = chunks.sorted { $0.sequence < $1.sequence }
        guard ordered.map(\.sequence) == Array(1...count) else { return nil }
        return ordered.flatMap(\.data)
    }

    /// The metadata of a whole file in memory.
    static func metadata(of bytes: [UInt8], format: ImageFormat) -> ImageMetadata {
        guard var scanner = MetadataScanner(format: format) else { return ImageMetadata() }
        bytes.withUnsafeBytes { scanner.scan($0) }
        return scanner.metadata
    }

    /// The largest PNG or WebP chunk kept for its metadata: 16 MiB, far above any real profile,
    /// EXIF block or XMP packet; a larger one (a text chunk made to exhaust memory) is passed over.
    static let keptChunkLimit = 16 << 20

    static let exifMarker = Array("Exif\0\0".utf8)
    static let xmpMarker = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    /// Some writers put JPEG's `Exif\0\0` in front of a PNG's or WebP's EXIF too.
    private static func withoutExifMarker(_ data: [UInt8]) -> [UInt8] {
        data.starts(with: exifMarker) ? Array(data.dropFirst(6)) : data
    }

    /// The XMP of an iTXt chunk keyed `XML:com.adobe.xmp`: keyword, NUL, compressed flag and
    /// method, language, NUL, translated keyword, NUL, text.
    private static func pngXMP(_ data: [UInt8]) -> [UInt8]? {
        guard let nul = data.firstIndex(of: 0), data[..<nul].elementsEqual("XML:com.adobe.xmp".utf8), nul + 3 <= data.count else { return nil }
        let compressed = data[nul + 1] != 0
        var rest = data[(nul + 3)...]
        for _ in 0..<2 {
            guard let end = rest.firstIndex(of: 0) else { return nil }
            rest = rest[(end + 1)...]
        }
        return compressed ? inflate(rest) : Array(rest)
    }

    /// zlib data inflated, up to 64 MiB (an XMP packet is far smaller); nil when damaged or larger.
    static func inflate(_ data: ArraySlice<UInt8>) -> [UInt8]? {
        inflated(data, limit: 64 << 20).bytes
    }

    /// zlib data inflated, up to `limit` bytes: nil when damaged, or (`tooLarge`) when the data
    /// inflates to more. No buffer larger than `limit` is made.
    static func inflated(_ data: ArraySlice<UInt8>, limit: Int) -> (bytes: [UInt8]?, tooLarge: Bool) {
        guard let decompressor = libdeflate_alloc_decompressor() else { return (nil, false) }
        defer { libdeflate_free_decompressor(decompressor) }
        var capacity = min(limit, max(4096, data.count * 4))
        while true {
            var output = [UInt8](repeating: 0, count: capacity)
            var written = 0
            let result = data.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { out in
                    libdeflate_zlib_decompress(decompressor, input.baseAddress, input.count, out.baseAddress, out.count, &written)
                }
            }
            if result == LIBDEFLATE_SUCCESS {
                output.removeLast(capacity - written)
                return (output, false)
            }
            guard result == LIBDEFLATE_INSUFFICIENT_SPACE else { return (nil, false) }
            guard capacity < limit else { return (nil, true) }
            capacity = min(limit, capacity * 4)
        }
    }
}
