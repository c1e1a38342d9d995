#if canImport(Glibc)
import Glibc
#endif
import ImagePipeCore

/// The processor time a run's decoding and its encoding took, each counted on the clock of the
/// thread that did the work: the streamed run decodes on a thread of its own while the stages
/// and the encoder work on others, so wall time would count each one's waits for the others.
/// A run adds to it when its context names one (`RunContext.codecTime`): what `serve`'s
/// `/metrics` reports. Runs of a still picture count both (in the ordinary run, the writing of
/// a branch's groups counts as encoding, their stages with it); a lossless JPEG operation and
/// an animation count neither.
public final class CodecTime: Sendable {
    private let seconds = Locked((decoding: 0.0, encoding: 0.0))

    public init() {}

    /// Seconds of processor time spent decoding the source.
    public var decoding: Double { seconds.withLock { $0.decoding } }
    /// Seconds of processor time spent encoding the outputs (not making their rows).
    public var encoding: Double { seconds.withLock { $0.encoding } }

    func add(decoding: Double = 0, encoding: Double = 0) {
        seconds.withLock {
            $0.decoding += decoding
            $0.encoding += encoding
        }
    }

    /// The processor time this thread has taken so far, in seconds.
    static func thisThread() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// `body`, its processor time on this thread added as decoding.
    func decoding<T>(_ body: () throws -> T) rethrows -> T {
        let start = Self.thisThread()
        defer { add(decoding: Self.thisThread() - start) }
        return try body()
    }

    /// `body`, its processor time on this thread added as encoding, less what `body` reports
    /// it spent making rows (the encoder pulling the stages along on its thread).
    func encoding<T>(_ body: (_ makingRows: @escaping (Double) -> Void) throws -> T) rethrows -> T {
        let start = Self.thisThread()
        var making = 0.0
        defer { add(encoding: Self.thisThread() - start - making) }
        return try body { making += $0 }
    }
}
