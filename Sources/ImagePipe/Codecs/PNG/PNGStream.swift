import CDeflate
import CSpng

/// The bytes of a PNG as libspng asks for them (`spng_set_png_stream`), from the file the header
/// read opened or from memory, 64 KiB at a time.
///
/// An empty eXIf chunk is handed to libspng renamed as a private ancillary chunk, which it passes
/// over: libspng 0.7 refuses the whole file for it ("reached chunk/cache limits", even with its
/// damaged ancillary chunks discarded), where libpng warns and reads on, as browsers and Pillow
/// do. The metadata scanner reports the chunk (`MetadataScanner`), and `load fail=warning`
/// refuses it.
final class PNGStream {
    private let input: EncodedInput
    private let options: LoadOptions
    private let path: String?
    private var buffer: [UInt8] = []
    /// Where the buffer's bytes begin in the file, and how many of them libspng has taken.
    private var bufferOffset = 0
    private var taken = 0
    /// Why a read failed (the file could not be read, or the time limit passed): libspng only
    /// hears "I/O error", and this is the message to give.
    private(set) var failure: ImageError?
    /// libspng asked for bytes past the file's end: the file is cut short.
    private(set) var reachedEnd = false
    /// Where the next chunk starts in the file, for the chunks' headers to be looked at as they
    /// pass; nil once the walk has lost them (a length past what a chunk may claim).
    private var nextChunk: Int? = 8
    private static let refillSize = 1 << 16

    init(_ input: EncodedInput, options: LoadOptions, path: String?) {
        self.input = input
        self.options = options
        self.path = path
    }

    /// Hands this stream to libspng.
    func attach(to context: OpaquePointer) -> Int32 {
        let read: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int) -> Int32 = { _, user, destination, length in
            Unmanaged<PNGStream>.fromOpaque(user!).takeUnretainedValue().read(into: destination!, count: length)
        }
        return spng_set_png_stream(context, read, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Copies the next `count` bytes to `destination`: 0, or libspng's end-of-file or I/O error.
    private func read(into destination: UnsafeMutableRawPointer, count: Int) -> Int32 {
        var done = 0
        while done < count {
            if taken == buffer.count {
                do {
                    guard try refill() else {
                        reachedEnd = true
                        return SPNG_IO_EOF.rawValue
                    }
                } catch {
                    failure = error
                    return SPNG_IO_ERROR.rawValue
                }
            }
            let part = min(count - done, buffer.count - taken)
            buffer.withUnsafeBytes { bytes in
                let slice = UnsafeRawBufferPointer(rebasing: bytes[taken..<taken + part])
                (destination + done).copyMemory(from: slice.baseAddress!, byteCount: part)
            }
            taken += part
            done += part
        }
        return 0
    }

    /// The next bytes of the input into the buffer; false at its end.
    private func refill() throws(ImageError) -> Bool {
        try options.checkDeadline(path: path)
        bufferOffset += buffer.count
        taken = 0
        if case let .bytes(bytes) = input {
            buffer = bufferOffset == 0 ? bytes : [] // the whole input is one buffer
        } else {
            buffer = try input.bytes(count: Self.refillSize, at: bufferOffset)
        }
        renameEmptyExifChunks()
        return !buffer.isEmpty
    }

    /// Walks the chunk headers that start in the buffer, renaming each empty eXIf chunk (see
    /// above). A header cut by the buffer's end is left for the next refill, which then starts
    /// with it; one past the buffer (inside a long chunk's data) for a later refill.
    private func renameEmptyExifChunks() {
        while let chunk = nextChunk, chunk >= bufferOffset, chunk < bufferOffset + buffer.count {
            let at = chunk - bufferOffset
            // An empty chunk is 12 bytes: its length, type and CRC.
            guard at + 12 <= buffer.count else {
                if at > 0, buffer.count == Self.refillSize { buffer.removeLast(buffer.count - at) }
                return
            }
            let length = buffer[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length <= Int(Int32.max) else { nextChunk = nil; return }
            if length == 0, buffer[at + 4..<at + 8].elementsEqual("eXIf".utf8) {
                let stored = buffer[at + 8..<at + 12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                // A CRC that failed before still fails: the CRC check judges the chunk as before.
                let renamed = Array("exIf".utf8)
                let matches = Self.crc(Array(buffer[at + 4..<at + 8])) == stored
                let crc = matches ? Self.crc(renamed) : stored
                buffer.replaceSubrange(at + 4..<at + 12, with: renamed + (0..<4).map { UInt8(truncatingIfNeeded: crc >> (24 - 8 * $0)) })
            }
            nextChunk = chunk + 12 + length
        }
    }

    private static func crc(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { UInt32(libdeflate_crc32(0, $0.baseAddress, $0.count)) }
    }
}
