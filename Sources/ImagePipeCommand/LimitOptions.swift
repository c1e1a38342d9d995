import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// The options that bound what a picture may cost, shared by `run`, `explain` and `info` beside
/// `PipelineArguments.decodeOptions` (which has `--max-pixels`): bytes, time, and which formats
/// may be decoded at all.
enum LimitOptions {
    /// Seconds one picture may take by default: generous, since a 100-megapixel PNG takes seconds
    /// to encode, yet it ends a hostile decode that would never finish.
    static let defaultTimeout = TimeLimit.base
    /// A day: past it a limit means nothing, and its deadline would overflow the clock's arithmetic.
    static let longestTimeout = 86_400.0

    static let maxInputBytes = CommandOption("--max-input-bytes", value: "N",
                                             help: "Refuse inputs larger than N bytes; K, M, G suffixes (default 256M; 0 = no limit)") { text in
        guard let bytes = byteCount(text) else { throw UsageError("--max-input-bytes needs a number of bytes ≥ 0 (like 50M), got '\(text)'") }
        return bytes
    }
    static let timeoutOption = CommandOption("--timeout", value: "SECONDS", help: """
        The most one picture may take, its reading included; past it that
        picture fails, and a batch goes on (0 = no limit; at most
        \(Int(longestTimeout)), a day). Default: \(Int(defaultTimeout)) s; run adds ten times
        what the picture's work would take on an idle machine
        """) { text in
        guard let seconds = DecimalNumber.parse(text), seconds >= 0, seconds <= longestTimeout else {
            throw UsageError("--timeout needs a number of seconds from 0 to \(Int(longestTimeout)), got '\(text)'")
        }
        return seconds
    }
    static let allowFormat = CommandOption("--allow-format", value: "NAMES", help: """
        Also decode these formats (repeatable, or a comma list; also the
        variable IMAGEPIPE_ALLOW_FORMATS). Formats are recognized by their
        first bytes; decoded by default: \(defaultFormats);
        others: \(otherFormats)
        """)

    static let options: [any OptionDeclaring] = [maxInputBytes, timeoutOption, allowFormat]

    /// `--max-memory`: what the pictures in progress may hold together (`run` and `serve` say
    /// how in their help).
    static let maxMemory = CommandOption("--max-memory", value: "N", help: """
        What the pictures in progress may hold together, estimated from each
        header; one that does not fit beside the others waits, one that could
        never fit fails alone; K, M, G suffixes (default: 3/4 of the
        machine's memory, or of its control group's limit; 0 = no limit)
        """) { text in
        guard let bytes = byteCount(text) else { throw UsageError("--max-memory needs a number of bytes ≥ 0 (like 2G), got '\(text)'") }
        return bytes
    }

    static let defaultFormats = ImageFormat.allCases.filter(ImageFormat.vetted.contains).map(\.rawValue).joined(separator: ", ")
    static let otherFormats = ImageFormat.allCases.filter { !ImageFormat.vetted.contains($0) }.map(\.rawValue).joined(separator: ", ")

    /// The load options of the command line (and IMAGEPIPE_ALLOW_FORMATS) over `options`.
    static func apply(_ parser: OptionParser, to options: inout LoadOptions) throws {
        options.isolatedDecoder = decodingHelper
        if let bytes = try parser.value(of: maxInputBytes) { options.maxInputBytes = bytes == 0 ? nil : bytes }
        var names: [(String, String)] = []
        if let variable = getenv("IMAGEPIPE_ALLOW_FORMATS") {
            names += String(cString: variable).split(separator: ",").map { (String($0), "IMAGEPIPE_ALLOW_FORMATS") }
        }
        names += try parser.values(of: allowFormat).flatMap { $0.split(separator: ",").map { (String($0), "--allow-format") } }
        for (name, origin) in names {
            let trimmed = name.trimmingSpaces()
            guard !trimmed.isEmpty else { continue }
            guard let format = ImageFormat(name: trimmed) else {
                throw UsageError("\(origin): unknown format '\(trimmed)': use one of \(ImageFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            options.allowedFormats.insert(format)
        }
    }

    /// `run`'s time limit: `--timeout`, or without it one that grows with each picture's work.
    static func timeLimit(_ parser: OptionParser) throws -> TimeLimit {
        guard parser.has(timeoutOption) else { return .scaled }
        return try timeout(parser).map(TimeLimit.fixed) ?? .none
    }

    /// `--timeout` in seconds; nil for no limit.
    static func timeout(_ parser: OptionParser) throws -> Double? {
        guard let seconds = try parser.value(of: timeoutOption) else { return defaultTimeout }
        return seconds == 0 ? nil : seconds
    }

    /// The moment `seconds` from now, for a picture's `LoadOptions.deadline`.
    static func deadline(in seconds: Double?) -> ContinuousClock.Instant? {
        seconds.map { .now + .milliseconds(Int64($0 * 1000)) }
    }

    /// This very program as the opt-in formats' decoder (`IsolatedDecoder`), found through
    /// /proc so that it is the same build whatever PATH says.
    static let decodingHelper: [String]? = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return [String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self), IsolatedDecoder.childCommand]
    }()

    /// `1000`, `64K`, `256M`, `2G` (powers of 1024; a trailing `B` or `iB` is allowed).
    static func byteCount(_ text: String) -> Int? {
        var digits = text.uppercased()
        for suffix in ["IB", "B"] where digits.hasSuffix(suffix) && digits.count > suffix.count { digits.removeLast(suffix.count); break }
        var multiplier = 1
        if let last = digits.last, let shift = ["K": 10, "M": 20, "G": 30, "T": 40][String(last)] {
            multiplier = 1 << shift
            digits.removeLast()
        }
        guard let value = Int(digits), value >= 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : product
    }
}

extension String {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
