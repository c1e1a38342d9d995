import CGdkPixbuf
#if canImport(Glibc)
import Glibc
#endif

/// Reads the opt-in formats (TGA, ICO, XPM, SVG, PNM… — `--allow-format`) in a process of its
/// own, as browsers sandbox their image decoders and GStreamer scans its plugins: gdk-pixbuf's
/// loaders for them are little fuzzed, and one that faults or blows up must fail its own file,
/// not the batch.
///
/// The child is a helper command (`LoadOptions.isolatedDecoder`: the `imagepipe` command gives
/// itself, run as `imagepipe __decode`) with an address-space and CPU-time limit set before it
/// reads a byte, so an SVG whose embedded PNG asks for gigabytes ends at the limit. It takes
/// the file on standard input and gives the header, or the decoded picture's raw rows (already
/// turned and color managed), on standard output; its errors come back as ImageError kinds and
/// reasons. Input and output go through unlinked temporary files, so neither side ever waits on
/// the other's pipe.
public enum IsolatedDecoder {
    /// The helper command's first argument.
    public static let childCommand = "__decode"

    /// What the child is asked for.
    enum Mode: String { case header, decode }

    /// The largest address space the child may map, for pictures of at most `maxPixels`: two
    /// RGBA copies of the largest allowed picture (the loader's and ours) and 1 GiB for the
    /// runtime and the loader's own tables.
    static func addressSpaceLimit(maxPixels: Int?) -> Int {
        let pictures = min(Int.max / 16, maxPixels ?? LoadOptions.defaultMaxPixels).multipliedReportingOverflow(by: 8)
        return (pictures.overflow ? Int.max / 2 : pictures.partialValue) + (1 << 30)
    }

    /// The most CPU seconds the child may use: what is left of the deadline, else 5 minutes.
    static func cpuSeconds(deadline: ContinuousClock.Instant?) -> Int {
        guard let deadline else { return 300 }
        return max(1, Int((deadline - .now).inSeconds.rounded(.up)) + 1)
    }

    /// The header of an opt-in format's bytes, read in the child.
    static func header(of bytes: [UInt8], format: ImageFormat, helper: [String], options: LoadOptions, path: String?) throws -> ImageHeader {
        let output = try run(bytes, format: format, mode: .header, helper: helper, options: options, path: path)
        let fields = String(decoding: output.prefix { $0 != 0x0A }, as: UTF8.self).split(separator: " ")
        guard fields.count == 3, fields[0] == "IPH1", let width = Int(fields[1]), let height = Int(fields[2]) else {
            throw ImageError(.corrupt, path: path, reason: "the \(format.displayName) reader gave no header")
        }
        return ImageHeader(storedSize: Size(width, height), format: format)
    }

    /// The picture an opt-in format's bytes hold, decoded in the child.
    static func decode(_ bytes: [UInt8], format: ImageFormat, helper: [String], options: LoadOptions, path: String?) throws -> Image {
        let output = try run(bytes, format: format, mode: .decode, helper: helper, options: options, path: path)
        guard let newline = output.firstIndex(of: 0x0A) else { throw ImageError(.corrupt, path: path, reason: "the \(format.displayName) reader gave no picture") }
        let fields = String(decoding: output[..<newline], as: UTF8.self).split(separator: " ")
        guard fields.count == 4, fields[0] == "IPD1", let width = Int(fields[1]), let height = Int(fields[2]), let alpha = Int(fields[3]),
              width > 0, height > 0, width <= Int(Int32.max) / 4, height <= Int(Int32.max) else {
            throw ImageError(.corrupt, path: path, reason: "the \(format.displayName) reader gave a picture that cannot be read back")
        }
        let channels = alpha == 1 ? 4 : 3
        let rowBytes = width * channels
        let body = output[(newline + 1)...]
        guard body.count == rowBytes * height else {
            throw ImageError(.corrupt, path: path, reason: "the \(format.displayName) reader gave \(body.count) bytes for a \(width)x\(height) picture")
        }
        guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, alpha == 1 ? 1 : 0, 8, Int32(width), Int32(height)) else {
            throw ImageError(.tooLarge, path: path, reason: "cannot hold a \(width)x\(height) picture")
        }
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        let pixels = gdk_pixbuf_get_pixels(pixbuf)!
        body.withUnsafeBytes { rows in
            for y in 0..<height { (pixels + y * stride).update(from: rows.baseAddress!.assumingMemoryBound(to: UInt8.self) + y * rowBytes, count: rowBytes) }
        }
        return Image(adopting: pixbuf)
    }

    /// Runs the child on `bytes` and returns what it wrote, or the error it gave or died of.
    private static func run(_ bytes: [UInt8], format: ImageFormat, mode: Mode, helper: [String], options: LoadOptions, path: String?) throws -> [UInt8] {
        guard let executable = helper.first else { throw ImageError(.unsupported, path: path, reason: "no decoding helper is set") }
        let files = (0..<3).map { _ in tmpfile() }
        defer { for file in files { if let file { fclose(file) } } }
        guard let input = files[0], let output = files[1], let errors = files[2] else {
            throw ImageError(.unreadable, path: path, reason: "cannot make a temporary file for the \(format.displayName) reader: \(ImageFile.systemMessage())")
        }
        guard bytes.withUnsafeBytes({ fwrite($0.baseAddress, 1, $0.count, input) }) == bytes.count, fflush(input) == 0 else {
            throw ImageError(.unreadable, path: path, reason: "cannot write a temporary file for the \(format.displayName) reader: \(ImageFile.systemMessage())")
        }
        rewind(input)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fileno(input), 0)
        posix_spawn_file_actions_adddup2(&actions, fileno(output), 1)
        posix_spawn_file_actions_adddup2(&actions, fileno(errors), 2)
        let arguments = helper + [format.rawValue, mode.rawValue, String(options.maxPixels ?? 0), options.failOn.rawValue,
                                  String(addressSpaceLimit(maxPixels: options.maxPixels)), String(cpuSeconds(deadline: options.deadline))]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, nil, &argv, environ)
        guard spawned == 0 else {
            throw ImageError(.unsupported, path: path, reason: "cannot start the \(format.displayName) reader: \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while true {
            let waited = waitpid(child, &status, WNOHANG)
            if waited == child { break }
            if waited < 0, errno != EINTR { throw ImageError(.unreadable, path: path, reason: "lost the \(format.displayName) reader: \(ImageFile.systemMessage())") }
            if let deadline = options.deadline, ContinuousClock.now > deadline {
                kill(child, SIGKILL)
                _ = waitpid(child, &status, 0)
                throw ImageError(.timedOut, path: path, reason: "decoding went past the time limit")
            }
            usleep(2_000)
        }
        let said = String(decoding: contents(of: errors), as: UTF8.self)
        if status & 0x7F != 0 { // killed by a signal
            let signal = status & 0x7F
            let cause = signal == SIGXCPU || signal == SIGKILL ? "used up its CPU time"
                : said.contains("alloc") || said.contains("memory") ? "ran out of its memory limit"
                : "crashed (signal \(signal))"
            throw ImageError(.corrupt, path: path, reason: "the \(format.displayName) reader \(cause) on it; it runs apart, so nothing else was hurt")
        }
        guard (status >> 8) & 0xFF == 0 else {
            let parts = said.split(separator: "\t", maxSplits: 1).map(String.init)
            if parts.count == 2, let kind = ImageError.Kind(rawValue: parts[0]) {
                throw ImageError(kind, path: path, reason: parts[1].trimmingTrailingNewlines())
            }
            throw ImageError(.corrupt, path: path, reason: "the \(format.displayName) reader failed: \(said.trimmingTrailingNewlines())")
        }
        return contents(of: output)
    }

    /// Everything written to a temporary file.
    private static func contents(of file: UnsafeMutablePointer<FILE>) -> [UInt8] {
        fflush(file)
        let descriptor = fileno(file)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return bytes }
            bytes += buffer[0..<count]
            offset += off_t(count)
        }
    }

    /// The child's side: limits first, then the file from standard input, the answer on standard
    /// output. Returns the exit status.
    public static func childMain(_ arguments: [String]) -> Int32 {
        guard arguments.count == 6, let format = ImageFormat(rawValue: arguments[0]), let mode = Mode(rawValue: arguments[1]),
              let maxPixels = Int(arguments[2]), let addressSpace = Int(arguments[4]), let cpu = Int(arguments[5]) else {
            fail(ImageError(.unsupported, reason: "the decoding helper was called wrongly"))
            return 2
        }
        var space = rlimit(rlim_cur: rlim_t(addressSpace), rlim_max: rlim_t(addressSpace))
        var time = rlimit(rlim_cur: rlim_t(cpu), rlim_max: rlim_t(cpu + 1))
        // A sanitizer's runtime maps terabytes of shadow memory up front: under one (`make
        // sanitize`, `make fuzz`) only the CPU limit holds.
        if !isSanitized { setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &space) }
        setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &time)
        var options = LoadOptions(maxPixels: maxPixels > 0 ? maxPixels : nil, failOn: FailOn(rawValue: arguments[3]) ?? .error, maxInputBytes: nil,
                                  allowedFormats: [format])
        options.isolatedDecoder = nil
        do {
            let bytes = try ImageFile.readAll(path: "/dev/stdin", limit: nil)
            switch mode {
            case .header:
                let header = try Codecs.header(of: bytes, options: options, path: nil)
                write("IPH1 \(header.storedSize.width) \(header.storedSize.height)\n".utf8)
            case .decode:
                let image = try Image.decode(bytes, options: options)
                write("IPD1 \(image.width) \(image.height) \(image.hasAlpha ? 1 : 0)\n".utf8)
                let rowBytes = image.width * (image.hasAlpha ? 4 : 3)
                for y in 0..<image.height { write(image.row(y).prefix(rowBytes)) }
            }
            return 0
        } catch let error as ImageError {
            fail(error)
        } catch {
            fail(ImageError(.corrupt, reason: "\(error)"))
        }
        return 1
    }

    /// Whether this process runs under ThreadSanitizer or AddressSanitizer (their runtimes export these).
    private static var isSanitized: Bool {
        let runtimes: [String] = ["__tsan_init", "__asan_init"]
        return runtimes.contains { dlsym(nil, $0) != nil } // nil: RTLD_DEFAULT, every object loaded
    }

    private static func fail(_ error: ImageError) {
        let text = "\(error.kind.rawValue)\t\(error.reason)\n"
        _ = Array(text.utf8).withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }

    private static func write(_ bytes: some Collection<UInt8>) {
        let array = Array(bytes)
        var written = 0
        while written < array.count {
            let count = array.withUnsafeBytes { Glibc.write(1, $0.baseAddress! + written, $0.count - written) }
            if count < 0 { if errno == EINTR { continue } else { return } }
            written += count
        }
    }
}

private extension String {
    func trimmingTrailingNewlines() -> String {
        var text = Substring(self)
        while text.last == "\n" { text.removeLast() }
        return String(text)
    }
}
