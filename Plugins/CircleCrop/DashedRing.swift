import ImagePipeCore

/// The editor's ring: the circle stroked with a dash pattern (the seed: white, line width 2,
/// 4 on / 4 off). Dashes are measured along the circle from its rightmost point, clockwise on
/// screen, as Core Graphics strokes an oval path; edges are anti-aliased across and along.
public struct DashedRing: Hashable, Sendable {
    public var color: Color
    public var width: Double
    /// On and off lengths in pixels, alternating; empty or all-zero gaps draw a solid ring.
    public var dash: [Double]

    public init(color: Color = .white, width: Double = 2, dash: [Double] = [4, 4]) {
        self.color = color
        self.width = width
        self.dash = dash
    }

    /// Coverage 0…1 of the pixel whose centre lies at `distance` from the circle's centre and at
    /// `angle` (radians, clockwise from the rightmost point) on a circle of `radius`.
    func coverage(distance: Double, angle: Double, radius: Double) -> Double {
        let across = min(1, max(0, width / 2 + 0.5 - abs(distance - radius)))
        guard across > 0 else { return 0 }
        return across * alongCoverage(arc: (angle < 0 ? angle + 2 * .pi : angle) * radius)
    }

    /// The share of the one-pixel stretch of arc centred on `arc` that falls in an "on" dash.
    private func alongCoverage(arc: Double) -> Double {
        let period = dash.reduce(0, +)
        guard dash.count >= 2, period > 0, dash.enumerated().contains(where: { $0.offset % 2 == 1 && $0.element > 0 }) else { return 1 }
        var covered = 0.0
        // The stretch [arc − ½, arc + ½] may straddle a period boundary: look one period each way.
        let base = (arc / period).rounded(.down) * period
        for start in [base - period, base, base + period] {
            var position = start
            for (index, length) in dash.enumerated() {
                if index % 2 == 0 {
                    covered += max(0, min(position + length, arc + 0.5) - max(position, arc - 0.5))
                }
                position += length
            }
        }
        return min(1, covered)
    }
}
