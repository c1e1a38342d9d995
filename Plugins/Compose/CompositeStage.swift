import ImagePipe

/// `composite OVERLAY [gravity=bottom-right] [offset=X,Y] [opacity=1] [blend=over|…]
/// [tile=false] [scale=auto]` — a picture file laid over the picture: watermarks, logos,
/// frames, masks (sharp's `composite`, libvips' `composite2`).
///
/// The overlay is decoded once per process while the file is unchanged (`OverlayCache`),
/// through the framework's loader under the run's format allowlist and limits, and scaled once
/// per size it is laid at (a batch of one picture size scales it once). It is composited in
/// premultiplied Float (see `Compositor`); scaling it goes through the shared resampler,
/// premultiplied too.
public struct CompositeStage: Transform, DeclaredStage {
    /// The largest offset: far beyond any picture the pixel limit allows, small enough that no
    /// arithmetic on it overflows.
    public static let maxOffset = 1_000_000.0

    public static let declaration = StageDeclaration(
        "composite", summary: "Lay a picture file over the picture: a watermark, logo, frame or mask",
        example: "composite logo.png gravity=bottom-right offset=16,16 opacity=0.8", start: CompositeStage(overlay: "overlay.png"), [
            Param(\.overlay, "overlay", .path, positional: true,
                  help: "The picture to lay over (PNG with alpha, usually), relative to the current directory as load's path is. Decoded once per run of a batch, under the run's --allow-format and limits; it and its scaled copy count against --max-memory, and the process keeps at most \(OverlayCache.defaultByteCapacity >> 20) MiB of overlays between pictures (a larger one is decoded for each)."),
            Param(\.gravity, "gravity", .choice(Gravity.self), default: .bottomRight,
                  help: "Where the overlay sits: top-left, top, top-right, left, center, right, bottom-left, bottom or bottom-right (the anchor names of other stages; sharp says northwest … southeast). Default bottom-right, a watermark's place (sharp centers; a centered logo is rarely wanted)."),
            Param(\.offset, "offset", .point, default: .zero,
                  help: "Pixels in from the gravity's edges, as ImageMagick's -gravity with -geometry: at bottom-right, 16,16 leaves a 16 px margin right and below; on the middle lines positive values move right and down."),
            Param(\.opacity, "opacity", .number(0...1), default: 1,
                  help: "Multiplies the overlay's alpha: 0.5 lets the picture show through half."),
            Param(\.blend, "blend", .choice(BlendMode.self), default: .over,
                  help: "over: the overlay in front (Porter-Duff); multiply, screen, overlay, darken, lighten: the W3C separable blend modes; dest-in keeps the picture only where the overlay is (alpha × overlay alpha, transparent where it does not reach), dest-out cuts it away there. dest-in and dest-out give RGBA."),
            Param(\.tile, "tile", .boolean, default: false,
                  help: "Repeat the overlay over the whole picture, the grid laid so that one copy sits where gravity and offset put it."),
            Param(\.scale, "scale", .number(0.0001...1), auto: true,
                  help: "The overlay's width as a fraction of the picture's (0.2: a fifth), height in proportion; auto leaves it as it is unless it is larger than the picture, then fits it inside."),
            ScalingParameters.kernel(\.kernel),
            ScalingParameters.linearLight(\.linearLight),
        ])

    public var overlay: String
    public var filesRead: [String] { [overlay] }
    public var gravity: Gravity
    public var offset: Point
    public var opacity: Double
    public var blend: BlendMode
    public var tile: Bool
    /// nil: auto.
    public var scale: Double?
    public var kernel: Kernel?
    public var linearLight = false

    public init(overlay: String, gravity: Gravity = .bottomRight, offset: Point = .zero, opacity: Double = 1,
                blend: BlendMode = .over, tile: Bool = false, scale: Double? = nil) {
        self.overlay = overlay
        self.gravity = gravity
        self.offset = offset
        self.opacity = opacity
        self.blend = blend
        self.tile = tile
        self.scale = scale
    }

    public func check() throws(ArgumentError) { try Self.checkOffset(offset) }

    /// An offset within `maxOffset` pixels on each side (composite's and text's).
    static func checkOffset(_ offset: Point) throws(ArgumentError) {
        guard abs(offset.x) <= maxOffset, abs(offset.y) <= maxOffset else {
            throw .parameter("offset", "offset \(offset) is too far: each side may be at most \(NumberFormat.text(maxOffset)) pixels")
        }
    }

    public func outputSize(for input: Size) throws -> Size {
        // A missing or refused overlay is reported by the plan, before the picture is decoded;
        // and so is a scaled overlay the pixel limit would refuse (a thin strip at scale=1).
        let placed = Self.placedSize(of: try overlaySize(), on: input, scale: scale)
        if let limit = StageContext.current.maxPixels, placed.pixelCount > limit {
            throw StageError("the overlay scaled to \(placed) would be \(placed.pixelCount) pixels, more than the limit of \(limit)")
        }
        return input
    }

    /// The decoded overlay, four bytes a pixel, and its scaled copy when it is laid at another
    /// size: both live while the stage runs (and stay in `OverlayCache` after, within its
    /// byte bound). Its size comes from the header, as `outputSize(for:)`'s check does.
    public func heldBytes(for input: Size) throws -> Int {
        let stored = try overlaySize()
        let placed = Self.placedSize(of: stored, on: input, scale: scale)
        // In Double, then clamped: with --max-pixels 0 a header's sizes may be absurd.
        let pixels = Double(stored.pixelCount) + (placed == stored ? 0 : Double(placed.pixelCount))
        return Int(min(Double(Int.max / 8), 4 * pixels))
    }

    public func explanation(for input: Size) throws -> String? {
        let stored = try overlaySize()
        let placed = Self.placedSize(of: stored, on: input, scale: scale)
        let origin = gravity.origin(of: placed, on: input, offset: offset)
        var words = ["\(overlay) \(stored)"]
        if placed != stored { words.append("scaled to \(placed)") }
        words.append(tile ? "tiled from \(origin.x),\(origin.y)" : "at \(origin.x),\(origin.y)")
        words.append("(\(gravity.rawValue)\(offset == .zero ? "" : " offset \(offset)"))")
        words.append("blend \(blend.rawValue)")
        if opacity != 1 { words.append("opacity \(NumberFormat.short(opacity))") }
        return words.joined(separator: " ")
    }

    /// Each row of the output is the input's row with the overlay's row over it, so a strip of
    /// rows at its place in the picture gets the overlay's rows that fall there.
    public var stageClass: StageClass { .point }

    /// The masking blends (dest-in, dest-out) give the picture alpha: the overlay's.
    public func outputHasAlpha(inputHasAlpha: Bool) -> Bool { inputHasAlpha || blend.isMask }


    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let (strip, position) = (input.pixels, input.position)
        let picture = position.pictureSize
        let placed = try Self.located {
            try OverlayCache.shared.image(at: overlay, options: LoadOptions.current, kernel: kernel, linearLight: linearLight) { stored in
                Self.placedSize(of: stored, on: picture, scale: scale)
            }
        }
        let origin = gravity.origin(of: placed.size, on: picture, offset: offset)
        return try Compositor.composite(placed, onto: strip, at: (origin.x, origin.y - position.top), tile: tile, blend: blend, opacity: opacity)
    }

    /// The size the overlay is laid at on a `canvas` picture: `scale` × the canvas's width
    /// (height in proportion), or for auto its own size, fitted inside the canvas if larger (as
    /// a viewer fits a picture: `FitViewport`, the limiting side exactly the canvas's). Sides
    /// round to the nearest pixel, at least 1.
    public static func placedSize(of overlay: Size, on canvas: Size, scale: Double?) -> Size {
        if let scale {
            let width = Rounding.side(scale * Double(canvas.width))
            return Size(width, Rounding.side(Double(width) * (Double(overlay.height) / Double(overlay.width))))
        }
        guard overlay.width > canvas.width || overlay.height > canvas.height else { return overlay }
        return FitViewport(viewport: canvas, imageSize: overlay).displayedSize()
    }

    private func overlaySize() throws -> Size {
        try Self.located { try OverlayCache.shared.size(of: overlay, options: LoadOptions.current) }
    }

    /// The overlay's read errors as the stage's own, so they carry its name and place in the
    /// pipeline text; a time-out stays one.
    private static func located<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ImageError where error.kind != .timedOut {
            throw StageError("overlay \(error)")
        }
    }
}
