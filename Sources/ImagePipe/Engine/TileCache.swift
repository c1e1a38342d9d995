#if canImport(Glibc)
import Glibc
#endif

/// The rows of a picture kept so that they can be read out of order: a quarter turn makes each
/// strip of its output from a band of columns of its input, all rows high. Rows come in order
/// and are stored in tiles, so that a band of columns is a run of whole tiles. Up to the disc
/// threshold the tiles are kept in memory; a larger picture's go to a temporary file in the
/// system's temporary folder (libvips' disc threshold and tile cache work the same way), which
/// is unlinked as soon as it is made: the system frees it however the process ends, signals and
/// crashes included, and no other process can open it.
///
/// Tiles are shaped by the picture: 64×64 where it is at least that in both directions, else as
/// wide (or high) as the picture and long enough to hold as many pixels, so that a picture one
/// pixel wide is kept in about its own bytes and not in 64 times them.
package final class TileCache {
    /// Pixels a tile holds: 64×64.
    package static let tilePixels = 64 * 64

    /// The tiles' shape for a `size` picture: 64×64, or as narrow (short) as the picture and as
    /// long as `tilePixels` allows.
    package static func tileShape(for size: Size) -> Size {
        let side = 64
        if size.width < side { return Size(max(1, size.width), min(max(1, size.height), tilePixels / max(1, size.width))) }
        if size.height < side { return Size(min(size.width, tilePixels / max(1, size.height)), max(1, size.height)) }
        return Size(side, side)
    }

    /// Bytes the tiles of a `size` picture take, padded to whole tiles: what goes to memory or
    /// to the temporary file. Nil when it passes what a number holds.
    package static func storedBytes(for size: Size, channels: Int = 3) -> Int? {
        let tile = tileShape(for: size)
        let across = (size.width + tile.width - 1) / tile.width, down = (size.height + tile.height - 1) / tile.height
        let (tiles, overflow) = across.multipliedReportingOverflow(by: down)
        guard !overflow else { return nil }
        let (total, overflowed) = tiles.multipliedReportingOverflow(by: tile.pixelCount * channels)
        return overflowed ? nil : total
    }

    /// Bytes the cache holds in memory beside its tiles: a band of rows a tile high as they come,
    /// and one tile read back.
    package static func bufferBytes(for size: Size, channels: Int = 3) -> Int {
        let tile = tileShape(for: size)
        return (tile.height * size.width + tile.pixelCount) * channels
    }

    /// Bytes of pixels above which the tiles go to a temporary file: `IMAGEPIPE_DISC_THRESHOLD`
    /// (bytes, or with K, M or G), else 100 MiB, as libvips' `VIPS_DISC_THRESHOLD`.
    package static var discThreshold: Int {
        guard let text = getenv("IMAGEPIPE_DISC_THRESHOLD").map({ String(cString: $0) }), !text.isEmpty else { return 100 << 20 }
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30]
        let unit = text.last.flatMap { units[$0] }
        return Int(unit == nil ? text : String(text.dropLast())).map { $0 * (unit ?? 1) } ?? 100 << 20
    }

    let size: Size
    /// 3 for RGB rows, 4 for RGBA.
    private let channels: Int
    /// A tile's shape (`tileShape(for:)`).
    private let tile: Size
    private let across: Int
    private let tileBytes: Int
    /// The tiles in memory, or nil when they are in `file`.
    private var memory: UnsafeMutablePointer<UInt8>?
    private var file: Int32 = -1
    /// A band of a tile's height of rows as they come, cut into tiles once full.
    private let band: UnsafeMutablePointer<UInt8>
    private var bandRows = 0
    private var rowsStored = 0
    /// One tile on its way to or from the file.
    private let tileBuffer: UnsafeMutablePointer<UInt8>

    /// Whether the tiles are in a temporary file (for `explain` and tests).
    var onDisc: Bool { memory == nil }

    /// A cache for a `size` picture of RGB rows (RGBA with `hasAlpha`), in memory when its tiles
    /// take at most `threshold` bytes, else in a temporary file in `folder` (the system's
    /// temporary folder).
    init(size: Size, hasAlpha: Bool = false, threshold: Int = TileCache.discThreshold, folder: String? = nil) throws {
        self.size = size
        channels = hasAlpha ? 4 : 3
        tile = Self.tileShape(for: size)
        across = (size.width + tile.width - 1) / tile.width
        tileBytes = tile.pixelCount * channels
        guard let total = Self.storedBytes(for: size, channels: channels) else { throw ImageError(.tooLarge, reason: "cannot keep the tiles of a \(size) picture") }
        // Every buffer is made here and freed by deinit alone, which runs also when this throws
        // below (every property is set by then): freeing them here too was a double free.
        band = .allocate(capacity: tile.height * size.width * channels)
        tileBuffer = .allocate(capacity: tileBytes)
        if total <= threshold {
            memory = .allocate(capacity: max(1, total))
        } else {
            let directory = folder ?? getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            var template = Array("\(directory)/imagepipe-tiles-XXXXXX".utf8CString)
            let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard made >= 0 else {
                throw ImageError(.unwritable, path: directory,
                                 reason: "cannot make the temporary file for the tiles of a \(size) picture (\(total) bytes, past the disc threshold): \(ImageFile.systemMessage()); set TMPDIR to a folder with room, or IMAGEPIPE_DISC_THRESHOLD higher")
            }
            file = made
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            _ = fcntl(file, F_SETFD, FD_CLOEXEC)
            self.folder = directory
        }
    }

    /// The folder of the temporary file, for messages.
    private var folder = ""

    deinit {
        memory?.deallocate()
        if file >= 0 { close(file) }
        band.deallocate()
        tileBuffer.deallocate()
    }

    /// Appends `count` rows from `rows` (`rowStride` bytes apart), after those stored before.
    func append(_ rows: UnsafePointer<UInt8>, count: Int, rowStride: Int) throws {
        let rowBytes = size.width * channels
        for row in 0..<count {
            (band + bandRows * rowBytes).update(from: rows + row * rowStride, count: rowBytes)
            bandRows += 1
            rowsStored += 1
            if bandRows == tile.height || rowsStored == size.height { try storeBand() }
        }
    }

    /// The band's tiles, padded to whole tiles, where the band's tile row belongs.
    private func storeBand() throws {
        let rowBytes = size.width * channels, tileRow = (rowsStored - 1) / tile.height
        for column in 0..<across {
            let x = column * tile.width, columns = min(tile.width, size.width - x)
            let target = memory.map { $0 + (tileRow * across + column) * tileBytes } ?? tileBuffer
            for y in 0..<bandRows {
                (target + y * tile.width * channels).update(from: band + y * rowBytes + x * channels, count: columns * channels)
            }
            if memory == nil { try write(tileBuffer, at: (tileRow * across + column) * tileBytes) }
        }
        bandRows = 0
    }

    private func write(_ bytes: UnsafePointer<UInt8>, at offset: Int) throws {
        var done = 0
        while done < tileBytes {
            let wrote = pwrite(file, bytes + done, tileBytes - done, off_t(offset + done))
            if wrote < 0, errno == EINTR { continue }
            guard wrote > 0 else {
                throw ImageError(.unwritable, path: folder, reason: "cannot write the tiles of a \(size) picture to its temporary file: \(ImageFile.systemMessage()); set TMPDIR to a folder with room, or IMAGEPIPE_DISC_THRESHOLD higher")
            }
            done += wrote
        }
    }

    private func read(tileAt index: Int) throws -> UnsafePointer<UInt8> {
        if let memory { return UnsafePointer(memory + index * tileBytes) }
        var done = 0
        while done < tileBytes {
            let got = pread(file, tileBuffer + done, tileBytes - done, off_t(index * tileBytes + done))
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw ImageError(.unreadable, path: folder, reason: "cannot read the tiles back from its temporary file: \(ImageFile.systemMessage())") }
            done += got
        }
        return UnsafePointer(tileBuffer)
    }

    /// The pixels of `rect` (inside the picture, every row of it stored) as a picture.
    func picture(of rect: Rect) throws -> Image {
        precondition(rect.y + rect.height <= rowsStored, "rows \(rect.y)..<\(rect.y + rect.height) read before they were stored")
        return try Image.make(size: rect.size, hasAlpha: channels == 4) { writer in
            for tileRow in (rect.y / tile.height)...((rect.y + rect.height - 1) / tile.height) {
                for column in (rect.x / tile.width)...((rect.x + rect.width - 1) / tile.width) {
                    let pixels = try read(tileAt: tileRow * across + column)
                    let x0 = max(rect.x, column * tile.width), x1 = min(rect.x + rect.width, (column + 1) * tile.width)
                    let y0 = max(rect.y, tileRow * tile.height), y1 = min(rect.y + rect.height, (tileRow + 1) * tile.height)
                    for y in y0..<y1 {
                        let from = pixels + ((y - tileRow * tile.height) * tile.width + x0 - column * tile.width) * channels
                        (writer.base + (y - rect.y) * writer.rowStride + (x0 - rect.x) * channels).update(from: from, count: (x1 - x0) * channels)
                    }
                }
            }
        }
    }
}
