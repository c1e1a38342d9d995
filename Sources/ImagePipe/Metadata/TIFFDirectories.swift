/// The directories of a TIFF-structured EXIF block, read and patched in place: IFD0, the Exif,
/// GPS and interoperability directories it points to, and IFD1 (the thumbnail's), each entry
/// with where its value lies. `ExifBlock`'s edits (no GPS, no thumbnail, the written size) use
/// it; every other byte stays as the camera wrote it, maker notes included, since nothing is
/// moved but the entries of the directory edited.
struct TIFFDirectories {
    private(set) var bytes: [UInt8]
    let littleEndian: Bool

    /// One 12-byte directory entry: tag, type, count, and where its value lies (in the entry's
    /// last four bytes when it fits there, else at the offset those bytes hold).
    struct Entry {
        let offset: Int
        let tag: Int
        let type: Int
        let count: Int
        let valueOffset: Int
        let valueLength: Int
    }

    static let exifPointer = 0x8769, gpsPointer = 0x8825, interoperabilityPointer = 0xA005

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 8 else { return nil }
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0x49, 0x49, 0x2A, 0x00): littleEndian = true
        case (0x4D, 0x4D, 0x00, 0x2A): littleEndian = false
        default: return nil
        }
        self.bytes = bytes
    }

    func read(_ offset: Int, _ count: Int) -> Int? {
        guard offset >= 0, offset + count <= bytes.count else { return nil }
        return (0..<count).reduce(0) { value, index in
            littleEndian ? value | Int(bytes[offset + index]) << (8 * index) : value << 8 | Int(bytes[offset + index])
        }
    }

    mutating func write(_ value: Int, at offset: Int, _ count: Int) {
        guard offset >= 0, offset + count <= bytes.count else { return }
        for index in 0..<count {
            let shift = littleEndian ? 8 * index : 8 * (count - 1 - index)
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> shift)
        }
    }

    mutating func zero(_ range: Range<Int>) {
        let clamped = range.clamped(to: 0..<bytes.count)
        for index in clamped { bytes[index] = 0 }
    }

    var firstDirectory: Int? { read(4, 4) }

    /// The bytes a value of `type` takes; 0 for a type TIFF does not define.
    static func size(ofType type: Int) -> Int {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12, 16, 17, 18: 8
        default: 0
        }
    }

    /// The entries of the directory at `offset`, as far as they lie inside the block.
    func entries(at offset: Int) -> [Entry] {
        guard let count = read(offset, 2) else { return [] }
        var entries: [Entry] = []
        for index in 0..<count {
            let at = offset + 2 + 12 * index
            guard let tag = read(at, 2), let type = read(at + 2, 2), let number = read(at + 4, 4) else { break }
            let length = Self.size(ofType: type) * number
            let valueOffset = length <= 4 ? at + 8 : read(at + 8, 4) ?? 0
            entries.append(Entry(offset: at, tag: tag, type: type, count: number, valueOffset: valueOffset, valueLength: length))
        }
        return entries
    }

    /// Where the directory after the one at `offset` is said to start (0: none), and where that
    /// pointer lies.
    func nextPointer(after offset: Int) -> (at: Int, value: Int)? {
        guard let count = read(offset, 2) else { return nil }
        let at = offset + 2 + 12 * count
        return read(at, 4).map { (at, $0) }
    }

    /// The directory a pointer entry of IFD0 (or of the Exif directory) leads to.
    func directory(_ tag: Int, in directory: Int?) -> Int? {
        guard let directory, let entry = entries(at: directory).first(where: { $0.tag == tag }),
              let target = read(entry.valueOffset, 4), target >= 8, target < bytes.count else { return nil }
        return target
    }

    /// The bytes a directory takes (its count, entries and next pointer) and its values outside it.
    func extents(ofDirectory offset: Int) -> [Range<Int>] {
        guard let count = read(offset, 2) else { return [] }
        var ranges = [offset..<(offset + 2 + 12 * count + 4)]
        for entry in entries(at: offset) where entry.valueLength > 4 {
            ranges.append(entry.valueOffset..<(entry.valueOffset + entry.valueLength))
        }
        return ranges
    }

    /// Zeroes a directory and its values, so that what it held is gone from the bytes too, not
    /// only unreachable.
    mutating func erase(directory offset: Int) {
        for range in extents(ofDirectory: offset) { zero(range) }
    }

    /// Takes the entry with `tag` out of the directory at `offset`: the entries after it move up,
    /// the count drops by one, and the next pointer follows them.
    mutating func remove(tag: Int, fromDirectory offset: Int) {
        guard let count = read(offset, 2), let index = entries(at: offset).firstIndex(where: { $0.tag == tag }) else { return }
        let start = offset + 2 + 12 * index, end = offset + 2 + 12 * count + 4
        guard end <= bytes.count else { return }
        bytes.replaceSubrange(start..<end, with: bytes[(start + 12)..<end] + [UInt8](repeating: 0, count: 12))
        write(count - 1, at: offset, 2)
    }
}
