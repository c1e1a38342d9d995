/// Bytes gathered in chunks of a fixed capacity: an encoder's output of unknown length grows
/// without the doubling and copying of one array, and is written out chunk by chunk
/// (`ImageFile.writeAtomically(_:to:gate:)`).
public struct ByteChunks: Sendable {
    static let chunkSize = 1 << 18
    public private(set) var chunks: [[UInt8]] = []
    public private(set) var count = 0

    public init() {}

    public mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        var rest = bytes[...]
        while !rest.isEmpty {
            if chunks.isEmpty || chunks[chunks.count - 1].count == Self.chunkSize {
                chunks.append([])
                chunks[chunks.count - 1].reserveCapacity(Self.chunkSize)
            }
            let room = Self.chunkSize - chunks[chunks.count - 1].count
            chunks[chunks.count - 1].append(contentsOf: rest.prefix(room))
            rest = rest.dropFirst(room)
        }
        count += bytes.count
    }

    /// Every byte in one array, for callers that need them so (tests, standard output).
    public var joined: [UInt8] { Array(chunks.joined()) }
}
