#if canImport(Glibc)
import Glibc
#endif

/// Where a pyramid's files go, from the path `save` names: `NAME.dzi` (Deep Zoom: `NAME.dzi`
/// beside the folder `NAME_files/`), `NAME.zip` (one ZIP holding `NAME/…`), or `NAME` (the
/// folder `NAME/` of the other layouts).
///
/// Everything is written into a temporary folder (or file) beside the path and put in place by
/// renames once the last tile is written: a failed run leaves no partial pyramid, and a pyramid
/// already there is replaced whole. Only a pyramid of the same layout is replaced; a file, or a
/// folder that is not such a pyramid, is refused (a folder named by mistake is never emptied).
struct PyramidTarget {
    let path: String
    let layout: PyramidLayout
    let container: PyramidContainer
    /// The folder the pyramid goes into: empty, or ending in a slash.
    let directory: String
    /// The pyramid's name: the path's last component without `.dzi` or `.zip`.
    let name: String

    init(path: String, layout: PyramidLayout, container: PyramidContainer?) {
        self.path = path
        self.layout = layout
        directory = PathBytes.directoryPrefix(path)
        let last = PathBytes.lastComponent(path)
        let (stem, ext) = PathBytes.splitExtension(last)
        let lower = ext?.lowercased()
        name = lower == "dzi" || lower == "zip" ? stem : last
        self.container = container ?? (lower == "zip" ? .zip : .folder)
    }

    /// The folder the tiles of Deep Zoom go in, relative to the root.
    var deepZoomFiles: String { "\(name)_files" }

    /// What lands beside the path, relative to `directory`: the `.dzi` last, so that a viewer
    /// never finds one whose tiles are not all there.
    var landing: [String] {
        switch (container, layout) {
        case (.zip, _): [PathBytes.lastComponent(path)]
        case (.folder, .deepzoom): [deepZoomFiles, "\(name).dzi"]
        case (.folder, _): [name]
        }
    }

    /// Refuses an output that is something other than a pyramid this run may replace.
    func checkReplaceable() throws {
        if container == .zip {
            if let kind = Self.kind(path), kind != S_IFREG {
                throw ImageError(.unwritable, path: path, reason: "\(ImageFile.kindDescription(kind)); a pyramid's ZIP replaces only a file")
            }
            return
        }
        switch layout {
        case .deepzoom:
            let dzi = directory + "\(name).dzi", files = directory + deepZoomFiles
            if let kind = Self.kind(dzi), kind != S_IFREG {
                throw ImageError(.unwritable, path: dzi, reason: "\(ImageFile.kindDescription(kind)); a Deep Zoom pyramid's .dzi replaces only a file")
            }
            if let kind = Self.kind(files) {
                guard kind == S_IFDIR, Self.kind(dzi) == S_IFREG else {
                    throw ImageError(.unwritable, path: files, reason: "is in the way of the pyramid's tiles and is not the tiles of '\(dzi)'; remove it or name another pyramid")
                }
            }
        default:
            let root = directory + name
            if let kind = Self.kind(root) {
                guard kind == S_IFDIR, Self.kind(PathBytes.join(root, layout.marker)) == S_IFREG else {
                    throw ImageError(.unwritable, path: root, reason: "\(kind == S_IFDIR ? "is a folder that is not a \(layout.rawValue) pyramid (no \(layout.marker))" : ImageFile.kindDescription(kind)); remove it or name another pyramid")
                }
            }
        }
    }

    /// Writes the pyramid: `write` is given the store to put its files in, then they land.
    func write(gate: OutputGate?, _ write: (any TileStore) throws -> Void) throws {
        try checkReplaceable()
        if container == .zip {
            try ImageFile.writeAtomically(to: path, gate: gate) { descriptor in
                let store = try ZipTileStore(descriptor: descriptor, folder: name, path: path)
                try write(store)
                try store.finish()
            }
            return
        }
        try gate?.whileOpen(path: path) {}
        let temporary = try Self.makeTemporaryFolder(directory + ".\(name).imagepipe-XXXXXX", for: path)
        ImageFile.noteTemporary(temporary)
        defer {
            Self.removeTree(temporary)
            ImageFile.forgetTemporary(temporary)
        }
        let root = layout == .deepzoom ? temporary : PathBytes.join(temporary, name)
        if layout != .deepzoom, mkdir(root, 0o777) != 0 { throw ImageError(.unwritable, path: path, reason: ImageFile.systemMessage()) }
        try write(FolderTileStore(root: root))
        // What was there is moved aside into the temporary folder (removed with it), and the new
        // entries renamed into place, all while the gate is open.
        try (gate ?? OutputGate()).whileOpen(path: path) {
            for (index, entry) in landing.enumerated() {
                let target = directory + entry
                if Self.kind(target) != nil, rename(target, PathBytes.join(temporary, ".replaced-\(index)")) != 0 {
                    throw ImageError(.unwritable, path: target, reason: ImageFile.systemMessage())
                }
                if rename(PathBytes.join(temporary, entry), target) != 0 {
                    throw ImageError(.unwritable, path: target, reason: ImageFile.systemMessage())
                }
            }
        }
    }

    /// The kind of file at `path` (`S_IFREG`, `S_IFDIR`, …), nil when there is none.
    static func kind(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
    }

    /// A new folder from a `mkdtemp` template, with the permissions a plain new folder gets.
    private static func makeTemporaryFolder(_ template: String, for path: String) throws -> String {
        var bytes = Array(template.utf8CString)
        guard bytes.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw ImageError(.unwritable, path: path, reason: "cannot make a temporary folder beside it: \(ImageFile.systemMessage())")
        }
        let folder = String(cString: bytes.withUnsafeBufferPointer { $0.baseAddress! })
        chmod(folder, 0o777 & ~ImageFile.processUmask)
        return folder
    }

    /// Removes `path` and everything under it (a temporary folder of our own), not following links.
    static func removeTree(_ path: String) {
        if kind(path) == S_IFDIR {
            for entry in (try? ImageFile.directoryEntries(path)) ?? [] { removeTree(PathBytes.join(path, entry)) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
