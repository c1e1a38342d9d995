import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// The overlay pictures of a process, each decoded once: a batch of a thousand photos
/// watermarked with one logo reads and decodes the logo once, not a thousand times.
///
/// Stages are values shared between the runs of a batch, so the cache cannot live in them; it
/// is process-wide, behind a lock. An entry is keyed by the path, the file's identity (device,
/// inode, size, modification time: a file replaced during a long batch is read again) and the
/// run's load options (the format allowlist and limits it was read under). The first decode of a
/// file holds the lock, so two runs of a parallel batch never decode it twice. At most
/// `capacity` files are kept, the oldest dropped first.
public final class OverlayCache: Sendable {
    /// The cache every `composite` stage uses.
    public static let shared = OverlayCache()

    private struct FileIdentity: Hashable {
        var device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int
    }

    private struct Key: Hashable {
        var path: String
        var identity: FileIdentity
        var options: LoadOptions
    }

    private struct Entry {
        var size: Size
        var image: Image?
        var age: Int
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var decodes: [String: Int] = [:]
        var clock = 0
    }

    public let capacity: Int
    private let state = Locked(State())

    public init(capacity: Int = 16) { self.capacity = capacity }

    /// The overlay's size as it will be decoded (EXIF orientation applied), from its header.
    public func size(of path: String, options: LoadOptions) throws -> Size {
        let key = try Self.key(path, options)
        return try state.withLock { state in
            if let entry = state.entries[key] { return entry.size }
            let header = try ImageHeader.read(path: path, options: key.options)
            try header.checkPixels(limit: key.options.maxPixels, path: path)
            let size = header.decodedSize(applyingOrientation: true)
            insert(Entry(size: size, image: nil, age: 0), for: key, into: &state)
            return size
        }
    }

    /// The overlay decoded, through the framework's loader and under `options`' allowlist and
    /// limits; decoded once per file while it is unchanged.
    public func image(at path: String, options: LoadOptions) throws -> Image {
        let key = try Self.key(path, options)
        return try state.withLock { state in
            if let image = state.entries[key]?.image { return image }
            var decoding = key.options
            decoding.deadline = options.deadline // the run's time limit holds for its overlay too
            let image = try Image.load(path: path, options: decoding)
            state.decodes[path, default: 0] += 1
            insert(Entry(size: image.size, image: image, age: 0), for: key, into: &state)
            return image
        }
    }

    /// How many times the file at `path` has been decoded by this cache (for tests).
    public func decodeCount(of path: String) -> Int {
        state.withLock { $0.decodes[path] ?? 0 }
    }

    private func insert(_ entry: Entry, for key: Key, into state: inout State) {
        var entry = entry
        state.clock += 1
        entry.age = state.clock
        state.entries[key] = entry
        while state.entries.count > capacity, let oldest = state.entries.min(by: { $0.value.age < $1.value.age })?.key {
            state.entries[oldest] = nil
        }
    }

    /// The key of a file: its identity now, and the options that matter for its pixels. An
    /// overlay is always turned upright (it is placed as a viewer shows it) and decoded whole.
    private static func key(_ path: String, _ options: LoadOptions) throws -> Key {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            throw ImageError(.unreadable, path: path, reason: reason)
        }
        var options = options
        options.applyOrientation = true
        options.atLeast = nil
        options.deadline = nil
        let identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                                    seconds: info.st_mtim.tv_sec, nanoseconds: info.st_mtim.tv_nsec)
        return Key(path: path, identity: identity, options: options)
    }
}
