#if canImport(Glibc)
import Glibc
#endif

/// What is checked before any picture is touched: every output name can be made, no two inputs
/// write the same file, no output replaces a file the run reads (unless `--overwrite`) — the
/// input named on the command line or by `load FILE`, an overlay, a profile, the pipeline file —
/// and no output is an existing directory, block
/// device or socket. Outputs are compared by the file they resolve to (`fileKey`), not by how
/// they are spelt. In a batch, an input whose
/// output cannot be named at all (its `{ext}` names no writable format, say) is that input's
/// failure, not the batch's: it is returned, and the others go on. When no input's output can be
/// named, the command line itself is wrong: that is a usage error.
package struct OutputCheck {
    package let pipeline: Pipeline
    package let contexts: [RunContext]
    package let allowOverwrite: Bool
    /// Other files the command reads (the pipeline file), which no output may replace either.
    package var alsoRead: [String] = []
    /// An error as the messages show it (the command words each remedy by its option).
    package var describe: @Sendable (any Error) -> String = { "\($0)" }

    package init(pipeline: Pipeline, contexts: [RunContext], allowOverwrite: Bool, alsoRead: [String] = [],
                 describe: @escaping @Sendable (any Error) -> String = { "\($0)" }) {
        (self.pipeline, self.contexts, self.allowOverwrite, self.alsoRead, self.describe) = (pipeline, contexts, allowOverwrite, alsoRead, describe)
    }

    /// The inputs (by `RunContext.index`) of a batch whose outputs cannot be named, with why;
    /// and every context's outputs, in order (none for those), for the checks that follow
    /// (`RunCommand.checkStandardOutput`) to look at rather than name them all again.
    @discardableResult
    package func run() throws -> (unnamed: [Int: String], outputs: [[String]]) {
        var unnamed: [Int: String] = [:], named: [[String]] = []
        var writers: [[UInt8]: String] = [:] // an output's file key → the input that writes it
        var inputs: [String: String] = [:]    // an input's file identity → its path
        for context in contexts {
            // `load p.jpg` reads p.jpg whatever the command line says.
            guard let input = (pipeline.source as? Load)?.path ?? context.input, input != "-" else { continue }
            if let identity = Self.identity(input) { inputs[identity] = input }
        }
        // Overlays, profiles, `load` paths and the pipeline file are inputs as much as the picture.
        for read in pipeline.stages.flatMap(\.filesRead) + alsoRead {
            if let identity = Self.identity(read) { inputs[identity] = read }
        }
        for context in contexts {
            let source = context.input ?? "the pipeline"
            let outputs: [String]
            do {
                outputs = try pipeline.outputs(in: context)
            } catch {
                let message = describe(error)
                guard contexts.count > 1 else { throw UsageError(message) }
                unnamed[context.index] = "\(source): \(message)"
                if unnamed.count == contexts.count { throw UsageError("\(source): \(message)") }
                named.append([])
                continue
            }
            named.append(outputs)
            var written = Set<[UInt8]>()
            for output in outputs where output != "-" {
                let key = Self.fileKey(output)
                guard written.insert(key).inserted else { throw UsageError("'\(output)' is written twice by one run of the pipeline") }
                if let other = writers[key] {
                    throw UsageError("'\(other)' and '\(source)' would both be written to '\(output)'; use {stem}, {dir} or {index} in the output name")
                }
                writers[key] = source
                if let kind = Self.unwritableKind(output) { throw UsageError("the output '\(output)' \(kind)") }
                if !allowOverwrite, let identity = Self.identity(output), let input = inputs[identity] {
                    throw UsageError("the output '\(output)' is the input file '\(input)'", remedy: .allowOverwrite)
                }
            }
        }
        return (unnamed, named)
    }

    /// What two spellings of one output share: an existing file's device and inode, else the
    /// resolved folder (symbolic links and `..` followed) and the name in it, else the name made
    /// absolute; so `./same.png`, `same.png` and `$PWD/same.png` are one output.
    package static func fileKey(_ path: String) -> [UInt8] {
        if let identity = identity(path) { return Array("file \(identity)".utf8) }
        let bytes = Array(path.utf8)
        let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
        let folder = slash.map { $0 == 0 ? "/" : String(decoding: bytes[..<$0], as: UTF8.self) } ?? "."
        let name = slash.map { Array(bytes[($0 + 1)...]) } ?? bytes
        if let resolved = realpath(folder, nil) {
            defer { free(resolved) }
            return Array("path ".utf8) + normalise(String(cString: resolved) + "/" + String(decoding: name, as: UTF8.self))
        }
        guard !PathBytes.isAbsolute(path), let folder = getcwd(nil, 0) else { return Array("path ".utf8) + normalise(path) }
        defer { free(folder) }
        return Array("path ".utf8) + normalise(String(cString: folder) + "/" + path)
    }

    /// A path's bytes with `.` and empty components dropped, for comparing names not yet on disk.
    package static func normalise(_ path: String) -> [UInt8] {
        let parts = path.utf8.split(separator: UInt8(ascii: "/")).filter { !$0.elementsEqual(".".utf8) }
        return (PathBytes.isAbsolute(path) ? [UInt8(ascii: "/")] : []) + Array(parts.joined(separator: [UInt8(ascii: "/")]))
    }

    /// Why an existing output cannot be written, when it is neither a regular file nor a device or
    /// FIFO written through (see `ImageFile.writeAtomically`).
    package static func unwritableKind(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG, S_IFCHR, S_IFIFO: return nil
        case S_IFDIR: return "is a directory; give a file name, or '\(path)/' to write into it"
        case S_IFBLK: return "is a block device; ImagePipe writes files, character devices and FIFOs only"
        default: return "is not a file; ImagePipe writes files, character devices and FIFOs only"
        }
    }

    package static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// The device and inode of an existing file, so that two names of one file compare equal.
    package static func identity(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return "\(status.st_dev):\(status.st_ino)"
    }
}
