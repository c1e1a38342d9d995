import Foundation

/// Runs the built `imagepipe` binary as a user would, capturing its output and exit status.
public enum CommandRunner {
    public struct Result: Sendable {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String
        public let outputBytes: [UInt8]
    }

    /// The binary beside the test bundle (both are products of the same build).
    public static var binary: String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("imagepipe").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/imagepipe").path
    }

    /// The environment that runs every stage on the whole picture (`RunContext.wholePictures`):
    /// the ordinary run a streamed run's file is compared with.
    public static let wholePictures = ["IMAGEPIPE_WHOLE_PICTURES": "1"]

    /// Runs `imagepipe arguments…` in `directory`, feeding `input` on standard input.
    @discardableResult
    public static func run(_ arguments: [String], in directory: String? = nil, input: [UInt8] = [],
                           environment: [String: String] = [:]) throws -> Result {
        try runProgram(binary, arguments, in: directory, input: input, environment: environment)
    }

    /// Runs any program the same way.
    public static func runProgram(_ program: String, _ arguments: [String], in directory: String? = nil,
                                  input: [UInt8] = [], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Read both streams on their own threads so a full pipe never blocks the child.
        nonisolated(unsafe) var outBytes = Data(), errBytes = Data()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { outBytes = stdout.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errBytes = stderr.fileHandleForReading.readDataToEndOfFile() }
        try stdin.fileHandleForWriting.write(contentsOf: Data(input))
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        group.wait()
        return Result(status: process.terminationStatus, standardOutput: String(decoding: outBytes, as: UTF8.self),
                      standardError: String(decoding: errBytes, as: UTF8.self), outputBytes: [UInt8](outBytes))
    }
}
