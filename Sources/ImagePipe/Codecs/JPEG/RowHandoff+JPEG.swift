import CJPEGStrict

extension RowHandoff {
    /// A libjpeg watcher reporting to this handoff, valid while the handoff lives.
    var watcher: imagepipe_jpeg_watcher {
        func handoff(_ context: UnsafeMutableRawPointer?) -> RowHandoff { Unmanaged<RowHandoff>.fromOpaque(context!).takeUnretainedValue() }
        return imagepipe_jpeg_watcher(
            context: Unmanaged.passUnretained(self).toOpaque(),
            started: { context, result in
                let handoff = handoff(context)
                let result = result!.pointee
                let metadata = StrictJPEG.metadata(of: result, applyOrientation: handoff.applyOrientation)
                return Int32(clamping: handoff.started(Start(size: Size(Int(result.width), Int(result.height)), rowStride: Int(result.rowstride),
                                                             channels: Int(result.channels), metadata: metadata)))
            },
            ready: { context, pixels in handoff(context).ready(pixels!) },
            decoded: { context, rows in handoff(context).made(Int(rows)) },
            room: { context, row in handoff(context).room(for: Int(row)) ? 1 : 0 },
            failed: { context in handoff(context).failing() })
    }
}
