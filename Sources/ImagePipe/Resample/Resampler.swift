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
        let xAxis = ResampleAxis(kernel: kernel, sourceLength: image.width, outputLength: size.width,
                                 start: region.x, extent: region.width, gap: gap)
        let yAxis = ResampleAxis(kernel: kernel, sourceLength: image.height, outputLength: size.height,
                                 start: region.y, extent: region.height, gap: gap)
        let linear = linearLight, cancellation = Cancellation.current
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
