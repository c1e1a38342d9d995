import ImagePipe

/// `text "…" [font="Sans 24"] [color=white] [gravity=bottom-right] [offset=X,Y] [opacity=1]
/// [width=auto] [align=left]` — a caption or text watermark drawn with Pango and laid over the
/// picture (sharp's `text` input composited, ImageMagick's `-annotate`).
///
/// The text is drawn once per process for each text, font, colour, width and alignment
/// (`TextRenderer`), antialiased, then composited source-over like `composite`'s overlay.
public struct TextStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "text", summary: "Draw text over the picture: a caption or watermark (Pango: any script, any installed font)",
        example: "text \"© 2025 ImagePipe\" font=\"DejaVu Sans Bold 32\" offset=24,24 opacity=0.8", start: TextStage(""), [
            Param(\.content, "text", .string, positional: true,
                  help: "The text, UTF-8, in any script Pango shapes (Latin, Arabic, Devanagari, CJK…); \\n breaks lines. At most \(TextLimits.maxCharacters) characters, \(TextLimits.maxBytes) bytes and \(TextLimits.maxLines) lines, a character at most \(TextLimits.maxMarksPerCharacter) combining marks and \(TextLimits.maxScalarsPerCharacter) code points: shaping grows faster than the text. The drawn text is measured before it is drawn and counts against --max-pixels and --max-memory (8 bytes a pixel while it is drawn)."),
            Param(\.font, "font", .string, default: "Sans 24",
                  help: "A Pango font description: family, style words, size in pixels (72 dpi, so points = pixels, sharp's default), like \"DejaVu Serif Bold Italic 40\". A family that is not installed is refused, not silently replaced; generic families (sans, serif, monospace) take the machine's choice. At most \(NumberFormat.short(TextRenderer.maxPixels)) px."),
            Param(\.color, "color", .color, default: .white,
                  help: "The text's color; its alpha multiplies with opacity. White, as a watermark on a photo most often is (sharp's text is black on transparent)."),
            Param(\.gravity, "gravity", .choice(Gravity.self), default: .bottomRight,
                  help: "Where the text block sits, as composite's gravity."),
            Param(\.offset, "offset", .point, default: .zero,
                  help: "Pixels in from the gravity's edges, as composite's offset."),
            Param(\.opacity, "opacity", .number(0...1), default: 1,
                  help: "Multiplies the text's alpha."),
            Param(\.width, "width", .integer(1...100_000), auto: true,
                  help: "Wrap lines to this many pixels, at word boundaries (within a word when one is longer); auto breaks lines only at \\n."),
            Param(\.alignment, "align", .choice(TextAlignment.self), default: .left,
                  help: "How the lines of a block of several line up: left, center or right."),
        ])

    /// The text to draw (the parameter `text`; a property of that name would hide the stage's
    /// canonical `text`).
    public var content: String
    public var font: String
    public var color: Color
    public var gravity: Gravity
    public var offset: Point
    public var opacity: Double
    /// nil: auto.
    public var width: Int?
    public var alignment: TextAlignment

    public init(_ content: String, font: String = "Sans 24", color: Color = .white, gravity: Gravity = .bottomRight,
                offset: Point = .zero, opacity: Double = 1, width: Int? = nil, alignment: TextAlignment = .left) {
        self.content = content
        self.font = font
        self.color = color
        self.gravity = gravity
        self.offset = offset
        self.opacity = opacity
        self.width = width
        self.alignment = alignment
    }

    /// Refuses a font that is not installed, and a text past `TextLimits`, when the pipeline is
    /// compiled, pointing at them.
    public func check() throws(ArgumentError) {
        try CompositeStage.checkOffset(offset)
        if let problem = TextLimits.problem(in: content) { throw .parameter("text", problem) }
        if case let .failure(error) = TextRenderer.resolve(font) { throw .parameter("font", error.message) }
    }

    public func outputSize(for input: Size) -> Size { input }

    /// Characters no installed font has, which Pango draws as boxes holding their codes: named
    /// (U+XXXX and the character), with a family fontconfig finds that has them, if any.
    public var warnings: [String] {
        let missing = TextRenderer.missingCharacters(in: content, font: font)
        guard !missing.isEmpty else { return [] }
        let listed = missing.map { scalar in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex) (\(Character(scalar)))"
        }.joined(separator: ", ")
        let remedy: String
        if let family = TextRenderer.family(having: missing) {
            let size = (try? TextRenderer.resolve(font).get()).map { " \(NumberFormat.text($0.pixels))" } ?? ""
            remedy = "'\(family)' has \(missing.count == 1 ? "it" : "them"): font='\(family)\(size)'"
        } else {
            remedy = "no installed font has \(missing.count == 1 ? "it" : "them"); install one that does (fc-list ':charset=\(String(missing[0].value, radix: 16))' lists those that do)"
        }
        return ["the font '\(font)' has no glyph for \(listed), drawn as \(missing.count == 1 ? "a box" : "boxes"); \(remedy)"]
    }

    /// The drawn text twice over, four bytes a pixel: cairo's premultiplied surface and the
    /// straight-alpha picture made from it live together while it is converted. Measured
    /// from Pango's layout without drawing; a text past the pixel limit is refused here, in
    /// the plan, before anything is drawn.
    public func heldBytes(for input: Size) throws -> Int {
        let size = try measure()
        try TextRenderer.checkSize(size, limit: StageContext.current.maxPixels)
        return size.pixelCount * 8
    }

    /// The size of the drawn text, from its layout alone; (0, 0) when there is nothing to draw.
    public func measure() throws -> Size {
        try TextRenderer.measure(content, font: font, width: width, alignment: alignment)
    }

    public func explanation(for input: Size) throws -> String? {
        guard case let .success(resolved) = TextRenderer.resolve(font) else { return nil }
        var words = ["\(resolved.family) \(NumberFormat.short(resolved.pixels)) px"]
        // Measured, not drawn: explaining a huge caption costs no more than its layout.
        let size = try measure()
        if size.pixelCount > 0 {
            let origin = gravity.origin(of: size, on: input, offset: offset)
            words.append("\(size) at \(origin.x),\(origin.y) (\(gravity.rawValue)\(offset == .zero ? "" : " offset \(offset)"))")
        } else {
            words.append("nothing to draw")
        }
        if opacity != 1 { words.append("opacity \(NumberFormat.short(opacity))") }
        return words.joined(separator: " ")
    }

    /// Each row of the output is the input's row with the text's row over it: a strip of rows
    /// at its place in the picture gets the text's rows that fall there.
    public var stageClass: StageClass { .point }


    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let (strip, position) = (input.pixels, input.position)
        guard let drawn = try drawnOnce() else { return strip }
        let origin = gravity.origin(of: drawn.size, on: position.pictureSize, offset: offset)
        return try Compositor.composite(drawn, onto: strip, at: (origin.x, origin.y - position.top), opacity: opacity)
    }

    /// The text as a straight-alpha picture, nil when there is no ink or line to draw.
    public func draw() throws -> Image? {
        try TextRenderer.draw(content, font: font, color: color, width: width, alignment: alignment,
                              maxPixels: StageContext.current.maxPixels)
    }

    /// `draw()`, kept from the last call with the same stage and limit: a streamed run puts the
    /// text on a strip at a time, and draws it once.
    private func drawnOnce() throws -> Image? {
        let limit = StageContext.current.maxPixels
        if let last = Self.lastDrawn.withLock({ $0 }), last.stage == self, last.limit == limit { return last.drawn }
        let drawn = try draw()
        Self.lastDrawn.withLock { $0 = (self, limit, drawn) }
        return drawn
    }

    private static let lastDrawn = Locked<(stage: TextStage, limit: Int?, drawn: Image?)?>(nil)
}
