#if canImport(Glibc)
import Glibc
#endif

/// Files written under a folder (a pyramid's temporary one), their folders made on first use.
final class FolderTileStore: TileStore, @unchecked Sendable {
    let root: String
    /// Folders made already, so that each tile costs one `open`, not a `mkdir` per level of its path.
    private let made = Locked<Set<String>>([])

    init(root: String) { self.root = root }

    func write(_ bytes: [UInt8], at path: String) throws {
        let full = PathBytes.join(root, path)
        let folder = PathBytes.directoryPrefix(path)
        if !folder.isEmpty, !made.withLock({ $0.contains(folder) }) {
            try ImageFile.makeDirectories(PathBytes.join(root, folder), for: full)
            made.withLock { _ = $0.insert(folder) }
        }
        let descriptor = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw ImageError(.unwritable, path: full, reason: ImageFile.systemMessage()) }
        var failure = bytes.withUnsafeBytes { ImageFile.writeAll($0, to: descriptor) }
        if close(descriptor) != 0, failure == nil { failure = ImageFile.systemMessage() }
        if let failure { throw ImageError(.unwritable, path: full, reason: failure) }
    }
}
