import Dispatch
import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM during a run. In a batch the first Ctrl-C (SIGINT) asks the workers to
/// finish the files in progress and start no more (the summary then says how far it got); a
/// second stops at once, removing the temporary files of writes in progress. SIGTERM is what a
/// scheduler sends before it kills (Slurm's `scancel`, Kubernetes, systemd): it stops the
/// pictures in progress at their next check, and if the process is still there a second later it
/// ends at once all the same. With one picture there is nothing to finish first: the first
/// signal cancels it (between stages and encoder rows), and it writes nothing. Either way no
/// partial file is left under an output name, since outputs land only by rename when complete.
final class Interruption: Sendable {
    /// Cancelled by the first signal when the run has one picture.
    let cancellation = Cancellation()
    private let signalNumber = Locked<Int32?>(nil)
    /// Kept so the handlers stay installed; written once, by `install`, before any signal.
    nonisolated(unsafe) private var sources: [any DispatchSourceSignal] = []

    /// The signal that asked to stop, if any.
    var received: Int32? { signalNumber.withLock { $0 } }

    /// How long the pictures in progress have to stop after SIGTERM before the process ends.
    static let termGrace = 0.9

    /// The queue the handlers run on: a queue of its own gets a thread even while the stages'
    /// work fills every thread of the global queue (on a loaded machine a run of blurs finished
    /// and landed its file before a handler on the global queue ran).
    private let queue = DispatchQueue(label: "imagepipe.signals", qos: .userInteractive)

    func install(onePicture: Bool) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in
                let first = signalNumber.withLock { current -> Bool in
                    defer { if current == nil { current = number } }
                    return current == nil
                }
                if first, onePicture || number == SIGTERM {
                    cancellation.cancel()
                    if !onePicture { Console.error("stopping: the pictures in progress are given up") }
                    queue.asyncAfter(deadline: .now() + .milliseconds(Int(Self.termGrace * 1000))) {
                        ImageFile.removeTemporaryFiles()
                        Console.error("stopped at once")
                        _exit(128 + number)
                    }
                } else if first {
                    Console.error("stopping after the files in progress (signal again to stop at once)")
                } else {
                    ImageFile.removeTemporaryFiles()
                    Console.error("stopped at once")
                    _exit(128 + number)
                }
            }
            source.resume()
            sources.append(source)
        }
    }
}
