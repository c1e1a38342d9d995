import ImagePipe

/// The size of an IIIF Image API request: how the region is scaled. In 3.0 larger than the
/// region only after `^`, else refused (400); in 2.1, which knows no `^`, any size may be larger
/// (its `sizeAboveFull`), and `full` is `max`.
struct IIIFSize: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// The region's own size (no `maxWidth`, `maxHeight` or `maxArea` is declared); 2.1's
        /// `full` too.
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
    /// `^` (3.0): the region may be enlarged.
    let upscaling: Bool
    /// The version that read the size: whether it may enlarge without `^`, and its canonical form.
    let version: IIIFVersion

    init(_ kind: Kind, upscaling: Bool = false, version: IIIFVersion = .v3) {
        self.kind = kind
        self.upscaling = upscaling
        self.version = version
    }

    /// Whether the size may be larger than the region: after `^` in 3.0, always in 2.1.
    var mayEnlarge: Bool { upscaling || version == .v2 }

    init(parsing text: String, version: IIIFVersion) throws(ServeError) {
        self.version = version
        // In 2.1 a `^` is no size: the text is read whole, and refused.
        upscaling = version == .v3 && text.hasPrefix("^")
        let rest = upscaling ? text.dropFirst() : Substring(text)
        let bad = switch version {
        case .v2: ServeError(400, "size '\(text)' is not full, max, w,, ,h, pct:n, w,h or !w,h (Image API 2.1)")
        case .v3: ServeError(400, "size '\(text)' is not max, w,, ,h, pct:n, w,h or !w,h (each perhaps after ^)")
        }
        if rest == "max" || (version == .v2 && rest == "full") {
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
    /// larger than the region on either side that may not enlarge.
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
        if !mayEnlarge, size.width > region.width || size.height > region.height {
            throw ServeError(400, "size \(self) is larger than the \(region.width)x\(region.height) region: enlarging needs ^ (^\(self))")
        }
        return size
    }

    /// The canonical form (§4.7) of `scaled`, the size made of a region of `region` pixels. 3.0:
    /// `max` for the region's own size, else `w,h`, after `^` when larger. 2.1: `full` for the
    /// region's own size, `w,` when the width alone gives the same height (the aspect kept),
    /// else `w,h`.
    func canonical(_ scaled: Size, of region: Size) -> String {
        switch version {
        case .v3:
            if scaled == region { return "max" }
            return (scaled.width > region.width || scaled.height > region.height ? "^" : "") + "\(scaled.width),\(scaled.height)"
        case .v2:
            if scaled == region { return "full" }
            let keepsAspect = (try? IIIFSize(.width(scaled.width), version: .v2).pixels(of: region)) == scaled
            return keepsAspect ? "\(scaled.width)," : "\(scaled.width),\(scaled.height)"
        }
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
