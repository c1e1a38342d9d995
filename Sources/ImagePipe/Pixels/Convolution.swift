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
    /// threads at once, each with its own rows).
    public func apply(to image: Image, finish: (FilteredRow) -> Void) throws -> Image {
        let taps = self.taps, costPerPixel = self.costPerPixel, verticalTaps = 2 * verticalRadius + 1
        return try Image.make(size: image.size, hasAlpha: image.hasAlpha) { writer in
            // Each band filters its own 2r extra rows: bands of at least 4× the taps keep that small.
            RowBands.run(rows: image.height, workPerRow: image.width * costPerPixel * 2,
                         minimumRows: max(16, 4 * verticalTaps)) { rows in
                let pass = ConvolutionPass(image: image, taps: taps)
                defer { pass.release() }
                pass.run(rows: rows) { y, filtered in
                    finish(FilteredRow(y: y, width: image.width, channels: image.channelCount, filtered: filtered,
                                       source: image.rowStart(y), target: writer.row(y).baseAddress!))
                }
            }
        }
    }
}
