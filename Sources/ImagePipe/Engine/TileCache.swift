#if canImport(Glibc)
import Glibc
#endif

/// The rows of a picture kept so that they can be read out of order: a quarter turn makes each
/// strip of its output from a band of columns of its input, all rows high. Rows come in order
/// and are stored in square tiles, so that a band of columns is a run of whole tiles. Up to the
/// disc threshold the tiles are kept in memory; a larger picture's go to a temporary file in
/// the system's temporary folder (libvips' disc threshold and tile cache work the same way),
/// which is unlinked as soon as it is made: the system frees it however the process ends,
/// signals and crashes included, and no other process can open it.
package final class TileCache {
    /// Pixels a tile is wide and high.
    package static let side = 64

    /// Bytes of pixels above which the tiles go to a temporary file: `IMAGEPIPE_DISC_THRESHOLD`
    /// (bytes, or with K, M or G), else 100 MiB, as libvips' `VIPS_DISC_THRESHOLD`.
    package static var discThreshold: Int {
        guard let text = getenv("IMAGEPIPE_DISC_THRESHOLD").map({ String(cString: $0) }), !text.isEmpty else { return 100 << 20 }
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30]
        let unit = text.last.flatMap { units[$0] }
        return Int(unit == nil ? text : String(text.dropLast())).map { $0 * (unit ?? 1) } ?? 100 << 20
    }

    let size: Size
    private let channels = 3
    private let across: Int
    private let tileBytes: Int
    /// The tiles in memory, or nil when they are in `file`.
    private var memory: UnsafeMutablePointer<UInt8>?
    private var file: Int32 = -1
    /// A band of `side` rows as they come, cut into tiles once full.
    private let band: UnsafeMutablePointer<UInt8>
    private var bandRows = 0
    private var rowsStored = 0
    private let tile: UnsafeMutablePointer<UInt8>

    /// Whether the tiles are in a temporary file (for `explain` and tests).
    var onDisc: Bool { memory == nil }

    /// A cache for a `size` picture of RGB rows, in memory when its tiles take at most
    /// `threshold` bytes, else in a temporary file in `folder` (the system's temporary folder).
    init(size: Size, threshold: Int = TileCache.discThreshold, folder: String? = nil) throws {
        self.size = size
        across = (size.width + Self.side - 1) / Self.side
        let down = (size.height + Self.side - 1) / Self.side
        tileBytes = Self.side * Self.side * channels
        let (total, overflow) = (across * down).multipliedReportingOverflow(by: tileBytes)
        guard !overflow else { throw ImageError(.tooLarge, reason: "cannot keep the tiles of a \(size) picture") }
        band = .allocate(capacity: Self.side * size.width * channels)
        tile = .allocate(capacity: tileBytes)
        if total <= threshold {
            memory = .allocate(capacity: max(1, total))
        } else {
            let directory = folder ?? getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            var template = Array("\(directory)/imagepipe-tiles-XXXXXX".utf8CString)
            file = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard file >= 0, fcntl(file, F_SETFD, FD_CLOEXEC) == 0 else {
                if file >= 0 { close(file) }
                band.deallocate()
                tile.deallocate()
                throw ImageError(.unwritable, path: directory, reason: "cannot make the temporary file of a quarter turn's tiles: \(ImageFile.systemMessage())")
            }
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        }
    }

    deinit {
        memory?.deallocate()
        if file >= 0 { close(file) }
        band.deallocate()
        tile.deallocate()
    }

    /// Appends `count` rows from `rows` (`rowStride` bytes apart), after those stored before.
    func append(_ rows: UnsafePointer<UInt8>, count: Int, rowStride: Int) throws {
        let rowBytes = size.width * channels
        for row in 0..<count {
            (band + bandRows * rowBytes).update(from: rows + row * rowStride, count: rowBytes)
            bandRows += 1
            rowsStored += 1
            if bandRows == Self.side || rowsStored == size.height { try storeBand() }
        }
    }

    /// The band's tiles, padded to whole tiles, where the band's tile row belongs.
    private func storeBand() throws {
        let rowBytes = size.width * channels, tileRow = (rowsStored - 1) / Self.side
        for column in 0..<across {
            let x = column * Self.side, columns = min(Self.side, size.width - x)
            let target = memory.map { $0 + (tileRow * across + column) * tileBytes } ?? tile
            for y in 0..<bandRows {
                (target + y * Self.side * channels).update(from: band + y * rowBytes + x * channels, count: columns * channels)
            }
            if memory == nil { try write(tile, at: (tileRow * across + column) * tileBytes) }
        }
        bandRows = 0
    }

    private func write(_ bytes: UnsafePointer<UInt8>, at offset: Int) throws {
        var done = 0
        while done < tileBytes {
            let wrote = pwrite(file, bytes + done, tileBytes - done, off_t(offset + done))
            if wrote < 0, errno == EINTR { continue }
            guard wrote > 0 else { throw ImageError(.unwritable, reason: "cannot write a quarter turn's tiles to the temporary file: \(ImageFile.systemMessage())") }
            done += wrote
        }
    }

    private func read(tileAt index: Int) throws -> UnsafePointer<UInt8> {
        if let memory { return UnsafePointer(memory + index * tileBytes) }
        var done = 0
        while done < tileBytes {
            let got = pread(file, tile + done, tileBytes - done, off_t(index * tileBytes + done))
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw ImageError(.unreadable, reason: "cannot read a quarter turn's tiles back: \(ImageFile.systemMessage())") }
            done += got
        }
        return UnsafePointer(tile)
    }

    /// The pixels of `rect` (inside the picture, every row of it stored) as a picture.
    func picture(of rect: Rect) throws -> Image {
        precondition(rect.y + rect.height <= rowsStored, "rows \(rect.y)..<\(rect.y + rect.height) read before they were stored")
        return try Image.make(size: rect.size, hasAlpha: false) { writer in
            for tileRow in (rect.y / Self.side)...((rect.y + rect.height - 1) / Self.side) {
                for column in (rect.x / Self.side)...((rect.x + rect.width - 1) / Self.side) {
                    let pixels = try read(tileAt: tileRow * across + column)
                    let x0 = max(rect.x, column * Self.side), x1 = min(rect.x + rect.width, (column + 1) * Self.side)
                    let y0 = max(rect.y, tileRow * Self.side), y1 = min(rect.y + rect.height, (tileRow + 1) * Self.side)
                    for y in y0..<y1 {
                        let from = pixels + ((y - tileRow * Self.side) * Self.side + x0 - column * Self.side) * channels
                        (writer.base + (y - rect.y) * writer.rowStride + (x0 - rect.x) * channels).update(from: from, count: (x1 - x0) * channels)
                    }
                }
            }
        }
    }
}
