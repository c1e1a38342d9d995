#if canImport(Glibc)
import Glibc
#endif
import ImagePipe

/// A plain, slow resampler in Double precision written straight from the definition, to judge
/// the real one against: output pixel i of an axis has its centre at start + (i + 0.5)·step in
/// source pixels (pixel j spans j…j+1); taps are source pixels whose centre lies within the
/// kernel's support stretched by max(1, step); taps outside the picture are dropped and the
/// rest renormalised. Colour is weighted by alpha. No pre-shrink, no rounding until the end.
public enum FloatReference {
    /// Premultiplied RGBA planes in 0…255, row-major.
    public struct Planes {
        public var width: Int
        public var height: Int
        public var values: [[Double]] // 4 planes

        public init(_ image: Image) {
            width = image.width
            height = image.height
            values = Array(repeating: [Double](repeating: 0, count: width * height), count: 4)
            for y in 0..<height {
                for x in 0..<width {
                    let p = image.pixel(x: x, y: y), a = Double(p.alpha) / 255
                    values[0][y * width + x] = Double(p.red) * a
                    values[1][y * width + x] = Double(p.green) * a
                    values[2][y * width + x] = Double(p.blue) * a
                    values[3][y * width + x] = a
                }
            }
        }
    }

    /// Weights for one axis: (first tap, weights) per output pixel.
    static func axis(kernel: Kernel, length: Int, count: Int, start: Double, extent: Double) -> [(Int, [Double])] {
        let step = extent / Double(count), stretch = max(1, step), radius = kernel.support * stretch
        return (0..<count).map { i in
            let center = start + (Double(i) + 0.5) * step
            let low = max(0, Int(ceil(center - radius - 0.5))), high = min(length - 1, Int(floor(center + radius - 0.5)))
            guard low <= high else { return (min(max(Int(floor(center)), 0), length - 1), [1]) }
            let weights = (low...high).map { kernel.weight((Double($0) + 0.5 - center) / stretch) }
            let total = weights.reduce(0, +)
            return (low, weights.map { $0 / total })
        }
    }

    /// The window `region` of `image` resampled to `size`, as unrounded straight-alpha values
    /// (RGB 0…255, alpha 0…1) per pixel.
    public static func resample(_ image: Image, region: Region, to size: Size, kernel: Kernel = .lanczos3) -> [[Double]] {
        let planes = Planes(image)
        let xs = axis(kernel: kernel, length: image.width, count: size.width, start: region.x, extent: region.width)
        let ys = axis(kernel: kernel, length: image.height, count: size.height, start: region.y, extent: region.height)
        // Rows first; the order does not change the exact result.
        var rows = Array(repeating: [Double](repeating: 0, count: size.width * image.height), count: 4)
        for c in 0..<4 {
            for y in 0..<image.height {
                for (i, (first, weights)) in xs.enumerated() {
                    var sum = 0.0
                    for (k, w) in weights.enumerated() { sum += w * planes.values[c][y * image.width + first + k] }
                    rows[c][y * size.width + i] = sum
                }
            }
        }
        var result: [[Double]] = []
        for (first, weights) in ys {
            for i in 0..<size.width {
                var pixel = [0.0, 0, 0, 0]
                for c in 0..<4 {
                    for (k, w) in weights.enumerated() { pixel[c] += w * rows[c][(first + k) * size.width + i] }
                }
                let a = pixel[3]
                result.append(a > 0 ? [pixel[0] / a, pixel[1] / a, pixel[2] / a, a] : [0, 0, 0, 0])
            }
        }
        return result
    }

    /// The peak signal-to-noise ratio in dB of `image`'s RGB against unrounded reference values.
    public static func psnr(_ image: Image, against reference: [[Double]]) -> Double {
        var squared = 0.0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y), r = reference[y * image.width + x]
                for (c, v) in [p.red, p.green, p.blue].enumerated() {
                    let d = Double(v) - min(255, max(0, r[c]))
                    squared += d * d
                }
            }
        }
        let mse = squared / Double(image.width * image.height * 3)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }
}
