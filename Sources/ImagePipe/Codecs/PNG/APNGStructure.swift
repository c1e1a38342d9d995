import CDeflate

/// The animation an APNG's chunks describe (acTL, then an fcTL per frame followed by its image
/// data: IDAT for a frame that is also the default image, fdAT otherwise), walked without
/// decoding, every frame's place and sequence number checked as Pillow checks them.
///
/// A file is an APNG when one acTL chunk, announcing 1 to 2^31 frames, comes before the image
/// data; a second acTL, one after IDAT, or a count of 0 leave it a still PNG (its default
/// image), as Pillow and browsers read it. The frames are the animation's: a default image
/// before the first fcTL is not one of them (the specification's "default image not part of
/// the animation"), as browsers play it. An animation that announces fewer frames than it
/// holds is its announced frames.
struct APNGStructure {
    /// Why the frames stop before the announced count, and the `load fail=` level it belongs to.
    struct Damage: Error, Equatable {
        let level: FailOn
        let reason: String

        init(_ level: FailOn, _ reason: String) {
            self.level = level
            self.reason = reason
        }
    }

    /// What the chunks before the image data say of the animation.
    struct Announcement: Equatable {
        /// acTL's frame count.
        var frames: Int
        /// acTL's play count: 0 forever.
        var plays: Int
        /// No fcTL comes before IDAT: the still picture is not the animation's first frame.
        var defaultHidden: Bool
    }

    /// One frame: its fcTL and where its compressed data lies in the file (IDAT's data, or
    /// fdAT's after its sequence number), in order.
    struct Frame {
        var control: APNGFrameControl
        var data: [Range<Int>] = []
    }

    let announcement: Announcement
    let canvas: Size
    /// IHDR's data, which every frame shares but for its size.
    let header: [UInt8]
    /// The chunks before the image data that decide what the samples mean (palette,
    /// transparency, color), whole (length, type, data, CRC): each frame's stream carries them.
    private(set) var shared: [Range<Int>] = []
    /// The whole frames, in order, at most the announced count.
    private(set) var frames: [Frame] = []
    /// What ended the frames before the announced count; nil when they are all there.
    private(set) var damage: Damage?

    /// Chunks whose meaning every frame shares.
    private static let sharedTypes: Set<String> = ["PLTE", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "cICP", "sBIT"]

    /// The announcement in `chunks`, a PNG's chunks before its image data (`ExifOrientation.pngChunks`)
    /// with their data in `bytes`; nil for a still PNG.
    static func announcement(chunks: [(type: String, data: Range<Int>)], in bytes: [UInt8]) -> Announcement? {
        let controls = chunks.filter { $0.type == "acTL" }
        guard controls.count == 1, let control = controls.first, control.data.count == 8 else { return nil }
        let frames = big32(bytes, control.data.lowerBound)
        guard (1...0x8000_0000).contains(frames) else { return nil }
        return Announcement(frames: frames, plays: big32(bytes, control.data.lowerBound + 4),
                            defaultHidden: !chunks.contains { $0.type == "fcTL" })
    }

    /// The announcement of the PNG `input`, from its chunks before the image data, read header
    /// by header within the part a header read looks at (`PNGHeader.prefixLimit`), so that both
    /// agree; nil for a still PNG.
    static func announcement(of input: EncodedInput) throws(ImageError) -> Announcement? {
        var offset = 8, frames: Int?, plays = 0, controls = 0, frameControls = 0
        while offset < PNGHeader.prefixLimit {
            let head = try input.bytes(count: 16, at: offset)
            guard head.count >= 8 else { break }
            let length = big32(head, 0), type = head[4..<8]
            if type.elementsEqual("IDAT".utf8) || type.elementsEqual("IEND".utf8) { break }
            if type.elementsEqual("acTL".utf8) {
                controls += 1
                if length == 8, head.count == 16 { (frames, plays) = (big32(head, 8), big32(head, 12)) }
            }
            if type.elementsEqual("fcTL".utf8) { frameControls += 1 }
            offset += 12 + length
        }
        guard controls == 1, let frames, (1...0x8000_0000).contains(frames) else { return nil }
        return Announcement(frames: frames, plays: plays, defaultHidden: frameControls == 0)
    }

    /// The animation in the whole PNG `bytes`; nil for a still PNG.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= PNGHeader.length, let announcement = Self.announcement(chunks: ExifOrientation.pngChunks(bytes), in: bytes) else { return nil }
        self.announcement = announcement
        header = Array(bytes[16..<29])
        canvas = Size(Self.big32(bytes, 16), Self.big32(bytes, 20))
        walk(bytes)
    }

    /// The PNG stream of one frame, for libspng to decode as a still picture: IHDR with the
    /// frame's size, the shared chunks, the frame's data as one IDAT chunk, IEND.
    func stream(of frame: Frame, in bytes: [UInt8]) -> [UInt8] {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var ihdr: [UInt8] = []
        ihdr.appendBigEndian(UInt32(frame.control.width))
        ihdr.appendBigEndian(UInt32(frame.control.height))
        PNGEncoder.appendChunk("IHDR", (ihdr + header[8...])[...], to: &png)
        for chunk in shared { png += bytes[chunk] }
        var data: [UInt8] = []
        data.reserveCapacity(frame.data.reduce(0) { $0 + $1.count })
        for part in frame.data { data += bytes[part] }
        PNGEncoder.appendChunk("IDAT", data[...], to: &png)
        PNGEncoder.appendChunk("IEND", [][...], to: &png)
        return png
    }

    private mutating func walk(_ b: [UInt8]) {
        var offset = 8
        var nextSequence = 0
        var current: Frame?
        /// `current` is the default image, whose data is IDAT's.
        var currentIsDefault = false
        var inImageData = false, pastImageData = false
        /// The frame `current` ends: kept when it has data.
        func close() -> Damage? {
            guard let frame = current else { return nil }
            current = nil
            guard !frame.data.isEmpty else { return Damage(.error, "frame \(frames.count) of the APNG has no image data (its fcTL is followed by another, or by the end)") }
            frames.append(frame)
            return nil
        }
        walking: while offset + 8 <= b.count {
            let length = Self.big32(b, offset)
            let type = String(decoding: b[offset + 4..<offset + 8].map { (0x21...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
            let start = offset + 8, end = start + length
            guard length <= Int(Int32.max), end + 4 <= b.count else {
                damage = Damage(.truncated, "the file ends within the APNG's \(type) chunk, after \(frames.count) whole frames")
                return
            }
            let checked = ["IDAT", "fcTL", "fdAT"].contains(type)
            if checked, b[offset + 4..<end].withUnsafeBytes({ UInt32(libdeflate_crc32(0, $0.baseAddress, $0.count)) }) != UInt32(Self.big32(b, end)) {
                damage = Damage(.error, "the APNG's \(type) chunk at byte \(offset) fails its CRC check, after \(frames.count) whole frames")
                return
            }
            if inImageData, type != "IDAT" { (inImageData, pastImageData) = (false, true) }
            switch type {
            case "IEND": break walking
            case "IDAT":
                inImageData = !pastImageData
                // The default image is the first frame when an fcTL came before it.
                if inImageData, currentIsDefault { current!.data.append(start..<end) }
            case "fcTL":
                if let failed = close() { damage = failed; return }
                if frames.count == announcement.frames { break walking }
                let control: APNGFrameControl
                switch APNGFrameControl.read(b[start..<end]) {
                case let .success(read): control = read
                case let .failure(failed): damage = failed; return
                }
                guard control.sequence == nextSequence else {
                    damage = Damage(.error, "the APNG's chunk sequence number \(control.sequence) comes where \(nextSequence) is next (frame \(frames.count)'s fcTL)")
                    return
                }
                nextSequence += 1
                let (frame, x, y, width, height) = (frames.count, control.x, control.y, control.width, control.height)
                // Frames outside the canvas are refused, as Pillow refuses them ("APNG contains invalid frames").
                guard width > 0, height > 0, x <= canvas.width - width, y <= canvas.height - height else {
                    damage = Damage(.error, "frame \(frame) of the APNG (\(width)x\(height) at \(x),\(y)) does not lie within its \(canvas) canvas")
                    return
                }
                if !pastImageData, !inImageData, control.width != canvas.width || control.height != canvas.height || x != 0 || y != 0 {
                    damage = Damage(.error, "the APNG's default image is its first frame, which is \(width)x\(height) at \(x),\(y), not the whole \(canvas) canvas")
                    return
                }
                if inImageData {
                    damage = Damage(.error, "an fcTL chunk within the APNG's image data")
                    return
                }
                current = Frame(control: control)
                currentIsDefault = !pastImageData
            case "fdAT":
                guard length >= 4 else { damage = Damage(.error, "an fdAT chunk of \(length) bytes, too short for its sequence number"); return }
                let sequence = Self.big32(b, start)
                guard sequence == nextSequence else {
                    damage = Damage(.error, "the APNG's chunk sequence number \(sequence) comes where \(nextSequence) is next (frame \(max(0, frames.count))'s data)")
                    return
                }
                nextSequence += 1
                guard current != nil, pastImageData, !currentIsDefault else {
                    damage = Damage(.error, "an fdAT chunk that belongs to no frame (no fcTL after the image data comes before it)")
                    return
                }
                current!.data.append(start + 4..<end)
            default:
                if !pastImageData, !inImageData, Self.sharedTypes.contains(type) { shared.append(offset..<end + 4) }
            }
            offset = end + 4
        }
        if let failed = close() { damage = failed; return }
        if frames.count < announcement.frames {
            damage = Damage(.truncated, "the APNG announces \(announcement.frames) frames and holds \(frames.count)")
        }
    }

    private static func big32(_ b: [UInt8], _ at: Int) -> Int { b[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
}
