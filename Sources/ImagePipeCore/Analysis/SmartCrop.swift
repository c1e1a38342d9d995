#if canImport(Glibc)
import Glibc
#endif

/// Where to cut a window so that it keeps what matters in a picture, after libvips' smartcrop.
/// The analysis needs pixels: it runs after decoding, on a small copy of the picture.
///
/// - `attention`: each pixel of the small copy scores its edges (the magnitude of the luma
///   Laplacian) and how rare its color is in the picture; the score map is pooled over a few
///   pixels and squared (a subject's packed evidence outweighs a texture's thin spread), blurred
///   at about a tenth of the window's diagonal, and the window goes where it holds the most of
///   the blurred score.
/// - `entropy`: the window starts as the whole picture and loses strips, an eighth of the window
///   at most, from whichever side (left or right, top or bottom) has the lower entropy of its
///   luma histogram, until it has the window's size.
///
/// Fully transparent pixels score nothing. Both are deterministic; ties go to the top-left.
public enum SmartCrop {
    public enum Strategy: String, CaseIterable, Sendable {
        case attention
        case entropy
    }

    /// The longest side of the copy the analysis runs on.
    public static let analysisSide = 256

    /// The window a stage crops to in a decode that may be reduced (pixels of `source.image`,
    /// over the whole picture), noted for the run (`StageNote.window`) in the full picture's pixels.
    public static func window(width: Double, height: Double, in source: ReducedImage, strategy: Strategy) throws -> Region {
        // An animation's frames all take the first frame's window.
        let window = try FrameDecisions.decide {
            try Self.window(width: width, height: height, in: source.image, area: source.wholePicture, strategy: strategy)
        }
        StageNote.record(.window(source.unmap(window), strategy: strategy))
        return window
    }

    /// A window of `width` × `height` (pixels of `image`) inside `area` of `image`, placed where
    /// `strategy` finds the content, at whole pixels where the area allows. The window is clamped
    /// to `area` and keeps its size (at most the area's).
    public static func window(width: Double, height: Double, in image: Image, area: Region,
                              strategy: Strategy) throws -> Region {
        let windowWidth = min(width, area.width), windowHeight = min(height, area.height)
        let scale = min(1, Double(analysisSide) / max(area.width, area.height))
        let small = Size(max(1, Int((area.width * scale).rounded())), max(1, Int((area.height * scale).rounded())))
        let copy = try image.resampled(from: area, to: small, kernel: .box)
        let toSmallX = Double(small.width) / area.width, toSmallY = Double(small.height) / area.height
        let (luma, weight) = lumaAndWeight(copy)
        // The window in the small copy's pixels, then its top-left corner there.
        let smallWindow = (width: windowWidth * toSmallX, height: windowHeight * toSmallY)
        let corner: (x: Double, y: Double) = switch strategy {
        case .attention: attentionCorner(copy, luma: luma, weight: weight, window: smallWindow)
        case .entropy: entropyCorner(size: small, luma: luma, weight: weight, window: smallWindow)
        }
        // Whole pixels (the analysis is coarser than that anyway), so that a window that is not
        // scaled stays a plain crop; then kept inside the area.
        let x = min(max((area.x + corner.x / toSmallX).rounded(), area.x), area.maxX - windowWidth)
        let y = min(max((area.y + corner.y / toSmallY).rounded(), area.y), area.maxY - windowHeight)
        return Region(x: x, y: y, width: windowWidth, height: windowHeight)
    }

    /// Luma (0…255, Rec. 601) and alpha (0…1) of every pixel, row by row.
    static func lumaAndWeight(_ image: Image) -> (luma: [Float], weight: [Float]) {
        let width = image.width, height = image.height, channels = image.channelCount
        var luma = [Float](repeating: 0, count: width * height)
        var weight = [Float](repeating: 1, count: width * height)
        for y in 0..<height {
            let row = image.row(y)
            for x in 0..<width {
                let s = x * channels
                luma[y * width + x] = 0.299 * Float(row[s]) + 0.587 * Float(row[s + 1]) + 0.114 * Float(row[s + 2])
                if channels == 4 { weight[y * width + x] = Float(row[s + 3]) / 255 }
            }
        }
        return (luma, weight)
    }

    /// The top-left corner of the window that holds the most of the attention map.
    ///
    /// Each pixel scores its edges (the magnitude of the luma Laplacian: what is in focus) and
    /// the rarity of its color (how little of the picture has a color like it: a kite in the
    /// sky, a bottle in a warm room). Each of the two maps is divided by its mean, so that
    /// neither wins by its units, and the rarity counts half. No skin or saturation test: both
    /// were fooled by large warm or saturated surroundings (brick walls, wooden floors, blue
    /// skies), which are common colors and so not rare. The map is then blurred a little and
    /// squared, so that evidence packed in one place (a subject) outweighs the same amount
    /// spread thinly over a textured background (grass, bricks, clouds).
    static func attentionCorner(_ image: Image, luma: [Float], weight: [Float],
                                window: (width: Double, height: Double)) -> (x: Double, y: Double) {
        let width = image.width, height = image.height, channels = image.channelCount
        let count = width * height
        // Colors in 8 levels a channel (512 bins), counted by their opacity.
        var edge = [Float](repeating: 0, count: count)
        var bin = [Int](repeating: 0, count: count)
        var histogram = [Float](repeating: 0, count: 512)
        var opacity: Float = 0
        for y in 0..<height {
            let row = image.row(y)
            for x in 0..<width {
                let i = y * width + x, s = x * channels
                // Edges: |4·L − the four neighbours| (edges mirrored at the border).
                let left = luma[y * width + max(x - 1, 0)], right = luma[y * width + min(x + 1, width - 1)]
                let up = luma[max(y - 1, 0) * width + x], down = luma[min(y + 1, height - 1) * width + x]
                edge[i] = abs(4 * luma[i] - left - right - up - down) * weight[i]
                bin[i] = Int(row[s] >> 5) << 6 | Int(row[s + 1] >> 5) << 3 | Int(row[s + 2] >> 5)
                histogram[bin[i]] += weight[i]
                opacity += weight[i]
            }
        }
        // A color's rarity in bits (−log2 of its share of the picture), less 6: a color that
        // covers a 64th of the picture or more is background, however vivid.
        let rarityOfBin = histogram.map { $0 > 0 && opacity > 0 ? max(0, -log2($0 / opacity) - 6) : 0 }
        var rarity = [Float](repeating: 0, count: count)
        for i in 0..<count { rarity[i] = rarityOfBin[bin[i]] * weight[i] }
        func meanOf(_ values: [Float]) -> Float { values.reduce(0, +) / Float(count) }
        let edgeMean = meanOf(edge), rarityMean = meanOf(rarity)
        let edgeScale: Float = edgeMean > 0 ? 1 / edgeMean : 0, rarityScale: Float = rarityMean > 0 ? 0.5 / rarityMean : 0
        var score = [Float](repeating: 0, count: count)
        for i in 0..<count { score[i] = edge[i] * edgeScale + rarity[i] * rarityScale }
        // Pooled over a few pixels, then squared (over the mean, to keep the numbers near 1).
        boxBlur(&score, width: width, height: height, radius: 2)
        boxBlur(&score, width: width, height: height, radius: 2)
        let scoreMean = meanOf(score)
        if scoreMean > 0 {
            for i in 0..<count { score[i] = (score[i] / scoreMean) * (score[i] / scoreMean) }
        }
        // Two boxes of 0.12 of the window's diagonal, about a Gaussian of a tenth of it: a subject
        // smaller than the window then weighs most with the window centred on it.
        let radius = max(1, Int(((window.width * window.width + window.height * window.height).squareRoot() * 0.12).rounded()))
        boxBlur(&score, width: width, height: height, radius: radius)
        boxBlur(&score, width: width, height: height, radius: radius)
        // The window holding the most score, not the one centred on the peak: a wide subject
        // (or several) is kept whole rather than its sharpest part centred. The windows are
        // scored at whole pixels with a summed-area table; ties go to the top-left.
        let wholeWidth = min(width, max(1, Int(window.width.rounded()))), wholeHeight = min(height, max(1, Int(window.height.rounded())))
        var table = [Double](repeating: 0, count: (width + 1) * (height + 1))
        for y in 0..<height {
            var rowSum = 0.0
            for x in 0..<width {
                rowSum += Double(score[y * width + x])
                table[(y + 1) * (width + 1) + x + 1] = table[y * (width + 1) + x + 1] + rowSum
            }
        }
        var best = (x: 0, y: 0, sum: -Double.infinity)
        for y in 0...(height - wholeHeight) {
            for x in 0...(width - wholeWidth) {
                let x1 = x + wholeWidth, y1 = y + wholeHeight
                let sum = table[y1 * (width + 1) + x1] - table[y * (width + 1) + x1]
                    - table[y1 * (width + 1) + x] + table[y * (width + 1) + x]
                if sum > best.sum { best = (x, y, sum) }
            }
        }
        // The window itself is not whole pixels: centred on the whole-pixel one.
        return (Double(best.x) + (Double(wholeWidth) - window.width) / 2,
                Double(best.y) + (Double(wholeHeight) - window.height) / 2)
    }

    /// A separable box blur of `radius`, edges clamped; two of them approximate a Gaussian.
    static func boxBlur(_ values: inout [Float], width: Int, height: Int, radius: Int) {
        var line = [Float](repeating: 0, count: max(width, height))
        func blur(count: Int, at index: (Int) -> Int) {
            var sum: Float = 0
            for k in -radius...radius { sum += values[index(min(max(k, 0), count - 1))] }
            for k in 0..<count {
                line[k] = sum / Float(2 * radius + 1)
                sum += values[index(min(k + radius + 1, count - 1))] - values[index(max(k - radius, 0))]
            }
            for k in 0..<count { values[index(k)] = line[k] }
        }
        for y in 0..<height { blur(count: width) { y * width + $0 } }
        for x in 0..<width { blur(count: height) { $0 * width + x } }
    }

    /// Trims the lower-entropy side until the window is left; its top-left corner.
    static func entropyCorner(size: Size, luma: [Float], weight: [Float],
                              window: (width: Double, height: Double)) -> (x: Double, y: Double) {
        var box = (x0: 0, y0: 0, x1: size.width, y1: size.height) // half-open
        let wantedWidth = max(1, Int(window.width.rounded(.up))), wantedHeight = max(1, Int(window.height.rounded(.up)))
        let stepX = max(1, wantedWidth / 8), stepY = max(1, wantedHeight / 8)
        func entropy(_ x0: Int, _ x1: Int, _ y0: Int, _ y1: Int) -> Double {
            var histogram = [Float](repeating: 0, count: 64)
            var total: Float = 0
            for y in y0..<y1 {
                for x in x0..<x1 {
                    let i = y * size.width + x
                    histogram[min(63, Int(luma[i] / 4))] += weight[i]
                    total += weight[i]
                }
            }
            guard total > 0 else { return 0 }
            var sum = 0.0
            for count in histogram where count > 0 {
                let p = Double(count / total)
                sum -= p * log2(p)
            }
            return sum
        }
        while box.x1 - box.x0 > wantedWidth || box.y1 - box.y0 > wantedHeight {
            let excessX = box.x1 - box.x0 - wantedWidth
            if excessX > 0 {
                let cut = min(stepX, excessX)
                if entropy(box.x0, box.x0 + cut, box.y0, box.y1) < entropy(box.x1 - cut, box.x1, box.y0, box.y1) {
                    box.x0 += cut
                } else {
                    box.x1 -= cut
                }
            }
            let excessY = box.y1 - box.y0 - wantedHeight
            if excessY > 0 {
                let cut = min(stepY, excessY)
                if entropy(box.x0, box.x1, box.y0, box.y0 + cut) < entropy(box.x0, box.x1, box.y1 - cut, box.y1) {
                    box.y0 += cut
                } else {
                    box.y1 -= cut
                }
            }
        }
        // The whole-pixel box is at most a pixel larger than the window: centre the window in it.
        return (Double(box.x0) + (Double(box.x1 - box.x0) - window.width) / 2,
                Double(box.y0) + (Double(box.y1 - box.y0) - window.height) / 2)
    }
}
