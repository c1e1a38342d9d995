import Dispatch
import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// One request's work, run on a worker thread: the source through the pipeline, written by the
/// pipeline's `save` into a private scratch file and read back as the response's bytes. A run
/// past its time limit is told to stop (its cancellation and its decode deadline) and fails.
struct ServeJob: Sendable {
    /// The source's real path, under the root.
    let source: String
    /// The source as the address names it, for messages; its URL for an origin's.
    let name: String
    /// How an origin's source is fetched, first, into a scratch file beside the response's; nil
    /// for a file under the root.
    let origin: OriginPolicy?
    /// The file's size when the address was checked (0 for an origin's source).
    let fileSize: Int
    let pipeline: Pipeline
    let format: ImageFormat
    let loadOptions: LoadOptions
    /// Seconds the work may take; nil for no limit.
    let timeout: Double?
    /// The file the pipeline writes, removed once read.
    let scratch: String
    /// What the pictures in progress may hold together; nil for no limit.
    let memory: MemoryBudget?
    /// `RunContext.streamAboveBytes` of the run.
    let streamAboveBytes: Int

    /// What a request's work made: the response's bytes, and what `/metrics` adds up.
    struct Made: Sendable {
        let bytes: [UInt8]
        /// Bytes of the source: the file's, or what the origin sent.
        let sourceBytes: Int
        let codecTime: CodecTime
    }

    /// The run's context, for the work and for `?explain` alike.
    func context(input: String, options: LoadOptions) -> RunContext {
        var context = RunContext(input: input, output: scratch, outputFormat: format, loadOptions: options)
        context.streamAboveBytes = streamAboveBytes
        return context
    }

    func run() -> Result<Made, ServeError> {
        var options = loadOptions
        let cancellation = Cancellation()
        if let timeout {
            options.deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { cancellation.cancel() }
        }
        var input = source, sourceBytes = fileSize
        if let origin {
            input = scratch + ".source"
            do {
                let bytes = try OriginFetch.fetch(name, policy: origin, deadline: options.deadline)
                try bytes.withUnsafeBytes { try ImageFile.writeAtomically($0, to: input) }
                sourceBytes = bytes.count
            } catch let error as ServeError {
                return .failure(error)
            } catch {
                return .failure(ServeError(500, "\(name): the picture could not be kept"))
            }
        }
        defer { if origin != nil { unlink(input) } }
        var context = context(input: input, options: options)
        context.cancellation = cancellation
        let codecTime = CodecTime()
        context.codecTime = codecTime
        defer { unlink(scratch) }
        do {
            let prepared = try pipeline.prepare(in: context)
            // The picture's estimated cost is reserved from the budget the requests share, as a
            // batch's pictures reserve theirs (`--max-memory`): it waits while other pictures hold
            // too much, and is refused (503, to be asked again) while responses that their
            // clients have not yet taken do, since they leave at the clients' pace.
            let cost = memory == nil ? 0 : pipeline.estimatedPeakBytes(in: context, prepared: prepared)
            if let memory {
                guard memory.fits(cost) else {
                    return .failure(ServeError(413, "\(name): needs about \(MemoryBudget.describe(cost)) of memory, more than the server allows a picture"))
                }
                guard memory.reserveBesideResponses(cost) else {
                    return .failure(ServeError(503, "\(name): needs about \(MemoryBudget.describe(cost)) of memory, and responses not yet taken by their clients hold the rest of the server's memory budget; try again"))
                }
            }
            defer { memory?.release(cost) }
            _ = try pipeline.run(in: context, prepared: prepared)
            return .success(Made(bytes: try ImageFile.readAll(path: scratch, limit: nil), sourceBytes: sourceBytes, codecTime: codecTime))
        } catch {
            return .failure(Self.failure(error, name: name, stopped: cancellation.isCancelled))
        }
    }

    /// The status and message of a failed run: the picture's fault (413, 415, 422), the
    /// pipeline's (400; 413 for a picture past the pixel limit), the time limit (504), else the
    /// server's (500). Messages name the source
    /// as the address does, never by its path on the server.
    static func failure(_ error: any Error, name: String, stopped: Bool) -> ServeError {
        if stopped { return ServeError(504, "\(name): took longer than the time limit; stopped") }
        if let error = error as? ImageError {
            let status: UInt32 = switch error.kind {
            case .unsupported: 415
            case .tooLarge: 413
            case .corrupt: 422
            case .timedOut, .interrupted: 504
            case .unreadable: 404
            case .geometry: 400
            case .unwritable: 500
            }
            return ServeError(status, "\(name): \(error.kind.rawValue): \(error.reason)")
        }
        if let error = error as? PipelineError, error.remedy == .raisePixelLimit { return ServeError(413, "\(name): \(error)") }
        if error is StageError || error is ArgumentError || error is PipelineError { return ServeError(400, "\(name): \(error)") }
        return ServeError(500, "\(name): the picture could not be made")
    }
}
