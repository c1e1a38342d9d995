#if canImport(Glibc)
import Glibc
#endif

/// One picture to process: its path, and the directory it was found in (for `{dir}`).
package struct BatchInput: Sendable {
    package let path: String
    package let root: String?

    package init(path: String, root: String?) {
        self.path = path
        self.root = root
    }

    /// What a folder held besides the pictures to process, said on the terminal.
    package struct PassedOver: Sendable {
        /// Why, with the path (escaped when it is not text).
        package let message: String
        /// Whether it was a picture the batch should have made (a name that is not UTF-8): the
        /// run then ends with a failure status, as for a picture that failed.
        package let isFailure: Bool
    }

    /// Expands the command line's inputs: files as they are, directories to the pictures in them
    /// (recursively with `recursive`; by the extensions of the `allowed` formats), hidden files
    /// skipped, each directory's files sorted.
    ///
    /// In a folder only regular files are taken (a FIFO would hold its thread; a device could
    /// be read for ever), each directory is entered once however many links lead to it (a
    /// symbolic link loop would never end), and a name that is not UTF-8, which Swift's text
    /// cannot hold, is reported rather than taken under a mended name that is another file's.
    package static func collect(_ arguments: [String], recursive: Bool, allowed: Set<ImageFormat> = ImageFormat.vetted) throws
        -> (inputs: [BatchInput], sawDirectory: Bool, passedOver: [PassedOver]) {
        let extensions = ImageFormat.readableExtensions(of: allowed)
        var walk = Walk(recursive: recursive, extensions: extensions)
        var inputs: [BatchInput] = []
        var sawDirectory = false
        for argument in arguments {
            var status = stat()
            if argument != "-", stat(argument, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
                sawDirectory = true
                let root = argument.utf8.count > 1 && argument.utf8.last == UInt8(ascii: "/") ? String(decoding: argument.utf8.dropLast(), as: UTF8.self) : argument
                inputs += try walk.pictures(in: root).map { BatchInput(path: $0, root: root) }
            } else {
                inputs.append(BatchInput(path: argument, root: nil))
            }
        }
        return (inputs, sawDirectory, walk.passedOver)
    }

    /// One expansion's walk: the directories entered so far, by device and inode.
    private struct Walk {
        let recursive: Bool
        let extensions: Set<String>
        var entered: Set<[UInt64]> = []
        var passedOver: [PassedOver] = []

        mutating func pictures(in directory: String) throws -> [String] {
            var status = stat()
            guard stat(directory, &status) == 0, entered.insert([UInt64(status.st_dev), UInt64(status.st_ino)]).inserted else {
                return [] // entered already, through another link
            }
            guard let handle = opendir(directory) else {
                throw UsageError("cannot read directory '\(directory)': \(String(cString: strerror(errno)))")
            }
            defer { closedir(handle) }
            var files: [String] = [], subdirectories: [String] = []
            while let entry = readdir(handle) {
                let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
                guard bytes.first != UInt8(ascii: ".") else { continue } // a byte test: ".\u{301}x" is hidden too
                guard let name = String(validating: bytes, as: UTF8.self) else {
                    if recursive || Self.hasPictureExtension(bytes, extensions) {
                        passedOver.append(PassedOver(message: "'\(directory)/\(Self.escaped(bytes))': passed over: the name is not UTF-8 text; rename it to process it", isFailure: true))
                    }
                    continue
                }
                let path = directory + "/" + name
                var status = stat()
                guard stat(path, &status) == 0 else { continue }
                switch status.st_mode & S_IFMT {
                case S_IFDIR:
                    if recursive { subdirectories.append(path) }
                case S_IFREG:
                    if let ext = PathBytes.splitExtension(name).ext, extensions.contains(ext.lowercased()) { files.append(path) }
                default:
                    if let ext = PathBytes.splitExtension(name).ext, extensions.contains(ext.lowercased()) {
                        passedOver.append(PassedOver(message: "'\(path)': passed over: \(ImageFile.kindDescription(status.st_mode)), not a regular file", isFailure: false))
                    }
                }
            }
            var found = files.sorted()
            for subdirectory in subdirectories.sorted() { found += try pictures(in: subdirectory) }
            return found
        }

        /// A name that is not UTF-8, its bad bytes written `\xFF`.
        static func escaped(_ bytes: [UInt8]) -> String {
            var text = ""
            var rest = bytes[...]
            while !rest.isEmpty {
                // The longest valid prefix goes as text; the byte that breaks it, as an escape.
                var end = rest.endIndex
                while end > rest.startIndex, String(validating: rest[rest.startIndex..<end], as: UTF8.self) == nil { end -= 1 }
                text += String(decoding: rest[rest.startIndex..<end], as: UTF8.self)
                if end < rest.endIndex {
                    let byte = rest[end]
                    text += "\\x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
                    end += 1
                }
                rest = rest[end...]
            }
            return text
        }

        /// Whether a name's bytes end in one of the picture extensions (which are ASCII).
        static func hasPictureExtension(_ bytes: [UInt8], _ extensions: Set<String>) -> Bool {
            guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")) else { return false }
            let ext = bytes[(dot + 1)...]
            return ext.allSatisfy { $0 < 0x80 } && extensions.contains(String(decoding: ext, as: UTF8.self).lowercased())
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
