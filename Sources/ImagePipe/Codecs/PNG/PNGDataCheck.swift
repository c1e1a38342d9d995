import CZlib

/// Checks a PNG's image data as its bytes stream past the decoder: the critical chunks' CRCs,
/// and the IDAT stream inflated to its end (zlib verifies its Adler-32 there) and long enough
/// for every row. gdk-pixbuf's loader takes a bad Adler-32 or a zlib stream that ends early as a
/// warning and fills the missing rows with gray; libvips and libspng refuse both. An ancillary
/// chunk whose CRC fails is what libpng warns of (and `fail=warning` refuses). The inflated
/// rows are counted, not kept: 64 KiB of scratch whatever the picture's size.
final class PNGDataCheck {
    private var stream = z_stream()
    private var started = false
    private var ended = false
    private var inflated = 0
    private var expected: Int?
    private var damage: (reason: String, level: FailOn)?
    private var warning: String?
    private var scratch = [UInt8](repeating: 0, count: 1 << 16)

    // The chunk walk: the 8-byte signature, then length, type, data, CRC.
    private var skip = 8
    private var header: [UInt8] = []
    private var remaining = 0
    private var type = ""
    private var crc: UInt = 0
    private var ihdr: [UInt8] = []
    private var trailer: [UInt8] = []
    private var inTrailer = false
    private var done = false

    deinit { if started { inflateEnd(&stream) } }

    /// Takes the next bytes of the file.
    /// What is wrong with the data of a PNG held whole, and how badly, or nil.
    static func damage(in bytes: [UInt8]) -> (reason: String, level: FailOn)? {
        let check = PNGDataCheck()
        bytes.withUnsafeBytes { check.feed($0) }
        return check.finish()
    }

    func feed(_ chunk: UnsafeRawBufferPointer) {
        var bytes = chunk.bindMemory(to: UInt8.self)[...]
        while !bytes.isEmpty, damage == nil, !done {
            if skip > 0 {
                let taken = min(skip, bytes.count)
                skip -= taken
                bytes = bytes.dropFirst(taken)
            } else if inTrailer {
                let taken = min(4 - trailer.count, bytes.count)
                trailer += bytes.prefix(taken)
                bytes = bytes.dropFirst(taken)
                if trailer.count == 4 { finishChunk() }
            } else if remaining > 0 {
                let taken = min(remaining, bytes.count)
                let part = UnsafeBufferPointer(rebasing: bytes.prefix(taken))
                crc = crc32(crc, part.baseAddress, UInt32(taken))
                if type == "IHDR", ihdr.count < 13 { ihdr += part.prefix(13 - ihdr.count) }
                if type == "IDAT" { inflate(part) }
                remaining -= taken
                bytes = bytes.dropFirst(taken)
                if remaining == 0 { inTrailer = true }
            } else {
                let taken = min(8 - header.count, bytes.count)
                header += bytes.prefix(taken)
                bytes = bytes.dropFirst(taken)
                if header.count == 8 { startChunk() }
            }
        }
    }

    private func startChunk() {
        remaining = Int(UInt32(header[0]) << 24 | UInt32(header[1]) << 16 | UInt32(header[2]) << 8 | UInt32(header[3]))
        type = String(decoding: header[4..<8], as: UTF8.self)
        crc = header[4..<8].withUnsafeBufferPointer { crc32(0, $0.baseAddress, 4) }
        header = []
        if remaining == 0 { inTrailer = true }
    }

    private func finishChunk() {
        let stored = UInt(trailer[0]) << 24 | UInt(trailer[1]) << 16 | UInt(trailer[2]) << 8 | UInt(trailer[3])
        // Critical chunks (an upper-case first letter) must be whole; an ancillary chunk with a
        // bad CRC is passed over by every reader, with a warning.
        if stored != crc, let first = type.utf8.first {
            if (65...90).contains(first) {
                damage = ("the PNG's \(type) chunk fails its CRC check: its data is damaged", .error)
            } else if warning == nil {
                warning = "the PNG's \(type) chunk fails its CRC check (an ancillary chunk, passed over)"
            }
        }
        if type == "IHDR" { expected = Self.rawSize(ihdr) }
        if type == "IEND" { done = true }
        trailer = []
        inTrailer = false
    }

    private func inflate(_ data: UnsafeBufferPointer<UInt8>) {
        guard !ended else { return } // data after the stream's end: libpng ignores it too
        if !started {
            guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return }
            started = true
        }
        stream.next_in = UnsafeMutablePointer(mutating: data.baseAddress)
        stream.avail_in = UInt32(data.count)
        while stream.avail_in > 0, !ended {
            let status = scratch.withUnsafeMutableBufferPointer { out -> Int32 in
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(out.count)
                let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                inflated += out.count - Int(stream.avail_out)
                return status
            }
            switch status {
            case Z_STREAM_END: ended = true
            case Z_OK, Z_BUF_ERROR: continue
            default:
                let reason = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                damage = ("the PNG's compressed image data is damaged (\(reason))", .error)
                return
            }
        }
    }

    /// Why the data seen is damaged, and how badly, once the whole file has passed; nil when it
    /// is whole (or has no IHDR: the loader judges the structure).
    func finish() -> (reason: String, level: FailOn)? {
        if let damage { return damage }
        if let expected {
            guard ended else {
                return ("the PNG's image data ends early: its compressed stream stops after \(inflated) of \(expected) bytes of rows", .truncated)
            }
            guard inflated >= expected else { return ("the PNG's image data holds \(inflated) of the \(expected) bytes its rows need", .error) }
        }
        return warning.map { ($0, .warning) }
    }

    /// Bytes of filtered rows the header asks for: each row a filter byte and its samples,
    /// the seven Adam7 passes each so for an interlaced picture.
    static func rawSize(_ ihdr: [UInt8]) -> Int? {
        guard ihdr.count == 13 else { return nil }
        func big(_ at: Int) -> Int { Int(ihdr[at]) << 24 | Int(ihdr[at + 1]) << 16 | Int(ihdr[at + 2]) << 8 | Int(ihdr[at + 3]) }
        let width = big(0), height = big(4), depth = Int(ihdr[8])
        guard let samples = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(ihdr[9])], width > 0, height > 0, width < 1 << 24, height < 1 << 24 else { return nil }
        let bitsPerPixel = samples * depth
        func rows(_ w: Int, _ h: Int) -> Int { w == 0 || h == 0 ? 0 : h * (1 + (w * bitsPerPixel + 7) / 8) }
        guard ihdr[12] == 1 else { return rows(width, height) }
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        return passes.reduce(0) { total, pass in
            total + rows((width - pass.0 + pass.2 - 1) / pass.2, (height - pass.1 + pass.3 - 1) / pass.3)
        }
    }
}
