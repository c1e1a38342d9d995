import ImagePipe

/// How a circle covers one row of pixels: which pixels are wholly inside, which are touched at
/// all, and the coverage of those on the edge (a one-pixel linear ramp across the circle's
/// edge, measured from each pixel's centre). Only the edge band needs that arithmetic: the
/// inside and outside of the circle are known without it.
struct CircleSpan {
    /// Pixels wholly inside (coverage 1).
    let inside: Range<Int>
    /// Pixels with any coverage; `touched` minus `inside` is the edge band.
    let touched: Range<Int>

    private let centerX: Double
    private let radius: Double
    private let dySquared: Double

    init(row y: Int, width: Int, center: Point, radius: Double) {
        centerX = center.x
        self.radius = radius
        let dy = Double(y) + 0.5 - center.y
        dySquared = dy * dy
        func columns(halfWidth: Double) -> Range<Int> {
            // Pixel x has its centre at x + 0.5: inside when |x + 0.5 − cx| ≤ halfWidth.
            let first = max(0, Int((center.x - halfWidth - 0.5).rounded(.up)))
            let last = min(width - 1, Int((center.x + halfWidth - 0.5).rounded(.down)))
            return first <= last ? first..<(last + 1) : 0..<0
        }
        let innerRadius = radius - 0.5, outerRadius = radius + 0.5
        inside = innerRadius > 0 && dySquared <= innerRadius * innerRadius
            ? columns(halfWidth: (innerRadius * innerRadius - dySquared).squareRoot()) : 0..<0
        let touchedColumns = dySquared < outerRadius * outerRadius
            ? columns(halfWidth: (outerRadius * outerRadius - dySquared).squareRoot()) : 0..<0
        // A pixel just past the outer half-width still has a sliver of coverage: widen by one.
        touched = touchedColumns.isEmpty ? touchedColumns
            : max(0, touchedColumns.lowerBound - 1)..<min(width, touchedColumns.upperBound + 1)
    }

    /// The coverage, 0…1, of pixel `x` of this row.
    func coverage(_ x: Int) -> Double {
        let dx = Double(x) + 0.5 - centerX
        return min(1, max(0, radius + 0.5 - (dx * dx + dySquared).squareRoot()))
    }
}
