#if canImport(Glibc)
import Glibc
#endif
import ImagePipeCore

/// The pixel work of `rotate`: each output pixel's centre is turned back about the pivot and
/// the picture sampled there bilinearly in premultiplied alpha, so pixels outside the picture
/// count as transparent and edges come out anti-aliased without dark fringes. `image` may be a
/// part of the picture (`imageRect` of an `inputSize` picture): a streamed run renders each
/// output tile from the input pixels it needs.
struct AnchorRotation {
    let image: Image?
    let imageRect: Rect
    let inputSize: Size
    let pivot: Point
    let background: Color
    private let cosine: Double, sine: Double

    init(image: Image, radians: Double, pivot: Point, background: Color) {
        self.init(part: image, at: Rect(x: 0, y: 0, width: image.width, height: image.height), of: image.size, radians: radians,
                  pivot: pivot, background: background)
    }

    init(part image: Image?, at imageRect: Rect?, of inputSize: Size, radians: Double, pivot: Point, background: Color) {
        self.image = image
        self.imageRect = imageRect ?? Rect(x: 0, y: 0, width: 0, height: 0)
        self.inputSize = inputSize
        (cosine, sine) = (cos(radians), sin(radians))
        self.pivot = pivot
        self.background = background
    }

    /// Where output pixel centre (x + 0.5, y + 0.5) comes from, in input pixel coordinates
    /// (pixel centres at whole numbers), the canvas's (0, 0) lying at `origin` in the input's frame.
    func source(x: Int, y: Int, origin: Point) -> (x: Double, y: Double) {
        let px = origin.x + Double(x) + 0.5 - pivot.x, py = origin.y + Double(y) + 0.5 - pivot.y
        // Inverse of the clockwise turn (y down): rotate by −angle.
        return (cosine * px + sine * py + pivot.x - 0.5, -sine * px + cosine * py + pivot.y - 0.5)
    }

    /// The input pixels output `rect` samples (each centre's two neighbors across and down),
    /// within the picture; nil when none.
    func sourceRect(forOutput rect: Rect, origin: Point) -> Rect? {
        let corners = [(rect.x, rect.y), (rect.maxX - 1, rect.y), (rect.x, rect.maxY - 1), (rect.maxX - 1, rect.maxY - 1)]
            .map { source(x: $0.0, y: $0.1, origin: origin) }
        // A pixel of margin against rounding between the corners and the pixels between them.
        let left = Int(corners.map(\.x).min()!.rounded(.down)) - 1, right = Int(corners.map(\.x).max()!.rounded(.down)) + 2
        let top = Int(corners.map(\.y).min()!.rounded(.down)) - 1, bottom = Int(corners.map(\.y).max()!.rounded(.down)) + 2
        return Rect(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
            .intersection(Rect(x: 0, y: 0, width: inputSize.width, height: inputSize.height))
    }

    func render(size: Size, origin: Point) throws -> Image {
        try render(Rect(x: 0, y: 0, width: size.width, height: size.height), origin: origin)
    }

    /// Output `rect` of the canvas whose (0, 0) lies at `origin` in the input's frame, its rows
    /// in bands on every core.
    func render(_ rect: Rect, origin: Point) throws -> Image {
        let hasAlpha = (image?.hasAlpha ?? false) || !background.isOpaque
        let outChannels = hasAlpha ? 4 : 3
        let backAlpha = Double(background.alpha) / 255
        let backPremultiplied = SIMD3(Double(background.red), Double(background.green), Double(background.blue)) * backAlpha
        let made = try Image.make(size: rect.size, hasAlpha: hasAlpha) { writer in
            RowBands.run(rows: rect.height, workPerRow: rect.width * 24) { rows in
                for row in rows {
                    let target = writer.row(row)
                    for column in 0..<rect.width {
                        let (sx, sy) = source(x: rect.x + column, y: rect.y + row, origin: origin)
                        let sample = sampleBilinear(x: sx, y: sy)
                        let alpha = sample[3] + backAlpha * (1 - sample[3])
                        let t = column * outChannels
                        for channel in 0..<3 {
                            let premultiplied = sample[channel] + backPremultiplied[channel] * (1 - sample[3])
                            target[t + channel] = alpha > 0 ? UInt8(min(255, max(0, (premultiplied / alpha).rounded()))) : 0
                        }
                        if hasAlpha { target[t + 3] = UInt8(min(255, (alpha * 255).rounded())) }
                    }
                }
            }
        }
        // A stopped run leaves rows unmade: they are not handed on.
        try StageContext.checkCancelled()
        return made
    }

    /// Premultiplied RGB (0…255) and alpha (0…1) at a fractional pixel position; neighbours
    /// outside the picture are transparent.
    private func sampleBilinear(x: Double, y: Double) -> SIMD4<Double> {
        var result = SIMD4<Double>()
        let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down))
        guard let image, x0 >= -1, y0 >= -1, x0 < inputSize.width, y0 < inputSize.height else { return result }
        let channels = image.channelCount
        let fx = x - Double(x0), fy = y - Double(y0)
        for dy in 0..<2 {
            let row = y0 + dy, wy = dy == 0 ? 1 - fy : fy
            guard row >= 0, row < inputSize.height, wy > 0 else { continue }
            let bytes = image.row(row - imageRect.y)
            for dx in 0..<2 {
                let column = x0 + dx, wx = dx == 0 ? 1 - fx : fx
                guard column >= 0, column < inputSize.width, wx > 0 else { continue }
                let s = (column - imageRect.x) * channels
                let weight = wx * wy
                let alpha = (channels == 4 ? Double(bytes[s + 3]) / 255 : 1) * weight
                result += SIMD4(Double(bytes[s]) * alpha, Double(bytes[s + 1]) * alpha, Double(bytes[s + 2]) * alpha, alpha)
            }
        }
        return result
    }
}
