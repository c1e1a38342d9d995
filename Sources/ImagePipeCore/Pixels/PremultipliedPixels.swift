/// Rows of 8-bit straight-alpha pixels to and from premultiplied `SIMD4<Float>` (colour × alpha,
/// then alpha, each 0…1; alpha is 1 for RGB): the view a filter that averages neighbours needs,
/// so transparent pixels' colour never bleeds in as a dark fringe (issue 16).
public enum PremultipliedPixels {
    /// 0…255 to 0…1: the table every premultiplied pixel loop reads levels through.
    public static let unit: [Float] = (0..<256).map { Float($0) / 255 }

    /// Converts `count` pixels of `channels` (3 or 4) bytes each at `source` into `target`.
    public static func load(_ source: UnsafePointer<UInt8>, channels: Int, count: Int,
                            into target: UnsafeMutablePointer<SIMD4<Float>>) {
        unit.withUnsafeBufferPointer { lut in
            let table = lut.baseAddress!
            if channels == 4 {
                for i in 0..<count {
                    let p = source + i * 4
                    let a = table[Int(p[3])]
                    target[i] = SIMD4(table[Int(p[0])] * a, table[Int(p[1])] * a, table[Int(p[2])] * a, a)
                }
            } else {
                for i in 0..<count {
                    let p = source + i * 3
                    target[i] = SIMD4(table[Int(p[0])], table[Int(p[1])], table[Int(p[2])], 1)
                }
            }
        }
    }

    /// Converts `count` premultiplied pixels back to `channels` (3 or 4) bytes each: colour
    /// divided by its own alpha (0 where alpha is 0), rounded to nearest, both clamped to
    /// range (filters with negative weights overshoot). For RGB, alpha is ignored.
    public static func store(_ source: UnsafePointer<SIMD4<Float>>, count: Int, channels: Int,
                             into target: UnsafeMutablePointer<UInt8>) {
        let scale = SIMD4<Float>(repeating: 255)
        if channels == 4 {
            for i in 0..<count {
                var v = source[i]
                let a = min(max(v[3], 0), 1)
                v = a > 0 ? v / SIMD4(a, a, a, 1) : .zero
                v[3] = a
                let c = v * scale
                let p = target + i * 4
                p[0] = byte(c[0])
                p[1] = byte(c[1])
                p[2] = byte(c[2])
                p[3] = byte(c[3])
            }
        } else {
            for i in 0..<count {
                let c = source[i] * scale
                let p = target + i * 3
                p[0] = byte(c[0])
                p[1] = byte(c[1])
                p[2] = byte(c[2])
            }
        }
    }

    /// A level (any Float; NaN gives 0) rounded to nearest and clamped to 0…255.
    ///
    /// Why not `UInt8(x.rounded())`: Swift checks every Float-to-integer conversion for range and
    /// traps, and those checks cost a blur a seventh of its time. 1.5 × 2²³ added to a value in
    /// 0…255 leaves the value rounded to nearest (ties to even) in the low bits of the sum's bit
    /// pattern, with nothing to check. (Swift's max(0, v) is `v >= 0 ? v : 0`: NaN gives 0.)
    @inline(__always)
    public static func byte(_ level: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: (min(255, max(0, level)) + 12_582_912).bitPattern)
    }
}
