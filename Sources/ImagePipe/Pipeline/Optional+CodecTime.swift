extension Optional where Wrapped == CodecTime {
    /// `body`, its processor time added as decoding when the run counts its codecs' time
    /// (`RunContext.codecTime`), run as it is otherwise.
    func decoding<T>(_ body: () throws -> T) rethrows -> T {
        switch self {
        case let time?: return try time.decoding(body)
        case nil: return try body()
        }
    }

    /// `body`, its processor time added as encoding (less what it reports spent making rows) when
    /// the run counts its codecs' time, run as it is otherwise.
    func encoding<T>(_ body: (_ makingRows: @escaping (Double) -> Void) throws -> T) rethrows -> T {
        switch self {
        case let time?: return try time.encoding(body)
        case nil: return try body { _ in }
        }
    }
}
