/// The file a `tee` writes in a streamed run, encoded on a thread of its own from a ring of rows
/// that the tee's place in the strip chain fills in order (`StreamedTee`), so that the picture
/// at the tee is never whole in memory and its encoding takes a core of its own. The handoff is
/// a `WriteBehind`: the chain waits for room in the ring, the encoder for rows. The file lands
/// as `save` lands one (a temporary file renamed, through the run's output gate), once its last
/// row is encoded.
final class TeeOutput: @unchecked Sendable {
    let save: Save
    let destination: String
    let format: ImageFormat
    /// The save's background when the rows have alpha and the file is a JPEG, which has none:
    /// each strip is flattened onto it, as the save flattens a whole picture.
    let flattening: Color?
    /// Whether the rows at the tee are RGBA.
    let rowsHaveAlpha: Bool

    /// Set by `start`; nil for a read that writes nothing (a survey's).
    private var ring: UnsafeMutablePointer<UInt8>?
    private var ringRows = 0
    private var rowStride = 0
    private var channels = 3
    private var handoff: WriteBehind?
    private var encoder: WorkerThread<Void>?
    /// The encoder's failure, kept for the chain, which sees only that the rows stopped going.
    private let failure = Locked<(any Error)?>(nil)

    init(save: Save, destination: String, format: ImageFormat, rowsHaveAlpha: Bool) {
        self.save = save
        self.destination = destination
        self.format = format
        self.rowsHaveAlpha = rowsHaveAlpha
        flattening = format == .jpeg && rowsHaveAlpha ? save.options.background : nil
    }

    deinit { ring?.deallocate() }

    /// Rows of the ring for strips of `strip` rows: two strips, so that the chain makes one while
    /// the encoder writes the other.
    static func ringRows(strip: Int, height: Int) -> Int { min(height, 2 * strip) }

    /// Starts the encoder for a `size` picture whose rows come `strip` at a time (RGBA when
    /// the tee was planned for rows with alpha), embedding `metadata`.
    func start(size: Size, strip: Int, gray: Bool, metadata: OutputMetadata, in context: RunContext) throws {
        channels = rowsHaveAlpha && flattening == nil ? 4 : 3
        rowStride = size.width * channels
        ringRows = Self.ringRows(strip: strip, height: size.height)
        let ring = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, ringRows * rowStride))
        self.ring = ring
        let handoff = WriteBehind(ringRows: ringRows)
        self.handoff = handoff
        nonisolated(unsafe) let rows = RowFeed(pixels: ring, size: size, rowStride: rowStride, channels: channels, ringRows: ringRows,
                           rowsReady: { handoff.rows(upTo: $0) })
        let (save, destination, format, failure) = (save, destination, format, failure)
        let stageContext = StageContext.current
        guard let encoder = WorkerThread<Void>.started({
            // However it ends, the chain is let go: it may be waiting for room.
            defer { handoff.stop() }
            do {
                try stageContext.bound {
                    _ = try save.store(at: destination, in: context) { file in
                        try RowEncoding.encode(rows, as: format, options: save.options, gray: gray, metadata: metadata, to: file)
                    }
                }
            } catch {
                failure.withLock { $0 = error }
                throw error
            }
        }) else {
            throw ImageError(.unreadable, path: destination, reason: "no thread could be started to write it")
        }
        self.encoder = encoder
    }

    /// Hands the strip `strip` (the picture's rows from `top`) to the encoder, once there is room.
    func write(_ strip: Image, top: Int) throws {
        guard let ring, let handoff else { return }
        let rows = try flattening.map { try strip.flattened(onto: $0) } ?? strip
        guard handoff.waitForRoom(upTo: top + rows.height) else {
            throw failure.withLock { $0 } ?? ImageError(.interrupted, path: destination, reason: "its encoder stopped")
        }
        for y in 0..<rows.height {
            (ring + (top + y) % ringRows * rowStride).update(from: rows.rowStart(y), count: rowStride)
        }
        handoff.made(top + rows.height)
    }

    /// Waits for the encoder to write the last row and land the file; throws its failure.
    func finish() throws {
        handoff?.finish()
        try encoder?.join()
    }

    /// Stops the encoder, which then writes nothing, and waits for it (the run failed elsewhere).
    func abandon() {
        handoff?.finish()
        handoff?.stop()
        _ = try? encoder?.join()
    }
}
