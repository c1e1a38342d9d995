import Dispatch

/// The separable resampler behind every scaling stage: any window of a picture (fractional
/// pixels) to any size, with a chosen kernel.
///
/// How it works, and why:
/// - Two passes (rows, then columns) with weight tables computed once per axis
///   (`WeightTable`), so each output pixel costs the kernel's taps per axis, not their square.
/// - Only the output's window is read: a crop and a scale are one pass, placed sub-pixel.
/// - Large reductions average integer blocks first (`ResampleAxis`), so cost stays linear.
/// - Colour is weighted by alpha (premultiplied) while filtering, so transparent pixels' colour
///   never bleeds in as a dark fringe; it is divided back out at the end.
/// - Values stay in `Float` between the passes (more than 8 bits), and are rounded to nearest
///   once, at the end.
/// - With `linearLight`, filtering happens on linear intensities (the sRGB curve removed, then
///   put back), as `vips thumbnail --linear`.
/// - Only the rows the column pass needs are kept (a ring of `taps` rows), so memory beyond the
///   input and output is a few rows; large outputs are cut into row bands run in parallel.
public struct Resampler: Sendable {
    public var kernel: Kernel
    public var linearLight: Bool
    /// The smallest reduction left to the kernel after the box pre-shrink (libvips' `gap`).
    /// libvips' default of 2 lets the box alias (a zone plate shrunk 8× keeps −27 dB of moiré
    /// against Lanczos3's own −30.7); 8 leaves reductions up to 16× to the kernel alone, and
    /// the cost is linear in the input either way (the taps grow as the outputs thin out).
    public var gap: Double

    public init(kernel: Kernel = .lanczos3, linearLight: Bool = false, gap: Double = 8) {
        self.kernel = kernel
        self.linearLight = linearLight
        self.gap = gap
    }

    /// The part of `image` inside `region` (in its pixels; it may start between pixels) made
    /// `size` pixels large.
    public func resample(_ image: Image, from region: Region, to size: Size) throws -> Image {
        guard region.width > 0, region.height > 0, region.width.isFinite, region.height.isFinite,
              region.x.isFinite, region.y.isFinite else {
            throw ImageError(.geometry, reason: "cannot resample the region \(region)")
        }
        let axes = WindowedResampling.Axes.cached(sourceSize: image.size, region: region, size: size, kernel: kernel, gap: gap)
        let (xAxis, yAxis) = (axes.x, axes.y)
        let linear = linearLight, cancellation = StageContext.current.cancellation
        return try Image.make(size: size, hasAlpha: image.hasAlpha) { writer in
            // Bands of at least 32 rows; one per core when the output is large enough to pay.
            let work = size.width * size.height * (xAxis.table.taps + yAxis.table.taps)
            let bands = work < 2_000_000 ? 1 : max(1, min(System.coreCount, size.height / 32))
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                let rows = (band * size.height / bands)..<((band + 1) * size.height / bands)
                var pass = ResamplePass(image: image, x: xAxis, y: yAxis, linearLight: linear)
                pass.run(rows: rows, into: writer, cancellation: cancellation)
                pass.release()
            }
        }
    }
}

/// `Image.resampled(from:to:kernel:linearLight:)` made a band of output rows at a time, each
/// band from a window of the source's rows: what a `resample` stage (`StageClass.resample`) does
/// in the streamed run. The rows are the whole picture's byte for byte: the axes are the whole
/// picture's (`ResampleAxis`, its box pre-shrink included), and each output row is the same
/// arithmetic on the same source rows (`ResamplePass`), whatever band it falls in.
public struct WindowedResampling: Sendable {
    private enum Method: Sendable {
        /// No scaling at all: the region's pixels, as `resampled` shares them.
        case crop(Rect)
        case resample(Resampler, Axes)
    }

    /// A resampling's two axes, and for each output row the lowest working row it or any row
    /// below reads: worked out once per geometry (a stage asks strip after strip).
    final class Axes: Sendable {
        let x: ResampleAxis
        let y: ResampleAxis
        let lowestFrom: [Int]

        init(x: ResampleAxis, y: ResampleAxis) {
            self.x = x
            self.y = y
            var lowest = y.table.first
            for row in lowest.indices.reversed().dropFirst() { lowest[row] = min(lowest[row], lowest[row + 1]) }
            lowestFrom = lowest
        }

        private struct Key: Hashable {
            let sourceSize: Size, region: Region, size: Size, kernel: Kernel, gap: Double
        }

        /// The geometries' axes made lately: a service resamples the same few sizes again and
        /// again (making a photo's two axes took about 1.5 % of a request's CPU in
        /// `--scaling fast`), and a streamed run's stages ask for theirs more than once.
        private static let cache = RecentCache<Key, Axes>(bytes: 4 << 20)

        /// The axes of `region` of a `sourceSize` picture resampled to `size`.
        static func cached(sourceSize: Size, region: Region, size: Size, kernel: Kernel, gap: Double) -> Axes {
            let key = Key(sourceSize: sourceSize, region: region, size: size, kernel: kernel, gap: gap)
            return cache.value(for: key, bytes: { $0.x.table.bytes + $0.y.table.bytes + 8 * $0.lowestFrom.count }) {
                Axes(x: ResampleAxis(kernel: kernel, sourceLength: sourceSize.width, outputLength: size.width,
                                     start: region.x, extent: region.width, gap: gap),
                     y: ResampleAxis(kernel: kernel, sourceLength: sourceSize.height, outputLength: size.height,
                                     start: region.y, extent: region.height, gap: gap))
            }!
        }
    }

    private let method: Method
    /// The output's size.
    public let size: Size

    /// The resampling of `region` of a `sourceSize` picture to `size`, as `resampled` does it
    /// with `kernel` (nil: `ScalingMode.defaultKernel`).
    public init(sourceSize: Size, region: Region, to size: Size, kernel: Kernel?, linearLight: Bool) throws {
        guard region.width > 0, region.height > 0, region.width.isFinite, region.height.isFinite,
              region.x.isFinite, region.y.isFinite else {
            throw ImageError(.geometry, reason: "cannot resample the region \(region)")
        }
        guard size.width > 0, size.height > 0, size.width <= Int(Int32.max), size.height <= Int(Int32.max) else {
            throw ImageError(.tooLarge, reason: "cannot scale to \(size)")
        }
        self.size = size
        if let whole = region.pixelRect, whole.size == size, whole.isInside(sourceSize) {
            method = .crop(whole)
            return
        }
        let kernel = kernel ?? StageContext.current.scaling.defaultKernel
        let resampler = Resampler(kernel: kernel, linearLight: linearLight)
        method = .resample(resampler, Axes.cached(sourceSize: sourceSize, region: region, size: size, kernel: kernel, gap: resampler.gap))
    }

    /// The source rows output `rows` are made from. Its top is the lowest row any output row
    /// from `rows.lowerBound` on reads, so that it never moves back as `rows` goes down.
    public func sourceRows(forOutput rows: Range<Int>) -> Range<Int> {
        switch method {
        case let .crop(rect):
            return (rows.lowerBound + rect.y)..<(rows.upperBound + rect.y)
        case let .resample(_, axes):
            let table = axes.y.table
            var high = Int.min
            for row in rows { high = max(high, table.first[row] + table.used[row]) }
            return axes.y.sources(of: axes.lowestFrom[rows.lowerBound]).lowerBound..<axes.y.sources(of: high - 1).upperBound
        }
    }

    /// The source columns the output reads, every row of it.
    public var sourceColumns: Range<Int> {
        switch method {
        case let .crop(rect):
            return rect.x..<(rect.x + rect.width)
        case let .resample(_, axes):
            let table = axes.x.table
            guard let low = table.first.min(), let high = zip(table.first, table.used).map({ $0 + $1 }).max() else { return 0..<0 }
            return axes.x.sources(of: low).lowerBound..<axes.x.sources(of: high - 1).upperBound
        }
    }

    /// Output `rows` from `window`, source rows `top..<top + window.height` at the source's full
    /// width, which hold `sourceRows(forOutput: rows)`.
    public func rows(_ rows: Range<Int>, fromWindow window: Image, top: Int) throws -> Image {
        switch method {
        case let .crop(rect):
            return try window.cropped(to: Rect(x: rect.x, y: rows.lowerBound + rect.y - top, width: rect.width, height: rows.count))
        case let .resample(resampler, axes):
            let cancellation = StageContext.current.cancellation, size = size
            return try Image.make(size: Size(size.width, rows.count), hasAlpha: window.hasAlpha) { writer in
                // As `resample` bands the picture, in bands of at least 16 rows (a window is short).
                let work = size.width * rows.count * (axes.x.table.taps + axes.y.table.taps)
                let bands = work < 2_000_000 ? 1 : max(1, min(System.coreCount, rows.count / 16))
                DispatchQueue.concurrentPerform(iterations: bands) { band in
                    let part = (rows.lowerBound + band * rows.count / bands)..<(rows.lowerBound + (band + 1) * rows.count / bands)
                    var pass = ResamplePass(image: window, top: top, x: axes.x, y: axes.y, linearLight: resampler.linearLight)
                    pass.run(rows: part, into: writer, firstRow: rows.lowerBound, cancellation: cancellation)
                    pass.release()
                }
            }
        }
    }
}
