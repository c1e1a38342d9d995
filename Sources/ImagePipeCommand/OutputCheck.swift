import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// What is checked before any picture is touched: every output name can be made, no two inputs
/// write the same file, and no output replaces an input (unless `--overwrite`).
struct OutputCheck {
    let pipeline: Pipeline
    let contexts: [RunContext]
    let allowOverwrite: Bool

    func run() throws {
        var writers: [String: String] = [:] // normalised output → the input that writes it
        var inputs: [String: String] = [:]  // an input's file identity → its path
        for context in contexts {
            guard let input = context.input, input != "-" else { continue }
            if let identity = Self.identity(input) { inputs[identity] = input }
        }
        for context in contexts {
            let source = context.input ?? "the pipeline"
            let outputs: [String]
            do {
                outputs = try pipeline.outputs(in: context)
            } catch {
                throw UsageError((contexts.count > 1 ? "\(source): " : "") + "\(error)")
            }
            var written = Set<String>()
            for output in outputs where output != "-" {
                let key = Self.normalise(output)
                guard written.insert(key).inserted else { throw UsageError("'\(output)' is written twice by one run of the pipeline") }
                if let other = writers[key] {
                    throw UsageError("'\(other)' and '\(source)' would both be written to '\(output)'; use {stem}, {dir} or {index} in the output name")
                }
                writers[key] = source
                if !allowOverwrite, let identity = Self.identity(output), let input = inputs[identity] {
                    throw UsageError("the output '\(output)' is the input file '\(input)'; give --overwrite to replace it")
                }
            }
        }
    }

    /// A path with `.` and empty components dropped, for comparing names not yet on disk.
    static func normalise(_ path: String) -> String {
        let parts = path.split(separator: "/").filter { $0 != "." }
        return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
    }

    /// The device and inode of an existing file, so that two names of one file compare equal.
    static func identity(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return "\(status.st_dev):\(status.st_ino)"
    }
}
