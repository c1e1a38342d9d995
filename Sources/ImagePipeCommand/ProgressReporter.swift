import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// Reports a batch as it goes, from any worker thread: on a terminal a live progress bar on
/// standard error (done/total, pictures per second, time left, failures); elsewhere one line
/// per finished file, or nothing with `--quiet`; with `--json` one object per file on
/// standard output. Failures are always reported. A streamed manifest's length is not known
/// until its end, so `total` may be nil: the bar then counts without a goal.
final class ProgressReporter: Sendable {
    enum Style: Sendable { case bar, lines, quiet }

    private struct State {
        var done = 0
        var failed = 0
        var skipped = 0
        var barShown = false
    }

    private let state = Locked(State())
    private let total: Int?
    private let shard: Shard?
    private let style: Style
    private let json: Bool
    private let batch: Bool
    private let quiet: Bool
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant

    init(total: Int?, quiet: Bool, json: Bool, batch: Bool, shard: Shard? = nil) {
        self.total = total
        self.shard = shard
        self.json = json
        self.batch = batch
        self.quiet = quiet
        style = quiet || !batch ? .quiet : isatty(STDERR_FILENO) == 1 ? .bar : .lines
        start = clock.now
    }

    var elapsed: Double { (clock.now - start).inSeconds }

    /// A warning from a stage, printed so it does not tear the progress bar.
    func warn(_ message: String) {
        state.withLock { state in
            clearBar(&state)
            Console.warning(message)
            drawBar(&state)
        }
    }

    /// Something worth knowing that is not wrong (a picture waiting for memory); not with `--quiet`.
    func note(_ message: String) {
        guard !quiet else { return }
        state.withLock { state in
            clearBar(&state)
            Console.diagnostics("imagepipe: \(TerminalText.escaped(message))")
            drawBar(&state)
        }
    }

    func finished(_ outcome: FileOutcome) {
        state.withLock { state in
            state.done += 1
            if outcome.error != nil { state.failed += 1 }
            if outcome.skipped { state.skipped += 1 }
            clearBar(&state)
            if json {
                var line = outcome.json
                if let shard, case let .object(pairs) = line { line = .object(pairs + [("shard", shard.json)]) }
                Console.output(line.text)
            }
            // Names and messages are shown escaped: a file named with an ESC or a line feed must
            // neither drive the terminal nor forge a line (the --json line is JSON-escaped already).
            let shown = TerminalText.escaped
            if let error = outcome.error {
                Console.error(error) // escaped by Console.error
            } else if style == .lines, outcome.skipped {
                Console.diagnostics("\(shown(outcome.input)): skipped, its outputs exist")
            } else if style == .lines {
                let sizes = outcome.inputSize.flatMap { i in outcome.outputSize.map { " (\(i) → \($0))" } } ?? ""
                Console.diagnostics("\(shown(outcome.input)) → \(shown(outcome.outputs.joined(separator: ", ")))\(sizes)")
            }
            drawBar(&state)
        }
    }

    /// The closing line of a batch: how many done, skipped and failed, and how long it took.
    func summary(stoppedEarly: Bool = false) -> (done: Int, failed: Int) {
        state.withLock { state in
            clearBar(&state)
            let seconds = elapsed
            if batch && style != .quiet || stoppedEarly {
                let of = total.map { " of \($0)" } ?? ""
                let what = (shard.map { "\($0.name): " } ?? "") + (stoppedEarly ? "stopped after \(state.done)\(of) files" : "\(total ?? state.done) files")
                let skipped = state.skipped > 0 ? ", \(state.skipped) skipped" : ""
                Console.diagnostics("\(what): \(state.done - state.failed - state.skipped) done\(skipped), \(state.failed) failed in \(Self.format(seconds)) s")
            }
            return (state.done - state.failed, state.failed)
        }
    }

    private func clearBar(_ state: inout State) {
        guard style == .bar, state.barShown else { return }
        Console.write("\r\u{1B}[2K", to: STDERR_FILENO)
        state.barShown = false
    }

    private func drawBar(_ state: inout State) {
        guard style == .bar else { return }
        let width = 24
        let seconds = elapsed
        let rate = seconds > 0 ? Double(state.done) / seconds : 0
        var line: String
        if let total {
            let filled = total == 0 ? width : width * state.done / total
            let left = rate > 0 ? Double(total - state.done) / rate : 0
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            line = "[\(bar)] \(state.done)/\(total)  \(Self.format(rate)) img/s  \(Self.format(left)) s left"
        } else {
            line = "\(state.done) done  \(Self.format(rate)) img/s"
        }
        if state.failed > 0 { line += "  \(state.failed) failed" }
        Console.write(line, to: STDERR_FILENO)
        state.barShown = true
    }

    static func format(_ value: Double) -> String { TerminalText.tenths(value) }
}
