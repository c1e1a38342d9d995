import CSpng

/// The bytes of a PNG as libspng asks for them (`spng_set_png_stream`), from the file the header
/// read opened or from memory, 64 KiB at a time.
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
            buffer = try input.bytes(count: 1 << 16, at: bufferOffset)
        }
        return !buffer.isEmpty
    }
}
