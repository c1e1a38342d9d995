#if canImport(Glibc)
import Glibc
#endif
import ImagePipeCore

/// How a circle covers one row of pixels: which pixels are wholly inside, which are touched at
/// all, and the exact area of the circle inside each pixel of the edge band. Only that band
/// needs the arithmetic: the inside and outside of the circle are known without it.
struct CircleSpan {
    /// Pixels wholly inside (coverage 1).
    let inside: Range<Int>
    /// Pixels with any coverage; `touched` minus `inside` is the edge band.
    let touched: Range<Int>

    private let center: Point
    private let radius: Double
    private let row: Int

    init(row y: Int, width: Int, center: Point, radius: Double) {
        self.center = center
        self.radius = radius
        row = y
        // The row spans y…y+1; the circle's chord is widest at the row's point nearest the centre.
        let top = Double(y) - center.y, bottom = top + 1
        let nearest = top > 0 ? top : bottom < 0 ? -bottom : 0
        let farthest = max(abs(top), abs(bottom))
        func columns(halfWidth: Double, wholly: Bool) -> Range<Int> {
            // Pixel x spans x…x+1: wholly inside when both ends are within the half-width, touched
            // when any part is.
            let first = wholly ? Int((center.x - halfWidth).rounded(.up)) : Int((center.x - halfWidth).rounded(.down))
            let last = wholly ? Int((center.x + halfWidth).rounded(.down)) - 1 : Int((center.x + halfWidth).rounded(.up)) - 1
            let low = max(0, first), high = min(width - 1, last)
            return low <= high ? low..<(high + 1) : 0..<0
        }
        inside = farthest < radius ? columns(halfWidth: (radius * radius - farthest * farthest).squareRoot(), wholly: true) : 0..<0
        touched = nearest < radius ? columns(halfWidth: (radius * radius - nearest * nearest).squareRoot(), wholly: false) : 0..<0
    }

    /// The coverage, 0…1, of pixel `x` of this row: the area of the circle inside it.
    func coverage(_ x: Int) -> Double {
        let x0 = Double(x) - center.x, y0 = Double(row) - center.y
        let area = Self.cornerArea(x0 + 1, y0 + 1, radius) - Self.cornerArea(x0, y0 + 1, radius)
            - Self.cornerArea(x0 + 1, y0, radius) + Self.cornerArea(x0, y0, radius)
        return min(1, max(0, area))
    }

    /// The signed area of the circle (centred at the origin) inside the rectangle from the
    /// origin to (x, y): rectangles are differences of four of these.
    private static func cornerArea(_ x: Double, _ y: Double, _ r: Double) -> Double {
        let sign = (x < 0) != (y < 0) ? -1.0 : 1.0
        return sign * quadrantArea(min(abs(x), r), min(abs(y), r), r)
    }

    /// The area of the circle inside [0, x] × [0, y] for 0 ≤ x, y ≤ r.
    private static func quadrantArea(_ x: Double, _ y: Double, _ r: Double) -> Double {
        if x * x + y * y <= r * r { return x * y }
        // Beyond t0 the circle's arc is below the top edge y: integrate the arc from there.
        let t0 = (r * r - y * y).squareRoot()
        func arcIntegral(_ t: Double) -> Double { 0.5 * (t * (max(0, r * r - t * t)).squareRoot() + r * r * asin(min(1, t / r))) }
        return t0 * y + arcIntegral(x) - arcIntegral(t0)
    }
}
