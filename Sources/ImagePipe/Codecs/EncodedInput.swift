/// A picture's encoded bytes as its decoder reads them: the file the header read opened (read
/// where and when the decoder needs, so that a header or a chunk walk takes only what it looks
/// at), or data already in memory (a pipe read whole, a frame cut out of an animation).
enum EncodedInput {
    case file(OpenedFile)
    case bytes([UInt8])

    /// The input's length in bytes (a file's when it was opened).
    var length: Int {
        switch self {
        case let .file(file): file.size
        case let .bytes(bytes): bytes.count
        }
    }

    /// At most `count` bytes from `offset`: fewer at the end, none past it.
    func bytes(count: Int, at offset: Int) throws(ImageError) -> [UInt8] {
        switch self {
        case let .file(file): return try file.bytes(count: count, at: offset)
        case let .bytes(bytes):
            guard offset < bytes.count else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        }
    }
}
