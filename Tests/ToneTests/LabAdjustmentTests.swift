import Foundation
import Testing
import ImagePipe
import TestSupport

/// The compiled L*a*b* loop (`LabAdjustment`, `imagepipe_lab_adjust_row`) against the same
/// arithmetic in Swift (`CIELab`, through `mapColors`), over a cube of colours: within one level
/// everywhere, alpha kept.
@Suite struct LabAdjustmentTests {
    /// 18³ colours, every 15th code value of each channel, in one 324 × 18 picture; alpha varies.
    static func cube(alpha: Bool) throws -> Image {
        try Synthetic.image(18 * 18, 18, alpha: alpha) { x, y in
            Color(red: UInt8(x % 18 * 15), green: UInt8(x / 18 * 15), blue: UInt8(y * 15), alpha: UInt8((x * 7 + y) % 256))
        }
    }

    @Test(arguments: [false, true])
    func theCompiledLoopIsTheSwiftArithmetic(alpha: Bool) throws {
        let picture = try Self.cube(alpha: alpha)
        let (scale, offset, saturation, hue) = (Float(1.1), Float(-4), Float(1.3), Angle(degrees: 40))
        let made = try LabAdjustment(lightnessScale: scale, lightnessOffset: offset, saturation: saturation, hue: hue).apply(to: picture)
        let cosine = Float(cos(hue.radians)) * saturation, sine = Float(sin(hue.radians)) * saturation
        let expected = try picture.mapColors { rgb in
            let lab = CIELab.fromSRGB(rgb)
            return CIELab.toSRGB(SIMD3(lab[0] * scale + offset, lab[1] * cosine - lab[2] * sine, lab[1] * sine + lab[2] * cosine))
        }
        let largest = Self.largestDifference(made, expected)
        for y in 0..<picture.height {
            for x in 0..<picture.width { #expect(made.pixel(x: x, y: y).alpha == picture.pixel(x: x, y: y).alpha) }
        }
        #expect(largest <= 1, "largest difference \(largest)")
        // Nothing changed, nothing moves: every colour back as it was, within a level.
        let same = try LabAdjustment().apply(to: picture)
        #expect(Self.largestDifference(same, picture) <= 1)
    }

    static func largestDifference(_ a: Image, _ b: Image) -> Int {
        var largest = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                largest = max(largest, abs(Int(p.red) - Int(q.red)), abs(Int(p.green) - Int(q.green)), abs(Int(p.blue) - Int(q.blue)))
            }
        }
        return largest
    }

    /// The lightness range clamps L* (normalize's stretch): a stretch past white is white, and a
    /// saturated color stretched keeps its chroma at L* 100 (unclamped, every channel would pass
    /// 255: red would come out white).
    @Test func theLightnessIsClampedToItsRange() throws {
        var stretch = LabAdjustment()
        (stretch.lightnessScale, stretch.lightnessOffset, stretch.lightnessRange) = (4, 0, 0...100)
        let picture = try Self.cube(alpha: false)
        let made = try stretch.apply(to: picture)
        #expect(made.pixel(x: 18 * 18 - 1, y: 17) == Color(red: 255, green: 255, blue: 255))
        #expect(made.pixel(x: 0, y: 0) == Color(red: 0, green: 0, blue: 0))
        let expected = try picture.mapColors { rgb in
            let lab = CIELab.fromSRGB(rgb)
            return CIELab.toSRGB(SIMD3(min(max(lab[0] * 4, 0), 100), lab[1], lab[2]))
        }
        #expect(Self.largestDifference(made, expected) <= 1)
        #expect(made.pixel(x: 17, y: 0).green < 220, "pure red stretched: \(made.pixel(x: 17, y: 0))")
    }
}
