/// Maps over a picture's pixels in parallel row bands with raw pointers: the helpers a point
/// operation (tone curves, colour changes, alpha) is written with, so no stage re-writes the
/// band splitting, the pointer arithmetic or the alpha bookkeeping.
extension Image {
    /// A new picture of the same size whose rows `body` writes from this picture's rows.
    /// `hasAlpha` chooses the output's layout (default: the input's); `workPerPixel` is a rough
    /// cost in simple operations, deciding when the rows are worth splitting across cores
    /// (`bands` fixes the split instead, see `RowBands.run`).
    /// `body` is called from several threads at once, each with its own rows.
    public func mapRows(hasAlpha outputAlpha: Bool? = nil, workPerPixel: Int = 8, bands: Int? = nil,
                        _ body: (RowPair) -> Void) throws -> Image {
        let alpha = outputAlpha ?? hasAlpha
        let channels = channelCount, width = self.width
        return try Image.make(size: size, hasAlpha: alpha) { writer in
            RowBands.run(rows: height, workPerRow: width * workPerPixel, bands: bands) { rows in
                for y in rows {
                    body(RowPair(y: y, width: width, source: rowStart(y), sourceChannels: channels,
                                 target: writer.row(y).baseAddress!, targetChannels: writer.channelCount))
                }
            }
        }
    }

    /// The colour of every pixel through a lookup table per channel (`red[v]` is the new red of
    /// red `v`); alpha is kept, or mapped through `alpha` when given. Tables have 256 entries.
    public func mapChannels(red: [UInt8], green: [UInt8], blue: [UInt8], alpha alphaTable: [UInt8]? = nil) throws -> Image {
        precondition(red.count == 256 && green.count == 256 && blue.count == 256 && (alphaTable?.count ?? 256) == 256,
                     "lookup tables have 256 entries")
        // One table of 4 × 256 entries: channel c of value v at c * 256 + v.
        let identity = (0...255).map { UInt8($0) }
        let tables = red + green + blue + (alphaTable ?? identity)
        return try tables.withUnsafeBufferPointer { lookup in
            let table = lookup.baseAddress!
            return try mapRows(workPerPixel: 4) { row in
                let n = row.width * row.sourceChannels
                if row.sourceChannels == 4 {
                    var i = 0
                    while i < n {
                        row.target[i] = table[Int(row.source[i])]
                        row.target[i + 1] = table[256 + Int(row.source[i + 1])]
                        row.target[i + 2] = table[512 + Int(row.source[i + 2])]
                        row.target[i + 3] = table[768 + Int(row.source[i + 3])]
                        i += 4
                    }
                } else {
                    var i = 0
                    while i < n {
                        row.target[i] = table[Int(row.source[i])]
                        row.target[i + 1] = table[256 + Int(row.source[i + 1])]
                        row.target[i + 2] = table[512 + Int(row.source[i + 2])]
                        i += 3
                    }
                }
            }
        }
    }

    /// Every colour channel through one 256-entry table; alpha is kept.
    public func mapChannels(_ table: [UInt8]) throws -> Image {
        try mapChannels(red: table, green: table, blue: table)
    }

    /// A new picture whose colour is `transform` of each pixel's colour, in Float 0…255 per
    /// channel, straight alpha (alpha is kept and not shown to `transform`). The result is
    /// rounded to nearest and clamped to 0…255. For per-pixel colour models (Lab, HSL) that no
    /// table per channel can express.
    @inlinable
    public func mapColors(workPerPixel: Int = 40, _ transform: (SIMD3<Float>) -> SIMD3<Float>) throws -> Image {
        try mapRows(workPerPixel: workPerPixel) { row in
            let channels = row.sourceChannels
            for x in 0..<row.width {
                let s = row.source + x * channels, t = row.target + x * channels
                let out = transform(SIMD3(Float(s[0]), Float(s[1]), Float(s[2])))
                // NaN would trap in the conversion: it becomes 0.
                let finite = out.replacing(with: 0, where: .!(out .== out))
                let c = finite.clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 255)) + SIMD3(repeating: 0.5)
                t[0] = UInt8(truncatingIfNeeded: Int32(c[0]))
                t[1] = UInt8(truncatingIfNeeded: Int32(c[1]))
                t[2] = UInt8(truncatingIfNeeded: Int32(c[2]))
                if channels == 4 { t[3] = s[3] }
            }
        }
    }
}
