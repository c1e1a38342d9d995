import ImagePipe

/// The size of an IIIF Image API request: how the region is scaled. Larger than the region only
/// with `^` (Image API 3.0); without it such a size is refused (400).
struct IIIFSize: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// The region's own size (no `maxWidth`, `maxHeight` or `maxArea` is declared).
        case max
        case width(Int)
        case height(Int)
        case percent(Double)
        /// `w,h`: exactly, the aspect not kept.
        case exact(width: Int, height: Int)
        /// `!w,h`: as large as fits inside, the aspect kept.
        case confined(width: Int, height: Int)
    }

    let kind: Kind
    /// `^`: the region may be enlarged.
    let upscaling: Bool

    init(_ kind: Kind, upscaling: Bool = false) {
        self.kind = kind
        self.upscaling = upscaling
    }

    init(parsing text: String) throws(ServeError) {
        upscaling = text.hasPrefix("^")
        let rest = upscaling ? text.dropFirst() : Substring(text)
        let bad = ServeError(400, "size '\(text)' is not max, w,, ,h, pct:n, w,h or !w,h (each perhaps after ^)")
        if rest == "max" {
            kind = .max
        } else if rest.hasPrefix("pct:") {
            guard let percent = IIIFNumber.decimal(rest.dropFirst(4)) else { throw bad }
            kind = .percent(percent)
        } else {
            let confined = rest.hasPrefix("!")
            let fields = (confined ? rest.dropFirst() : rest).split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == 2 else { throw bad }
            let width = fields[0].isEmpty ? nil : IIIFNumber.whole(fields[0]), height = fields[1].isEmpty ? nil : IIIFNumber.whole(fields[1])
            guard fields[0].isEmpty || width != nil, fields[1].isEmpty || height != nil else { throw bad }
            switch (width, height) {
            case let (width?, height?): kind = confined ? .confined(width: width, height: height) : .exact(width: width, height: height)
            case let (width?, nil) where !confined: kind = .width(width)
            case let (nil, height?) where !confined: kind = .height(height)
            default: throw bad
            }
        }
    }

    /// The size the region (of `region` pixels) is scaled to; 400 for an empty size, or for one
    /// larger than the region on either side without `^`.
    func pixels(of region: Size) throws(ServeError) -> Size {
        let w = Double(region.width), h = Double(region.height)
        func side(_ value: Double) -> Int { Swift.max(1, Int(value.rounded())) }
        let size: Size
        switch kind {
        case .max: size = region
        case let .width(width): size = Size(width, side(h * Double(width) / w))
        case let .height(height): size = Size(side(w * Double(height) / h), height)
        case let .percent(percent):
            guard percent > 0 else { throw ServeError(400, "size pct:\(NumberFormat.short(percent)) is empty") }
            size = Size(Int((w * percent / 100).rounded()), Int((h * percent / 100).rounded()))
        case let .exact(width, height): size = Size(width, height)
        case let .confined(width, height):
            // The side that limits gets its number exactly; the other keeps the aspect within its own.
            size = Double(width) / w <= Double(height) / h ? Size(width, Swift.min(height, side(h * Double(width) / w)))
                : Size(Swift.min(width, side(w * Double(height) / h)), height)
        }
        guard size.width > 0, size.height > 0 else {
            throw ServeError(400, "size \(self) of a \(region.width)x\(region.height) region has no pixel")
        }
        if !upscaling, size.width > region.width || size.height > region.height {
            throw ServeError(400, "size \(self) is larger than the \(region.width)x\(region.height) region: enlarging needs ^ (^\(self))")
        }
        return size
    }
}

extension IIIFSize: CustomStringConvertible {
    /// The parameter as written in a URL.
    var description: String {
        let text = switch kind {
        case .max: "max"
        case let .width(width): "\(width),"
        case let .height(height): ",\(height)"
        case let .percent(percent): "pct:" + NumberFormat.short(percent)
        case let .exact(width, height): "\(width),\(height)"
        case let .confined(width, height): "!\(width),\(height)"
        }
        return (upscaling ? "^" : "") + text
    }
}
