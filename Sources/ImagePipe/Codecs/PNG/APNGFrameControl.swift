/// One APNG frame's fcTL chunk: where the frame sits on the canvas, how long it shows, and how
/// it is drawn (blend) and cleared before the next frame (dispose).
struct APNGFrameControl: Equatable {
    /// What happens to the frame's region once it has been shown.
    enum Dispose: UInt8 {
        /// Left as it is.
        case none = 0
        /// Cleared to transparent black.
        case background = 1
        /// Put back as it was before the frame was drawn.
        case previous = 2
    }

    /// How the frame is drawn onto the canvas.
    enum Blend: UInt8 {
        /// Its pixels replace the region's, alpha included.
        case source = 0
        /// Composited over the region (alpha "over").
        case over = 1
    }

    var sequence: Int
    var width: Int
    var height: Int
    var x: Int
    var y: Int
    var delayNumerator: Int
    var delayDenominator: Int
    var dispose: Dispose
    var blend: Blend

    /// The fcTL chunk's 26 bytes of data; nil, with the reason, when they say something no
    /// decoder can follow (an op past those the format defines).
    static func read(_ data: ArraySlice<UInt8>) -> Result<APNGFrameControl, APNGStructure.Damage> {
        guard data.count == 26 else { return .failure(.init(.error, "an fcTL chunk of \(data.count) bytes, where it has 26")) }
        let b = Array(data)
        func big32(_ at: Int) -> Int { b[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        func big16(_ at: Int) -> Int { Int(b[at]) << 8 | Int(b[at + 1]) }
        guard let dispose = Dispose(rawValue: b[24]), let blend = Blend(rawValue: b[25]) else {
            return .failure(.init(.error, "an fcTL chunk with dispose op \(b[24]) and blend op \(b[25]), where they are 0–2 and 0–1"))
        }
        return .success(APNGFrameControl(sequence: big32(0), width: big32(4), height: big32(8), x: big32(12), y: big32(16),
                                         delayNumerator: big16(20), delayDenominator: big16(22), dispose: dispose, blend: blend))
    }

    /// The delay in whole milliseconds, rounded: a fraction of a second, where a denominator of
    /// 0 means hundredths (as the APNG specification says).
    var delay: Int { Self.milliseconds(numerator: delayNumerator, denominator: delayDenominator) }

    static func milliseconds(numerator: Int, denominator: Int) -> Int {
        let denominator = denominator == 0 ? 100 : denominator
        return (numerator * 1000 + denominator / 2) / denominator
    }

    /// The delay `milliseconds` as an fcTL fraction: thousandths, or hundredths past what 16
    /// bits of thousandths hold (65.535 s), at most 655.35 s.
    static func fraction(milliseconds: Int) -> (numerator: Int, denominator: Int) {
        let milliseconds = max(0, milliseconds)
        if milliseconds <= 0xFFFF { return (milliseconds, 1000) }
        return (min(0xFFFF, (milliseconds + 5) / 10), 100)
    }

    /// The chunk's data, as `read` takes it.
    var bytes: [UInt8] {
        var data: [UInt8] = []
        for value in [sequence, width, height, x, y] { data.appendBigEndian(UInt32(truncatingIfNeeded: value)) }
        for value in [delayNumerator, delayDenominator] { data += [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] }
        return data + [dispose.rawValue, blend.rawValue]
    }
}
