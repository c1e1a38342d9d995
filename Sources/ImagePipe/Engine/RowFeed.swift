/// The rows an encoder reads, top to bottom: a whole picture's, or a streamed run's as the stages
/// make them (a ring of rows the run rewrites once the encoder has moved past them). Every
/// encoder that writes rows in order reads them through this, so one encoder serves both runs.
struct RowFeed {
    /// Says, once at least `needed` rows are ready, how many are (fewer: they never will be).
    typealias RowsReady = (_ needed: Int) -> Int

    let pixels: UnsafePointer<UInt8>
    let size: Size
    let rowStride: Int
    let channels: Int
    /// Rows in the ring (row y in slot y % ringRows); 0 when every row has a place of its own.
    let ringRows: Int
    /// Asked for `needed` rows, waits until they are made and says how many are (fewer: they
    /// never will be); nil when every row is there already.
    let rowsReady: RowsReady?
    /// Stops a whole picture's encode between rows.
    let cancellation: Cancellation?

    /// Every row of `image`, stopped by `cancellation`.
    init(_ image: Image, cancellation: Cancellation? = nil) {
        self.init(pixels: image.pixels, size: image.size, rowStride: image.rowStride, channels: image.channelCount, ringRows: 0,
                  rowsReady: nil, cancellation: cancellation)
    }

    init(pixels: UnsafePointer<UInt8>, size: Size, rowStride: Int, channels: Int, ringRows: Int, rowsReady: RowsReady?,
         cancellation: Cancellation? = nil) {
        self.pixels = pixels
        self.size = size
        self.rowStride = rowStride
        self.channels = channels
        self.ringRows = ringRows
        self.rowsReady = rowsReady
        self.cancellation = cancellation
    }

    /// Row `y`'s `size.width × channels` bytes, once it is made; nil when it never will be (a
    /// stage failed, or the run was stopped: the caller's error says which). Asking for row y
    /// says the encoder is done with every row before it: their slots may be rewritten.
    func row(_ y: Int) -> UnsafePointer<UInt8>? {
        if let rowsReady {
            guard rowsReady(y + 1) > y else { return nil }
        } else if y % 32 == 0, cancellation?.isCancelled == true {
            return nil
        }
        return pixels + (ringRows > 0 ? y % ringRows : y) * rowStride
    }

    /// The error for a row that never came: the run was stopped, or the rows stopped (the run
    /// that feeds them says why).
    func stopped() -> ImageError {
        cancellation?.isCancelled == true ? Cancellation.stopped(path: nil) : ImageError(.interrupted, reason: "the rows stopped coming")
    }
}

extension RowFeed {
    /// Every row, copied into a picture of its own as it comes: the cache before an encoder that
    /// takes only a whole picture. A row that never comes stops it with `stopped()`.
    func gathered() throws -> Image {
        try Image.make(size: size, hasAlpha: channels == 4) { writer in
            for y in 0..<size.height {
                guard let row = row(y) else { throw stopped() }
                writer.row(y).baseAddress!.update(from: row, count: size.width * channels)
            }
        }
    }
}
