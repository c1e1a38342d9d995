import ImagePipe

/// A plain convolution in Double written from the definition, to judge the real engine by:
/// every output pixel is Σ w(dx, dy) · p(clamp(x + dx), clamp(y + dy)) over premultiplied
/// colour and alpha, divided back by the result's alpha; no rounding until the end.
public enum ConvolutionReference {
    /// Unrounded straight-alpha values (RGB 0…255, alpha 0…1) per pixel, row-major.
    public static func convolve(_ image: Image, width kw: Int, height kh: Int, weights: [Double]) -> [[Double]] {
        let planes = FloatReference.Planes(image)
        var result: [[Double]] = []
        for y in 0..<image.height {
            for x in 0..<image.width {
                var sum = [0.0, 0, 0, 0]
                for ky in 0..<kh {
                    for kx in 0..<kw {
                        let sx = min(max(x + kx - kw / 2, 0), image.width - 1), sy = min(max(y + ky - kh / 2, 0), image.height - 1)
                        for c in 0..<4 { sum[c] += weights[ky * kw + kx] * planes.values[c][sy * image.width + sx] }
                    }
                }
                let a = sum[3]
                result.append(a > 0 ? [sum[0] / a, sum[1] / a, sum[2] / a, a] : [0, 0, 0, 0])
            }
        }
        return result
    }

    /// The outer product of a 1-D kernel with itself, row-major.
    public static func outer(_ kernel: [Double]) -> [Double] {
        kernel.flatMap { a in kernel.map { a * $0 } }
    }

    /// The largest difference in any channel (alpha in levels) between a picture and
    /// unrounded reference values, over pixels the reference sees as not transparent.
    public static func largestDifference(_ image: Image, _ reference: [[Double]]) -> Double {
        var largest = 0.0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y), r = reference[y * image.width + x]
                largest = max(largest, abs(Double(p.alpha) - r[3] * 255))
                guard r[3] * 255 >= 1 else { continue } // colour under alpha below one level is not seen
                for (c, v) in [p.red, p.green, p.blue].enumerated() {
                    largest = max(largest, abs(Double(v) - min(255, max(0, r[c]))))
                }
            }
        }
        return largest
    }
}
