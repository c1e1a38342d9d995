import Dispatch
import Glibc

/// How far apart two pictures of one size are, in the measures image tools report: PSNR and
/// SSIM (as ImageMagick's `compare -metric` and the benchmarks here give them), the largest and
/// the mean difference of a sample, and how many pixels differ by more than a fuzz.
///
/// Samples are compared as stored, 8 bits per channel: R, G and B, and alpha when either
/// picture has it (an opaque picture's alpha is 255).
public struct PictureComparison: Equatable, Sendable {
    /// SSIM's Gaussian window: 11×11, σ 1.5 (Wang, Bovik, Sheikh and Simoncelli, 2004).
    public static let ssimWindow = 11

    public let size: Size
    /// 3 (RGB) or 4 (RGBA).
    public let channels: Int
    /// 10·log10(255² / MSE) over every sample; infinity when the pictures are the same.
    public let psnr: Double
    /// The mean of the SSIM map over the positions where the whole window fits, averaged over
    /// the channels (K1 0.01, K2 0.03, L 255); nil when a side is under 11 pixels.
    public let ssim: Double?
    /// The largest difference of one sample (0…255).
    public let maxDifference: Int
    /// The mean absolute difference of a sample (0…255).
    public let meanDifference: Double
    /// Pixels with some channel more than `fuzz` apart.
    public let differingPixels: Int
    public let fuzz: Int

    /// Compares `a` with `b`; they must be the same size.
    public init(_ a: Image, _ b: Image, fuzz: Int = 0) throws(ImageError) {
        let channels = try Self.channels(a, b)
        let (width, height) = (a.width, a.height)
        var squares = 0.0, absolute = 0, largest = 0, differing = 0
        for y in 0..<height {
            try StageContext.checkCancelled()
            let (rowA, rowB) = (a.row(y), b.row(y))
            for x in 0..<width {
                var pixelLargest = 0
                for channel in 0..<channels {
                    let difference = abs(Self.sample(rowA, x, channel, a.channelCount) - Self.sample(rowB, x, channel, b.channelCount))
                    squares += Double(difference * difference)
                    absolute += difference
                    pixelLargest = max(pixelLargest, difference)
                }
                largest = max(largest, pixelLargest)
                if pixelLargest > fuzz { differing += 1 }
            }
        }
        let samples = Double(width * height * channels)
        let meanSquare = squares / samples
        self.size = a.size
        self.channels = channels
        self.psnr = meanSquare == 0 ? .infinity : 10 * log10(255 * 255 / meanSquare)
        self.ssim = try Self.ssim(a, b, channels: channels)
        self.maxDifference = largest
        self.meanDifference = Double(absolute) / samples
        self.differingPixels = differing
        self.fuzz = fuzz
    }

    public var identical: Bool { maxDifference == 0 }

    /// The channels two pictures are compared in; throws when their sizes differ.
    static func channels(_ a: Image, _ b: Image) throws(ImageError) -> Int {
        guard a.size == b.size else {
            throw ImageError(.geometry, reason: "the pictures are \(a.size) and \(b.size); compare needs two pictures of one size")
        }
        return a.hasAlpha || b.hasAlpha ? 4 : 3
    }

    /// The largest difference of one channel at pixel `x` of two rows.
    @inline(__always)
    static func largestDifference(_ rowA: UnsafeBufferPointer<UInt8>, _ countA: Int, _ rowB: UnsafeBufferPointer<UInt8>, _ countB: Int,
                                  at x: Int, channels: Int) -> Int {
        var largest = 0
        for channel in 0..<channels { largest = max(largest, abs(sample(rowA, x, channel, countA) - sample(rowB, x, channel, countB))) }
        return largest
    }

    @inline(__always)
    static func sample(_ row: UnsafeBufferPointer<UInt8>, _ x: Int, _ channel: Int, _ count: Int) -> Int {
        channel < count ? Int(row[x * count + channel]) : 255
    }

    /// The mean SSIM, computed in bands of output rows on every core. Each band keeps the
    /// horizontally filtered x, y, x², y², xy of the last 11 rows, so memory does not grow with
    /// the picture.
    static func ssim(_ a: Image, _ b: Image, channels: Int) throws(ImageError) -> Double? {
        let window = ssimWindow
        guard a.width >= window, a.height >= window else { return nil }
        let weights: [Double] = {
            let raw = (0..<window).map { index -> Double in
                let x = Double(index) - Double(window - 1) / 2
                return exp(-x * x / (2 * 1.5 * 1.5))
            }
            let total = raw.reduce(0, +)
            return raw.map { $0 / total }
        }()
        let outWidth = a.width - window + 1, outHeight = a.height - window + 1
        let bands = min(outHeight, max(1, System.coreCount * 4))
        let sums = Locked([Double](repeating: 0, count: bands))
        let stopped = Locked(false)
        let cancellation = StageContext.current.cancellation
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            let first = outHeight * band / bands, last = outHeight * (band + 1) / bands
            // ring[slot][quantity][channel * outWidth + x], quantity: x, y, x², y², xy.
            var ring = [[[Double]]](repeating: [[Double]](repeating: [Double](repeating: 0, count: channels * outWidth), count: 5), count: window)
            var total = 0.0
            let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
            for inputRow in first..<(last + window - 1) {
                if cancellation?.isCancelled == true { stopped.withLock { $0 = true }; return }
                let (rowA, rowB) = (a.row(inputRow), b.row(inputRow))
                let slot = inputRow % window
                for channel in 0..<channels {
                    let base = channel * outWidth
                    for x in 0..<outWidth {
                        var sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
                        for k in 0..<window {
                            let u = Double(sample(rowA, x + k, channel, a.channelCount)), v = Double(sample(rowB, x + k, channel, b.channelCount))
                            let w = weights[k]
                            sx += w * u; sy += w * v; sxx += w * u * u; syy += w * v * v; sxy += w * u * v
                        }
                        ring[slot][0][base + x] = sx; ring[slot][1][base + x] = sy
                        ring[slot][2][base + x] = sxx; ring[slot][3][base + x] = syy; ring[slot][4][base + x] = sxy
                    }
                }
                guard inputRow >= first + window - 1 else { continue }
                let top = inputRow - window + 1
                for index in 0..<(channels * outWidth) {
                    var mx = 0.0, my = 0.0, exx = 0.0, eyy = 0.0, exy = 0.0
                    for k in 0..<window {
                        let row = ring[(top + k) % window], w = weights[k]
                        mx += w * row[0][index]; my += w * row[1][index]
                        exx += w * row[2][index]; eyy += w * row[3][index]; exy += w * row[4][index]
                    }
                    let vx = exx - mx * mx, vy = eyy - my * my, cov = exy - mx * my
                    total += ((2 * mx * my + c1) * (2 * cov + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))
                }
            }
            sums.withLock { $0[band] = total }
        }
        if stopped.withLock({ $0 }) { throw Cancellation.stopped(path: nil) }
        return sums.withLock { $0.reduce(0, +) } / Double(outWidth * outHeight * channels)
    }

    /// A picture of where `a` and `b` differ, as ImageMagick's `compare` draws it: `a` faded
    /// toward white, and each pixel more than `fuzz` apart in red.
    public static func differencePicture(_ a: Image, _ b: Image, fuzz: Int = 0) throws -> Image {
        let channels = try Self.channels(a, b)
        return try Image.make(size: a.size, hasAlpha: false) { writer in
            for y in 0..<a.height {
                let (rowA, rowB, target) = (a.row(y), b.row(y), writer.row(y))
                for x in 0..<a.width {
                    if largestDifference(rowA, a.channelCount, rowB, b.channelCount, at: x, channels: channels) > fuzz {
                        (target[x * 3], target[x * 3 + 1], target[x * 3 + 2]) = (255, 0, 0)
                    } else {
                        // Luma, faded 70 % toward white: the picture stays recognizable under the red.
                        let luma = (2126 * sample(rowA, x, 0, a.channelCount) + 7152 * sample(rowA, x, 1, a.channelCount)
                            + 722 * sample(rowA, x, 2, a.channelCount)) / 10000
                        let faded = UInt8(255 - (255 - luma) * 3 / 10)
                        (target[x * 3], target[x * 3 + 1], target[x * 3 + 2]) = (faded, faded, faded)
                    }
                }
            }
        }
    }
}
