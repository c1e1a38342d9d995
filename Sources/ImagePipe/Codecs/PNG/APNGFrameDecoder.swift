/// An APNG's frames, each decoded by libspng from a PNG stream of its own (`APNGStructure.stream`:
/// IHDR with the frame's size, the palette and color chunks, the frame's data as IDAT) and
/// drawn onto the canvas as the specification says: blended (source or over), shown, then
/// disposed of (none, background, previous). Each frame is color managed as the still picture
/// is, before it is drawn. The structure is walked whole first, so a frame out of the canvas or
/// out of sequence is known before any pixel is decoded; the frames before it are the animation
/// unless `failOnDamage`.
final class APNGFrameDecoder: AnimationDecoder {
    private let bytes: [UInt8]
    private let structure: APNGStructure
    private let options: LoadOptions
    private let failOnDamage: Bool
    private let path: String?
    let canvas: Size
    let plays: Int?
    /// The canvas as shown, RGBA, straight alpha; transparent black before the first frame.
    private var pixels: [UInt8]
    private var frameIndex = 0

    init(bytes: [UInt8], options: LoadOptions, failOnDamage: Bool, path: String?) throws {
        guard let structure = APNGStructure(bytes) else { throw ImageError(.unsupported, path: path, reason: "the PNG holds no animation (no acTL chunk before its image data)") }
        self.bytes = bytes
        self.structure = structure
        self.options = options
        self.failOnDamage = failOnDamage
        self.path = path
        canvas = structure.canvas
        plays = structure.announcement.plays
        try ImageHeader(storedSize: canvas, format: .png).checkPixels(limit: options.maxPixels, path: path)
        let (count, overflow) = canvas.pixelCount.multipliedReportingOverflow(by: 4)
        guard !overflow else { throw ImageError(.tooLarge, path: path, reason: "the APNG's \(canvas) canvas is too large to hold") }
        pixels = [UInt8](repeating: 0, count: count)
    }

    func next() throws -> AnimationFrame? {
        guard frameIndex < structure.frames.count else {
            guard let damage = structure.damage else { return nil }
            if frameIndex > 0, !options.refuses(damage.level) { return nil }
            throw ImageError(.corrupt, path: path, reason: damage.reason)
        }
        try options.checkDeadline(path: path)
        try StageContext.checkCancelled()
        let frame = structure.frames[frameIndex]
        let control = frame.control
        var frameOptions = options
        frameOptions.applyOrientation = false
        let decoded = try PNGDecoder.decode(.bytes(structure.stream(of: frame, in: bytes)), orientation: 1, options: frameOptions, path: path)
        guard decoded.size == Size(control.width, control.height) else {
            throw ImageError(.corrupt, path: path, reason: "APNG frame \(frameIndex) decodes to \(decoded.size), its fcTL says \(control.width)x\(control.height)")
        }
        // What `previous` puts back once the frame has been shown.
        let kept = control.dispose == .previous ? region(of: control) : nil
        draw(decoded, at: control)
        let image = try pixels.withUnsafeBufferPointer { try AnimationDecoding.image(ofRGBA: $0, size: canvas) }
        switch control.dispose {
        case .none: break
        case .background: clear(control)
        case .previous: if let kept { restore(kept, at: control) }
        }
        frameIndex += 1
        return AnimationFrame(image: image, delay: control.delay)
    }

    /// Draws the frame's pixels onto its region of the canvas.
    private func draw(_ frame: Image, at control: APNGFrameControl) {
        let channels = frame.channelCount
        pixels.withUnsafeMutableBufferPointer { canvasPixels in
            for row in 0..<control.height {
                let source = frame.row(row)
                let target = ((control.y + row) * canvas.width + control.x) * 4
                for column in 0..<control.width {
                    let s = column * channels, t = target + column * 4
                    let alpha = channels == 4 ? Int(source[s + 3]) : 255
                    if control.blend == .source || alpha == 255 || canvasPixels[t + 3] == 0 {
                        canvasPixels[t] = source[s]
                        canvasPixels[t + 1] = source[s + 1]
                        canvasPixels[t + 2] = source[s + 2]
                        canvasPixels[t + 3] = UInt8(alpha)
                        continue
                    }
                    guard alpha > 0 else { continue }
                    // Straight-alpha "over": the result's alpha, then each channel weighted by
                    // the part of the result it makes, rounded to the nearest level.
                    let below = Int(canvasPixels[t + 3])
                    let belowPart = below * (255 - alpha) // in 255ths of 255ths
                    let total = alpha * 255 + belowPart
                    for channel in 0..<3 {
                        let value = (Int(source[s + channel]) * alpha * 255 + Int(canvasPixels[t + channel]) * belowPart + total / 2) / total
                        canvasPixels[t + channel] = UInt8(value)
                    }
                    canvasPixels[t + 3] = UInt8((total + 127) / 255)
                }
            }
        }
    }

    /// The canvas's pixels under the frame's region, row after row.
    private func region(of control: APNGFrameControl) -> [UInt8] {
        var kept: [UInt8] = []
        kept.reserveCapacity(control.width * control.height * 4)
        for row in 0..<control.height {
            let start = ((control.y + row) * canvas.width + control.x) * 4
            kept += pixels[start..<start + control.width * 4]
        }
        return kept
    }

    private func restore(_ kept: [UInt8], at control: APNGFrameControl) {
        for row in 0..<control.height {
            let start = ((control.y + row) * canvas.width + control.x) * 4, from = row * control.width * 4
            pixels.replaceSubrange(start..<start + control.width * 4, with: kept[from..<from + control.width * 4])
        }
    }

    /// Clears the frame's region to transparent black.
    private func clear(_ control: APNGFrameControl) {
        for row in 0..<control.height {
            let start = ((control.y + row) * canvas.width + control.x) * 4
            pixels.replaceSubrange(start..<start + control.width * 4, with: repeatElement(0, count: control.width * 4))
        }
    }
}
