#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import ImagePipe
@testable import ImagePipeCore
import TestSupport

/// The shared resampler: weights, exact geometry, alpha, precision, and aliasing.
@Suite struct ResamplerTests {
    static let kernels = Kernel.allCases

    @Test(arguments: kernels)
    func weightsSumToOneEverywhere(kernel: Kernel) {
        for (input, output, start, extent) in [(100, 7, 0.0, 100.0), (7, 100, 0.0, 7.0), (1000, 3, 10.25, 959.25), (5, 5, 0.5, 4.0)] {
            let table = WeightTable(kernel: kernel, inputLength: input, outputLength: output, start: start, extent: extent)
            for i in 0..<output {
                let sum = (0..<table.taps).reduce(Float(0)) { $0 + table.weights[i * table.taps + $1] }
                #expect(abs(sum - 1) < 1e-5, "\(kernel) \(input)→\(output) pixel \(i): \(sum)")
                #expect(table.first[i] >= 0 && table.first[i] + table.used[i] <= input)
            }
        }
    }

    @Test func kernelsHaveTheirDefiningValues() {
        #expect(Kernel.lanczos3.weight(0) == 1 && abs(Kernel.lanczos3.weight(1)) < 1e-12 && Kernel.lanczos3.weight(3) == 0)
        #expect(abs(Kernel.cubic.weight(1)) < 1e-12 && Kernel.cubic.weight(0) == 1) // Catmull-Rom interpolates
        #expect(abs(Kernel.mitchell.weight(0) - 8.0 / 9) < 1e-12 && abs(Kernel.mitchell.weight(1) - 1.0 / 18) < 1e-12)
        #expect(Kernel.linear.weight(0.25) == 0.75)
        #expect(Kernel.lanczos2.weight(0.5) > 0 && Kernel.lanczos2.weight(1.5) < 0) // the negative lobe
    }

    /// A flat picture stays exactly flat through every kernel, window and reduction (edge taps
    /// renormalised, box pre-shrink averaged right, rounding to nearest).
    @Test(arguments: kernels)
    func flatStaysFlat(kernel: Kernel) throws {
        let flat = try Image.filled(Color(red: 200, green: 17, blue: 99), size: Size(301, 203), hasAlpha: false)
        for (region, size) in [(Region(x: 0, y: 0, width: 301, height: 203), Size(7, 5)),
                               (Region(x: 10.3, y: 0.7, width: 150.5, height: 99.1), Size(33, 61)),
                               (Region(x: 0, y: 0, width: 301, height: 203), Size(640, 450))] {
            let out = try Resampler(kernel: kernel).resample(flat, from: region, to: size)
            for (x, y) in [(0, 0), (size.width - 1, size.height - 1), (size.width / 2, size.height / 3)] {
                #expect(out.pixel(x: x, y: y) == Color(red: 200, green: 17, blue: 99), "\(kernel) \(region) → \(size)")
            }
        }
    }

    /// One white pixel enlarged 4× with the triangle gives the triangle's samples.
    @Test func impulseResponseOfLinear() throws {
        let impulse = try Synthetic.image(5, 1) { x, _ in x == 2 ? Color(red: 255, green: 255, blue: 255) : .black }
        let out = try Resampler(kernel: .linear).resample(impulse, from: Region(x: 0, y: 0, width: 5, height: 1), to: Size(20, 1))
        // Output pixel i has its centre at (i + 0.5)/4; the triangle peaks at the input centre 2.5.
        for i in 0..<20 {
            let center = (Double(i) + 0.5) / 4
            let neighbours = (0..<5).filter { abs(Double($0) + 0.5 - center) < 1 }
            let weights = neighbours.map { 1 - abs(Double($0) + 0.5 - center) }
            let expected = 255 * (neighbours.contains(2) ? weights[neighbours.firstIndex(of: 2)!] / weights.reduce(0, +) : 0)
            #expect(abs(Double(out.pixel(x: i, y: 0).red) - expected) <= 0.5, "pixel \(i)")
        }
    }

    /// A black/white step halved: symmetric about the edge, with Lanczos' small overshoot only.
    @Test func stepResponseIsSymmetric() throws {
        let step = try Synthetic.image(64, 4) { x, _ in x < 32 ? Color(red: 40, green: 40, blue: 40) : Color(red: 220, green: 220, blue: 220) }
        let out = try Resampler(kernel: .lanczos3).resample(step, from: Region(x: 0, y: 0, width: 64, height: 4), to: Size(32, 2))
        for i in 0..<16 {
            let left = Int(out.pixel(x: 15 - i, y: 0).red) - 40, right = 220 - Int(out.pixel(x: 16 + i, y: 0).red)
            #expect(abs(left - right) <= 1, "mirror pixels \(15 - i) and \(16 + i)")
        }
        #expect(out.pixel(x: 0, y: 0).red == 40 && out.pixel(x: 31, y: 1).red == 220)
    }

    /// Transparent pixels' colour never leaks in: opaque red beside transparent green.
    @Test func alphaIsPremultiplied() throws {
        let picture = try Synthetic.image(40, 8, alpha: true) { x, _ in
            x < 20 ? Color(red: 255, green: 0, blue: 0, alpha: 255) : Color(red: 0, green: 255, blue: 0, alpha: 0)
        }
        let out = try Resampler(kernel: .lanczos3).resample(picture, from: Region(x: 0, y: 0, width: 40, height: 8), to: Size(10, 2))
        for x in 0..<10 {
            let p = out.pixel(x: x, y: 0)
            if p.alpha > 8 { #expect(p.green <= 1 && p.red >= 250, "pixel \(x): \(p)") }
        }
        #expect(out.pixel(x: 4, y: 0).alpha > 100 && out.pixel(x: 4, y: 0).alpha < 255, "the edge is partly transparent")
    }

    /// A 1-px checkerboard halved: grey 188 in linear light (the physical mean), 128 without.
    @Test func linearLightAveragesIntensities() throws {
        let board = try Synthetic.image(64, 64) { x, y in (x + y) % 2 == 0 ? .black : Color(red: 255, green: 255, blue: 255) }
        let whole = Region(x: 0, y: 0, width: 64, height: 64)
        let linear = try Resampler(kernel: .box, linearLight: true).resample(board, from: whole, to: Size(32, 32))
        let plain = try Resampler(kernel: .box).resample(board, from: whole, to: Size(32, 32))
        #expect(linear.pixel(x: 10, y: 10).red == 188)
        #expect(plain.pixel(x: 10, y: 10).red == 128)
    }

    /// Against the Double-precision reference: the fast paths (Float, box pre-shrink, row ring,
    /// bands, and for RGB reductions the integer column pass) stay within a rounding of it, at
    /// odd sizes and sub-pixel windows.
    @Test(arguments: [(Region(x: 0, y: 0, width: 211, height: 157), Size(37, 29)),
                      (Region(x: 10.25, y: 3.5, width: 150.75, height: 120.25), Size(61, 47)),
                      (Region(x: 0, y: 0, width: 211, height: 157), Size(300, 222)),
                      (Region(x: 0.5, y: 0, width: 200, height: 157), Size(211, 100))], [true, false])
    func matchesTheFloatReference(region: (Region, Size), alpha: Bool) throws {
        let (region, size) = region
        let picture = try Synthetic.image(211, 157, alpha: alpha) { x, y in
            Color(red: UInt8((x * 7 + y * 3) % 256), green: UInt8((x * x + y) % 256), blue: UInt8(y * 255 / 156),
                  alpha: UInt8(max(0, 255 - (x + y) % 97)))
        }
        let out = try Resampler(kernel: .lanczos3, gap: 100).resample(picture, from: region, to: size)
        let reference = FloatReference.resample(picture, region: region, to: size)
        var worst = 0.0
        for y in 0..<size.height {
            for x in 0..<size.width {
                let p = out.pixel(x: x, y: y), r = reference[y * size.width + x]
                worst = max(worst, abs(Double(p.alpha) - min(1, max(0, r[3])) * 255))
                guard r[3] > 0.05 else { continue } // colour of nearly transparent pixels is ill-conditioned
                for (c, v) in [p.red, p.green, p.blue].enumerated() { worst = max(worst, abs(Double(v) - min(255, max(0, r[c])))) }
            }
        }
        #expect(worst <= 1, "largest difference \(worst)")
    }

    /// Rounding to nearest keeps brightness: the mean of a reduction equals the mean of the
    /// picture (a truncation bias would show as −0.5, a biased rounding as +0.5).
    @Test func noBrightnessBias() throws {
        let picture = try Synthetic.image(400, 300) { x, y in
            let v = UInt8((x * 13 + y * 29) % 256)
            return Color(red: v, green: v, blue: v)
        }
        func mean(_ image: Image) -> Double {
            var sum = 0
            for y in 0..<image.height { for x in 0..<image.width { sum += Int(image.pixel(x: x, y: y).red) } }
            return Double(sum) / Double(image.width * image.height)
        }
        let out = try Resampler(kernel: .box).resample(picture, from: Region(x: 0, y: 0, width: 400, height: 300), to: Size(100, 75))
        #expect(abs(mean(out) - mean(picture)) < 0.1, "\(mean(out)) against \(mean(picture))")
    }

    /// A zone plate: concentric rings whose local frequency grows from the centre to the
    /// source's Nyquist at the edges. Shrunk 8×, every output pixel whose local frequency is
    /// past 1.5× the output's Nyquist on either axis should be flat grey (the ideal reduction
    /// removes it); what remains there is moiré. Lanczos3 leaves almost none; gdk-pixbuf's box
    /// (`fast`) leaves plainly visible rings. (The benchmark measures the same on a 4000² plate.)
    @Test func zonePlateAliasing() throws {
        let side = 800, out = 100
        // Phase k·(x² + y²): local frequency k·x/π cycles per pixel along x, 0.5 at the edges.
        let k = Double.pi * 0.5 / Double(side / 2)
        let plate = try Synthetic.image(side, side) { x, y in
            let dx = Double(x) + 0.5 - Double(side) / 2, dy = Double(y) + 0.5 - Double(side) / 2
            let v = UInt8((128 + 127 * cos(k * (dx * dx + dy * dy))).rounded())
            return Color(red: v, green: v, blue: v)
        }
        func residual(_ image: Image) -> Double {
            let nyquist = 0.5 * Double(out) / Double(side), scale = Double(side / out)
            var energy = 0.0, count = 0
            for y in 0..<out {
                for x in 0..<out {
                    let fx = k * abs((Double(x) + 0.5) * scale - Double(side) / 2) / Double.pi
                    let fy = k * abs((Double(y) + 0.5) * scale - Double(side) / 2) / Double.pi
                    guard max(fx, fy) > 1.5 * nyquist else { continue }
                    let d = Double(image.pixel(x: x, y: y).red) - 128
                    energy += d * d
                    count += 1
                }
            }
            return 10 * log10(energy / Double(count) / (127 * 127 / 2))
        }
        let whole = Region(x: 0, y: 0, width: Double(side), height: Double(side))
        let lanczos = residual(try plate.resampled(from: whole, to: Size(out, out), kernel: .lanczos3))
        let box = residual(try plate.resampled(from: whole, to: Size(out, out), kernel: .box))
        // Every mode's own kernel is Lanczos3: the modes differ only in the JPEG decode.
        let fast = residual(try StageContext(scaling: .fast).bound { try plate.scaled(to: Size(out, out)) })
        #expect(lanczos < -45, "lanczos3 residual \(lanczos) dB")
        #expect(box > -30, "box residual \(box) dB: a box is expected to alias")
        #expect(fast == lanczos, "fast residual \(fast) dB")
    }
}
