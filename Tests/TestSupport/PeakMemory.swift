import Foundation

/// Runs `imagepipe` under a small Python parent that reports the child's peak resident set
/// (getrusage of its children), for tests whose point is memory.
public enum PeakMemory {
    public struct Result: Sendable {
        public let status: Int32
        public let standardError: String
        /// The largest resident set the run had, in bytes.
        public let peakBytes: Int
    }

    /// Runs `imagepipe arguments…` in `directory`, with the file at `input` (if any) as its
    /// standard input and `environment` added to its own.
    public static func run(_ arguments: [String], in directory: String, input: String? = nil, environment: [String: String] = [:]) throws -> Result {
        let measure = """
            import os, resource, subprocess, sys
            source = open(os.environ["PEAK_INPUT"], "rb") if os.environ.get("PEAK_INPUT") else subprocess.DEVNULL
            run = subprocess.run(sys.argv[1:], stdin=source, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            sys.stderr.buffer.write(run.stderr)
            print(run.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
        let result = try CommandRunner.runProgram("/usr/bin/python3", ["-c", measure, CommandRunner.binary] + arguments, in: directory,
                                                  environment: environment.merging(["PEAK_INPUT": input ?? ""]) { _, peak in peak })
        let fields = result.standardOutput.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard fields.count == 2 else { throw CocoaError(.fileReadCorruptFile) }
        return Result(status: Int32(fields[0]), standardError: result.standardError, peakBytes: fields[1] * 1024)
    }
}
