import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// Tries each plugin in a child process before the command loads it, as GStreamer's plugin
/// scanner does: a plugin that crashes or hangs while loading (in a constructor, in its entry
/// function, in describe) takes down only the child, and the command goes on without it.
///
/// The child is this program again, `imagepipe __scan-plugin --descriptor 3 PATH`, given the
/// descriptor the command opened and checked, so it tries the very file the command will load.
/// It prints one JSON object: `{"name": …, "stages": […]}`, or `{"refused": reason}`.
enum PluginScanner {
    /// The hidden subcommand the child runs.
    static let subcommand = "__scan-plugin"
    /// How long a plugin may take to load in the child before it is stopped and refused.
    static let timeout: Double = 10
    /// The most the child's output is read: a description, not a data stream.
    private static let maximumOutput = 1 << 20

    /// The scans this process made, by file version: nil when the plugin loaded, else why not.
    private static let scans = Locked<[PluginIdentity: String?]>([:])

    /// Throws when `file` crashed, hung or was refused in the scanner; returns when it loaded
    /// there and may be loaded in this process.
    static func vet(_ file: PluginFile) throws(PluginLoadError) {
        let reason: String?
        if let known = scans.withLock({ $0[file.identity] }) {
            reason = known
        } else {
            reason = scan(file)
            scans.withLock { $0[file.identity] = reason }
        }
        if let reason { throw PluginLoadError(path: file.path, reason: reason) }
    }

    /// The child's side: loads the plugin into an empty registry and prints what it found.
    static func main(_ arguments: [String]) -> Int32 {
        let file: PluginFile
        do throws(PluginLoadError) {
            switch arguments.count {
            case 1: file = try PluginFile(opening: arguments[0])
            case 3 where arguments[0] == "--descriptor":
                guard let descriptor = Int32(arguments[1]), descriptor >= 0 else { throw PluginLoadError(path: arguments[2], reason: "no descriptor \(arguments[1])") }
                file = try PluginFile(inheriting: descriptor, path: arguments[2])
            default:
                Console.error("usage: imagepipe \(subcommand) [--descriptor N] PATH")
                return 2
            }
        } catch {
            Console.output(JSONValue.object([("refused", .string(error.reason))]).text)
            return 0
        }
        var registry = Registry()
        do throws(PluginLoadError) {
            try registry.loadPlugin(file)
        } catch {
            Console.output(JSONValue.object([("refused", .string(error.reason))]).text)
            return 0
        }
        Console.output(JSONValue.object([
            ("name", .string(registry.plugins.first?.name ?? "")),
            ("stages", .array(registry.stageNames.map(JSONValue.string))),
        ]).text)
        return 0
    }

    /// Runs the child on `file`; nil when the plugin loaded there, else the reason to refuse it.
    private static func scan(_ file: PluginFile) -> String? {
        // The child's standard output (its result) and standard error (where a trap's message
        // goes: a Swift plugin's broken declaration stops the child with the reason there).
        var output: [Int32] = [-1, -1], errors: [Int32] = [-1, -1]
        // Close-on-exec, so only the child's copies survive the spawn (the command loads plugins
        // before it starts any thread that could spawn in between).
        guard pipe(&output) == 0 else { return "cannot be scanned: \(systemMessage(errno))" }
        guard pipe(&errors) == 0 else {
            output.forEach { close($0) }
            return "cannot be scanned: \(systemMessage(errno))"
        }
        for end in output + errors { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer {
            close(output[0])
            close(errors[0])
        }
        // A copy above the low numbers, so the dup2 to 3 below always copies (and so clears
        // close-on-exec), even when the file's own descriptor is 3.
        let passed = fcntl(file.descriptor, F_DUPFD_CLOEXEC, 10)
        guard passed >= 0 else {
            close(output[1])
            close(errors[1])
            return "cannot be scanned: \(systemMessage(errno))"
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        posix_spawn_file_actions_adddup2(&actions, passed, 3)
        let arguments: [UnsafeMutablePointer<CChar>?] = ["imagepipe", subcommand, "--descriptor", "3", file.path].map { (argument: String) in strdup(argument) }
        defer { arguments.forEach { free($0) } }
        // Without Swift's crash reporter: a crash is the expected outcome here, and symbolicating
        // it would take the child far longer than the crash itself.
        var environment: [UnsafeMutablePointer<CChar>?] = [strdup("SWIFT_BACKTRACE=enable=no")]
        var index = 0
        while let variable = environ[index] {
            if strncmp(variable, "SWIFT_BACKTRACE=", 16) != 0 { environment.append(strdup(variable)) }
            index += 1
        }
        defer { environment.forEach { free($0) } }
        var pid = pid_t()
        // This program again: a program built on ImagePipeCommand runs `main` with its arguments,
        // so it answers the subcommand too.
        let spawned = posix_spawn(&pid, "/proc/self/exe", &actions, nil, arguments + [nil], environment + [nil])
        close(output[1])
        close(errors[1])
        close(passed)
        guard spawned == 0 else { return "cannot be scanned: cannot start /proc/self/exe: \(systemMessage(spawned))" }

        let deadline = now() + timeout
        let (bytes, said) = readBoth(output[0], errors[0], until: deadline)
        var status: Int32 = 0
        var waited = waitpid(pid, &status, WNOHANG)
        while waited == 0, now() < deadline {
            usleep(2_000)
            waited = waitpid(pid, &status, WNOHANG)
        }
        if waited == 0 {
            kill(pid, SIGKILL)
            _ = waitpid(pid, &status, 0)
            return "timed out while loading (still loading after \(NumberFormat.text(timeout)) s in a separate process, which was stopped)"
        }
        let signal = status & 0x7f
        if signal != 0 {
            let reason = trapMessage(in: String(decoding: said, as: UTF8.self)).map { ": \($0)" } ?? ""
            return "crashed while loading (signal \(signal))\(reason); it was tried in a separate process first, so the command goes on without it"
        }
        let exitStatus = (status >> 8) & 0xff
        let text = String(decoding: bytes, as: UTF8.self)
        guard exitStatus == 0, let result = JSONValue.parse(text) else {
            return "cannot be scanned: the separate process that tried it exited with status \(exitStatus) and no result"
        }
        if let refusal = result["refused"]?.stringValue { return refusal }
        return nil
    }

    /// What the child wrote on `output` and on `errors` until both ended or `deadline` passed,
    /// each at most `maximumOutput` bytes (a pipe left unread would stop a child that says much).
    private static func readBoth(_ output: Int32, _ errors: Int32, until deadline: Double) -> (output: [UInt8], errors: [UInt8]) {
        var read: [[UInt8]] = [[], []]
        var open = [true, true]
        var chunk = [UInt8](repeating: 0, count: 4096)
        while open.contains(true), now() < deadline {
            var pollers = [output, errors].enumerated().map { pollfd(fd: open[$0.offset] ? $0.element : -1, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&pollers, 2, Int32(max(1, (deadline - now()) * 1000)))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { break }
            for index in 0..<2 where open[index] && pollers[index].revents != 0 {
                let count = Glibc.read(pollers[index].fd, &chunk, chunk.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    open[index] = false
                    continue
                }
                if read[index].count < maximumOutput { read[index] += chunk.prefix(min(count, maximumOutput - read[index].count)) }
            }
        }
        return (read[0], read[1])
    }

    /// The reason a trap in the child gave, from what it wrote on standard error: the text after
    /// the last "Fatal error: " (Swift's `fatalError` and `precondition`, which a plugin's
    /// broken `StageDeclaration` stops with), else the last line written; nil when it wrote nothing.
    static func trapMessage(in said: String) -> String? {
        let lines = said.split(whereSeparator: \.isNewline).map { $0.drop { $0 == " " } }.filter { !$0.isEmpty }
        let marker = "Fatal error: "
        let trap = lines.last { $0.contains(marker) }.map { line in line.split(separator: marker, maxSplits: 1, omittingEmptySubsequences: false).last! }
        return (trap ?? lines.last).map { String($0.prefix(500)) }
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }

    private static func systemMessage(_ code: Int32) -> String { String(cString: strerror(code)) }
}
