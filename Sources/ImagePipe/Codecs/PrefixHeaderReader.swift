/// A header reader that keeps the file's first bytes (up to `limit`, or all of them) while
/// `wantsMore` says so, then reads the header from them.
struct PrefixHeaderReader: HeaderReader {
    /// How many of the first bytes are kept; nil: every byte.
    let limit: Int?
    /// Whether more bytes are wanted, given those kept so far.
    let wantsMore: ([UInt8]) throws -> Bool
    /// The header of the bytes kept.
    let header: ([UInt8]) throws -> ImageHeader
    private var prefix: [UInt8] = []

    init(limit: Int?, wantsMore: @escaping ([UInt8]) throws -> Bool, header: @escaping ([UInt8]) throws -> ImageHeader) {
        self.limit = limit
        self.wantsMore = wantsMore
        self.header = header
    }

    /// A reader that keeps the whole file and reads its header from memory (`Codecs.header`).
    static func wholeFile(options: LoadOptions, path: String) -> PrefixHeaderReader {
        PrefixHeaderReader(limit: nil, wantsMore: { _ in true }, header: { try Codecs.header(of: $0, options: options, path: path) })
    }

    /// A reader that takes nothing: `header` reads the file where it needs to.
    static func fromFile(_ header: @escaping () throws -> ImageHeader) -> PrefixHeaderReader {
        PrefixHeaderReader(limit: 0, wantsMore: { _ in false }, header: { _ in try header() })
    }

    mutating func take(_ chunk: UnsafeRawBufferPointer) throws -> Bool {
        if let limit {
            prefix.append(contentsOf: chunk.prefix(max(0, limit - prefix.count)))
        } else {
            prefix.append(contentsOf: chunk)
        }
        return try wantsMore(prefix)
    }

    func finished(path: String) throws -> ImageHeader { try header(prefix) }
}
