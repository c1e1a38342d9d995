extension FirstFrame {
    /// An animated WebP's first frame, as a still WebP; a still WebP as it is.
    init(webp bytes: [UInt8], path: String?) throws(ImageError) {
        self.init(still: bytes)
        try cutWebP(path: path)
    }

    /// WebP: RIFF chunks; each `ANMF` is a frame whose data (optional `ALPH`, then `VP8 ` or
    /// `VP8L`) is wrapped as a still WebP of the frame's size.
    private mutating func cutWebP(path: String?) throws(ImageError) {
        let b = bytes
        guard b.count >= 12 else { return }
        // An animation whose first frame cannot be cut out would go to the loader's animation
        // decoder whole, which fails noisily or decodes every frame: refuse it here.
        let announcesAnimation = b.count > 20 && b[12..<16].elementsEqual("VP8X".utf8) && b[20] & 0x02 != 0
        func little(_ offset: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 | Int(b[offset + $1]) << (8 * $1) } }
        func isType(_ offset: Int, _ type: String) -> Bool { b[offset..<(offset + 4)].elementsEqual(type.utf8) }
        var index = 12
        var frames = 0
        var first: (data: ArraySlice<UInt8>, width: Int, height: Int, x: Int, y: Int)?
        while index + 8 <= b.count {
            let size = little(index + 4, 4)
            let start = index + 8
            if isType(index, "ANMF") {
                frames += 1
                if frames == 1, size >= 16, start + size <= b.count {
                    // ANMF: x/2 and y/2 (3 bytes each), width-1 and height-1 (3 bytes each), duration, flags.
                    first = (b[(start + 16)..<(start + size)], little(start + 6, 3) + 1, little(start + 9, 3) + 1,
                             2 * little(start, 3), 2 * little(start + 3, 3))
                }
            }
            index = start + size + (size & 1)
        }
        guard frames > 0 || announcesAnimation else { return }
        frameCount = max(1, frames)
        guard let first else { throw ImageError(.corrupt, path: path, reason: "an animated WebP whose first frame is missing or cut short") }
        // A frame holds an image chunk (alpha first, or not); anything else (a nested VP8X that
        // says "animation", found by the decode fuzzer) would send the loader down its animation
        // path, where it asserts.
        guard ["ALPH", "VP8 ", "VP8L"].contains(where: { first.data.prefix(4).elementsEqual($0.utf8) }) else {
            throw ImageError(.corrupt, path: path, reason: "an animated WebP whose first frame holds no image data")
        }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            Array(type.utf8) + (0..<4).map { UInt8(truncatingIfNeeded: data.count >> (8 * $0)) } + data + (data.count & 1 == 1 ? [0] : [])
        }
        func triple(_ value: Int) -> [UInt8] { (0..<3).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var body = Array(first.data)
        if first.data.count >= 4, first.data.prefix(4).elementsEqual("ALPH".utf8) {
            // Alpha in its own chunk needs the extended header that announces it.
            body = chunk("VP8X", [0x10, 0, 0, 0] + triple(first.width - 1) + triple(first.height - 1)) + body
        }
        let cut = Array("RIFF".utf8) + (0..<4).map { UInt8(truncatingIfNeeded: (body.count + 4) >> (8 * $0)) } + Array("WEBP".utf8) + body
        // The frame is as large as its image, whatever its ANMF header says, as libwebp's demuxer
        // takes it: a 4x8196 image in a frame said to be 4x4, on a 4x4 canvas, found by the
        // decode fuzzer, decoded alone as 4x8196 where the header read said 4x4.
        let frame = try WebPChunks(.bytes(cut), path: path).size ?? Size(first.width, first.height)
        if announcesAnimation, b.count >= 30 {
            // VP8X: flags (4 bytes), canvas width-1 and height-1 (3 bytes each).
            let canvas = Size(little(24, 3) + 1, little(27, 3) + 1)
            if canvas != frame || first.x != 0 || first.y != 0 {
                webpPlacement = (canvas, first.x, first.y)
            }
        }
        bytes = cut
    }
}
