import ImagePipe

/// The region of an IIIF Image API request: the part of the picture it is made from.
enum IIIFRegion: Equatable, Sendable {
    case full
    /// The largest centered square.
    case square
    case pixels(x: Int, y: Int, width: Int, height: Int)
    /// Percentages of the picture's sides.
    case percent(x: Double, y: Double, width: Double, height: Double)

    init(parsing text: String) throws(ServeError) {
        switch text {
        case "full": self = .full
        case "square": self = .square
        default:
            let isPercent = text.hasPrefix("pct:")
            let fields = (isPercent ? text.dropFirst(4) : Substring(text)).split(separator: ",", omittingEmptySubsequences: false)
            let bad = ServeError(400, "region '\(text)' is not full, square, x,y,w,h or pct:x,y,w,h")
            guard fields.count == 4 else { throw bad }
            if isPercent {
                let numbers = fields.compactMap(IIIFNumber.decimal)
                guard numbers.count == 4 else { throw bad }
                self = .percent(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
            } else {
                let numbers = fields.compactMap(IIIFNumber.whole)
                guard numbers.count == 4 else { throw bad }
                self = .pixels(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
            }
        }
    }

    /// The region in the pixels of a picture of `picture` size, cut to the picture; 400 when
    /// nothing of it is left (the specification's "zero width or height").
    func rect(in picture: Size) throws(ServeError) -> Rect {
        let (left, top, right, bottom): (Int, Int, Int, Int)
        switch self {
        case .full:
            return Rect(x: 0, y: 0, width: picture.width, height: picture.height)
        case .square:
            let side = min(picture.width, picture.height)
            return Rect(x: (picture.width - side) / 2, y: (picture.height - side) / 2, width: side, height: side)
        case let .pixels(x, y, width, height):
            (left, top, right, bottom) = (x, y, x + width, y + height)
        case let .percent(x, y, width, height):
            // Both edges on the nearest pixel, so that neighboring regions meet exactly.
            func edge(_ percent: Double, _ side: Int) -> Int { Int((min(percent, 1000) / 100 * Double(side)).rounded()) }
            (left, top, right, bottom) = (edge(x, picture.width), edge(y, picture.height), edge(x + width, picture.width), edge(y + height, picture.height))
        }
        let cut = Rect(x: left, y: top, width: min(right, picture.width) - left, height: min(bottom, picture.height) - top)
        guard left < picture.width, top < picture.height, cut.width > 0, cut.height > 0 else {
            throw ServeError(400, "region \(self) holds no pixel of the \(picture.width)x\(picture.height) picture")
        }
        return cut
    }
}

extension IIIFRegion: CustomStringConvertible {
    /// The parameter as written in a URL (percentages in their shortest form).
    var description: String {
        switch self {
        case .full: "full"
        case .square: "square"
        case let .pixels(x, y, width, height): "\(x),\(y),\(width),\(height)"
        case let .percent(x, y, width, height): "pct:" + [x, y, width, height].map(NumberFormat.short).joined(separator: ",")
        }
    }
}
