/// Which frames of an animation `load frames=` decodes: `all`, `first`, one frame `N`, or a
/// range `A-B` (both included). Frames count from 0, as libvips' `page` and ImageMagick's
/// `file.gif[N]` do.
public enum FrameSelection: Hashable, Sendable, CustomStringConvertible {
    case all
    case range(ClosedRange<Int>)
    /// Text that names no frames, kept so that `Load.check()` can say why.
    case invalid(String)

    public init(text: String) {
        let trimmed = text.lowercased()
        if trimmed == "all" { self = .all; return }
        if trimmed == "first" { self = .range(0...0); return }
        let parts = trimmed.split(separator: "-", omittingEmptySubsequences: false)
        let numbers = parts.map { Int($0) }
        guard (1...2).contains(parts.count), numbers.allSatisfy({ $0 != nil && $0! >= 0 }) else { self = .invalid(text); return }
        let first = numbers[0]!, last = numbers.last!!
        self = first <= last ? .range(first...last) : .invalid(text)
    }

    public var description: String {
        switch self {
        case .all: "all"
        case let .range(range) where range == 0...0: "first"
        case let .range(range) where range.count == 1: "\(range.lowerBound)"
        case let .range(range): "\(range.lowerBound)-\(range.upperBound)"
        case let .invalid(text): text
        }
    }

    /// The frames of an animation of `count` frames this selects; nil when it names a frame the
    /// animation does not have.
    func frames(of count: Int) -> Range<Int>? {
        switch self {
        case .all: 0..<count
        case let .range(range): range.lowerBound < count ? range.lowerBound..<min(range.upperBound + 1, count) : nil
        case .invalid: nil
        }
    }
}
