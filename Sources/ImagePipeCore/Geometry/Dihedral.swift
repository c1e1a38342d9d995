/// One of the eight ways to turn or mirror a whole picture onto itself (the dihedral group of the
/// square): what an EXIF orientation asks for, what `rotate 90`, `flip` and `flop` do, and any
/// sequence of them, which is again one of the eight.
///
/// Each is the 2×2 matrix it applies to a pixel's position about the picture's center (x to the
/// right, y down): a quarter turn clockwise takes (x, y) to (−y, x). Doing `a` then `b` is the
/// product b·a, so a chain of stages folds into one turn.
public struct Dihedral: Hashable, Sendable, CustomStringConvertible {
    /// Row-major: (a b; c d) takes (x, y) to (a·x + b·y, c·x + d·y).
    let a: Int, b: Int, c: Int, d: Int

    public static let identity = Dihedral(a: 1, b: 0, c: 0, d: 1)
    public static let rotate90 = Dihedral(a: 0, b: -1, c: 1, d: 0)
    public static let rotate180 = Dihedral(a: -1, b: 0, c: 0, d: -1)
    public static let rotate270 = Dihedral(a: 0, b: 1, c: -1, d: 0)
    /// Top to bottom.
    public static let flip = Dihedral(a: 1, b: 0, c: 0, d: -1)
    /// Left to right.
    public static let flop = Dihedral(a: -1, b: 0, c: 0, d: 1)
    /// About the top-left to bottom-right diagonal.
    public static let transpose = Dihedral(a: 0, b: 1, c: 1, d: 0)
    /// About the top-right to bottom-left diagonal.
    public static let transverse = Dihedral(a: 0, b: -1, c: -1, d: 0)

    /// All eight, in EXIF orientation order (orientation n is `all[n - 1]`).
    public static let all: [Dihedral] = [.identity, .flop, .rotate180, .flip, .transpose, .rotate90, .transverse, .rotate270]

    /// What displays a picture stored with EXIF orientation `orientation` (1–8) upright.
    public init(exifOrientation orientation: Int) {
        self = (1...8).contains(orientation) ? Self.all[orientation - 1] : .identity
    }

    private init(a: Int, b: Int, c: Int, d: Int) {
        (self.a, self.b, self.c, self.d) = (a, b, c, d)
    }

    /// Clockwise quarter turns (any whole number; 4 is none).
    public init(quarterTurns: Int) {
        self = [Self.identity, .rotate90, .rotate180, .rotate270][((quarterTurns % 4) + 4) % 4]
    }

    /// This, then `next`.
    public func then(_ next: Dihedral) -> Dihedral {
        Dihedral(a: next.a * a + next.b * c, b: next.a * b + next.b * d, c: next.c * a + next.d * c, d: next.c * b + next.d * d)
    }

    /// What undoes it.
    public var inverse: Dihedral { Self.all.first { then($0) == .identity }! }

    /// Its EXIF orientation (1–8): what `all` lists it as.
    public var exifOrientation: Int { Self.all.firstIndex(of: self)! + 1 }

    /// Whether it swaps width and height.
    public var swapsSides: Bool { a == 0 }

    /// The size of a picture of `size` once turned.
    public func size(of size: Size) -> Size { swapsSides ? size.transposed : size }

    /// Where the pixels of `rect` of a picture of `size` lie once the picture is turned.
    public func map(_ rect: Rect, in size: Size) -> Rect {
        let turned = self.size(of: size)
        // Pixel centers in doubled coordinates about the picture's center, so they stay whole.
        func map(_ x: Int, _ y: Int) -> (Int, Int) {
            let (u, v) = (2 * x + 1 - size.width, 2 * y + 1 - size.height)
            let (p, q) = (a * u + b * v, c * u + d * v)
            return ((p + turned.width - 1) / 2, (q + turned.height - 1) / 2)
        }
        let first = map(rect.x, rect.y), last = map(rect.x + rect.width - 1, rect.y + rect.height - 1)
        return Rect(x: min(first.0, last.0), y: min(first.1, last.1),
                    width: abs(last.0 - first.0) + 1, height: abs(last.1 - first.1) + 1)
    }

    public var description: String {
        ["none", "flop", "rotate 180", "flip", "transpose", "rotate 90", "transverse", "rotate 270"][Self.all.firstIndex(of: self)!]
    }
}
