/// A width and height in whole pixels.
public struct Size: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public init(_ width: Int, _ height: Int) {
        self.init(width: width, height: height)
    }

    public var pixelCount: Int { width * height }
    public var shorterSide: Int { min(width, height) }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    /// The same size turned a quarter: width and height swapped.
    public var transposed: Size { Size(height, width) }

    /// Each side times `factor`, rounded up: the smallest size that keeps that much detail.
    public func scaledUp(by factor: Double) -> Size {
        Size(max(1, Int((Double(width) * factor).rounded(.up))), max(1, Int((Double(height) * factor).rounded(.up))))
    }

    /// Each side divided by `factor`, rounded up: a JPEG's DCT scaling by 1/`factor`.
    public func reduced(by factor: Int) -> Size {
        Size((width + factor - 1) / factor, (height + factor - 1) / factor)
    }

    /// The pipeline-language form, `WxH`.
    public var description: String { "\(width)x\(height)" }
}
