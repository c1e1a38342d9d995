/// The convolution engine behind blur, sharpen and convolve: a kernel slid over every pixel,
/// in premultiplied Float (colour weighted by alpha, so transparent pixels' colour never bleeds
/// in), edges extended by repeating the border pixels (clamping), row bands on every core.
///
/// A separable kernel (a 1-D kernel across, then one down) costs the sum of the two lengths per
/// pixel, a full 2-D kernel their product. Only the rows the vertical taps need are kept (a ring
/// of filtered rows per band), so memory beyond input and output is a few rows; values stay Float
/// until the row is stored, once.
public struct Convolution: Sendable {
    enum Taps: Equatable, Sendable {
        case separable(horizontal: ConvolutionKernel, vertical: ConvolutionKernel)
        /// Row-major, `width × height` weights.
        case full(width: Int, height: Int, weights: [Float])
    }

    let taps: Taps

    /// `horizontal` across each row, then `vertical` down each column.
    public init(horizontal: ConvolutionKernel, vertical: ConvolutionKernel) {
        taps = .separable(horizontal: horizontal, vertical: vertical)
    }

    /// The same 1-D kernel both ways (a Gaussian).
    public init(separable kernel: ConvolutionKernel) {
        self.init(horizontal: kernel, vertical: kernel)
    }

    /// A full 2-D kernel of odd `width` × odd `height` weights, row-major, centred.
    public init(width: Int, height: Int, weights: [Float]) {
        precondition(width % 2 == 1 && height % 2 == 1 && weights.count == width * height,
                     "a 2-D kernel has odd sides and width × height weights")
        taps = .full(width: width, height: height, weights: weights)
    }

    /// A Gaussian blur of standard deviation `sigma` pixels.
    public static func gaussian(sigma: Double) -> Convolution {
        Convolution(separable: .gaussian(sigma: sigma))
    }

    var horizontalRadius: Int {
        switch taps {
        case let .separable(horizontal, _): horizontal.radius
        case let .full(width, _, _): width / 2
        }
    }

    var verticalRadius: Int {
        switch taps {
        case let .separable(_, vertical): vertical.radius
        case let .full(_, height, _): height / 2
        }
    }

    /// Multiplications per pixel.
    var costPerPixel: Int {
        switch taps {
        case let .separable(horizontal, vertical): horizontal.weights.count + vertical.weights.count
        case let .full(width, height, _): width * height
        }
    }

    /// The filtered picture, stored as it is.
    public func apply(to image: Image) throws -> Image {
        try apply(to: image) { $0.store() }
    }

    /// The filtered picture, each row handed to `finish` to write its target (from several
    /// threads at once, each with its own rows; a row may come in several strips of columns,
    /// each its own `FilteredRow`). With `rows`, only those rows of it are made (the output is
    /// that tall; `FilteredRow.y` still counts in `image`): a streamed run's strip, from the
    /// window of rows around it.
    public func apply(to image: Image, rows wanted: Range<Int>? = nil, finish: (FilteredRow) -> Void) throws -> Image {
        let taps = self.taps, costPerPixel = self.costPerPixel, verticalTaps = 2 * verticalRadius + 1
        let strips = Self.strips(width: image.width, ringRows: verticalTaps)
        let channels = image.channelCount, cancellation = StageContext.current.cancellation
        let wanted = wanted ?? 0..<image.height
        return try Image.make(size: Size(image.width, wanted.count), hasAlpha: image.hasAlpha) { writer in
            // Each band of rows filters its own 2r extra rows: bands of at least 4× the taps keep
            // that small, and a picture wide enough shares its column strips out instead.
            RowBands.run(rows: wanted.count, columns: strips, workPerRow: image.width * costPerPixel * 2,
                         minimumRows: max(16, 4 * verticalTaps)) { band, columns in
                let rows = (band.lowerBound + wanted.lowerBound)..<(band.upperBound + wanted.lowerBound)
                let pass = ConvolutionPass(image: image, taps: taps, columns: columns)
                defer { pass.release() }
                pass.run(rows: rows, cancellation: cancellation) { y, filtered in
                    finish(FilteredRow(y: y, x: columns.lowerBound, width: columns.count, channels: channels, filtered: filtered,
                                       source: image.rowStart(y) + columns.lowerBound * channels,
                                       target: writer.row(y - wanted.lowerBound).baseAddress! + columns.lowerBound * channels))
                }
            }
        }
    }

    /// Bytes of ring (rows × strip width × 16) that stay in a core's cache with room to spare.
    static let ringBudget = 256 * 1024

    /// The picture's columns cut into strips of equal width whose rings fit `ringBudget`
    /// (at least 64 pixels wide, so the horizontal padding stays small beside them), as many as
    /// a multiple of the cores when there are several, so that the cores share them out evenly.
    static func strips(width: Int, ringRows: Int) -> [Range<Int>] {
        let widest = max(64, ringBudget / (ringRows * MemoryLayout<SIMD4<Float>>.stride))
        var count = max(1, (width + widest - 1) / widest)
        if count > 1 { count = (count + System.coreCount - 1) / System.coreCount * System.coreCount }
        count = min(count, max(1, width / 16))
        return (0..<count).map { ($0 * width / count)..<(($0 + 1) * width / count) }
    }
}
