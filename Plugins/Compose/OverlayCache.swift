import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// The overlay pictures of a process, each decoded once: a batch of a thousand photos
/// watermarked with one logo reads and decodes the logo once, not a thousand times. The sizes
/// it is scaled to are kept too (a few per file), so a batch of pictures of one size scales
/// the logo once as well.
///
/// Stages are values shared between the runs of a batch, so the cache cannot live in them; it
/// is process-wide, behind a lock. An entry is keyed by the path, the file's identity (device,
/// inode, size, modification time: a file replaced during a long batch is read again) and the
/// run's load options (the format allowlist and limits it was read under). The first decode of a
/// file holds the lock, so two runs of a parallel batch never decode it twice. At most
/// `capacity` files are kept, the oldest dropped first; of each, the `scaledCapacity` scalings
/// last made (a batch of many picture sizes at `scale=0.2` must not keep one copy per size);
/// and at most `byteCapacity` bytes of pictures in all, the least recently used dropped first
/// (three 8000x8000 overlays would otherwise stay, 768 MB, for the whole batch). A picture
/// larger than that alone is used and not kept: each run decodes it again, its memory counted
/// by the plan (`CompositeStage.heldBytes`), not held between runs.
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

    /// What a scaling's pixels depend on: the size, and the kernel actually used (a stage's own,
    /// or the run's scaling mode's; nil is gdk-pixbuf's scaler) in linear light or not.
    private struct Scaling: Hashable {
        var size: Size
        var kernel: Kernel?
        var linearLight: Bool
    }

    private struct Entry {
        var size: Size
        var image: Image?
        /// The clock when the entry was made or its decoded picture last used.
        var age: Int
        /// The decoded image scaled, each with the clock when it was last used.
        var scaled: [Scaling: (image: Image, used: Int)] = [:]

        /// The bytes of the pictures it keeps.
        var bytes: Int {
            (image.map(OverlayCache.bytes) ?? 0) + scaled.values.reduce(0) { $0 + OverlayCache.bytes(of: $1.image) }
        }
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var decodes: [String: Int] = [:]
        var scalings: [String: Int] = [:]
        var clock = 0
    }

    /// The shared cache's bound on the bytes it keeps: a few logos and frames fit, with their
    /// scalings; a photo-sized overlay does not stay.
    public static let defaultByteCapacity = 64 << 20

    public let capacity: Int
    public let scaledCapacity: Int
    public let byteCapacity: Int
    private let state = Locked(State())

    public init(capacity: Int = 16, scaledCapacity: Int = 4, byteCapacity: Int = OverlayCache.defaultByteCapacity) {
        self.capacity = capacity
        self.scaledCapacity = scaledCapacity
        self.byteCapacity = byteCapacity
    }

    /// The bytes of the pictures the cache keeps now: at most `byteCapacity`.
    public var keptBytes: Int {
        state.withLock { $0.entries.values.reduce(0) { $0 + $1.bytes } }
    }

    /// The bytes a picture takes in memory.
    static func bytes(of image: Image) -> Int { image.size.pixelCount * image.channelCount }

    /// The overlay's size as it will be decoded (EXIF orientation applied), from its header.
    public func size(of path: String, options: LoadOptions) throws -> Size {
        let key = try Self.key(path, options)
        return try state.withLock { state in
            if let entry = state.entries[key] { return entry.size }
            var reading = key.options
            reading.deadline = options.deadline // the run's time limit holds for the header read too
            let header = try ImageHeader.read(path: path, options: reading)
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
        return try state.withLock { state in try decoded(path, key, options, in: &state) }
    }

    /// The overlay decoded (as `image(at:options:)`) and scaled through the shared resampler to
    /// `size(its decoded size)`; the decoded picture itself when that is its own size. Scaled
    /// once per size, kernel and light while the file is unchanged. The scaling holds the lock
    /// as the decode does, so the runs of a parallel batch of one picture size wait for one
    /// scaling rather than each make it.
    public func image(at path: String, options: LoadOptions, kernel: Kernel?, linearLight: Bool,
                      scaledTo size: (Size) -> Size) throws -> Image {
        let key = try Self.key(path, options)
        let kernel = kernel ?? StageContext.current.scaling.defaultKernel
        return try state.withLock { state in
            // A scaling kept is found before any decode: the decode of an overlay too large to
            // keep is not redone for a scaling that was kept.
            if let stored = state.entries[key]?.size {
                let scaling = Scaling(size: size(stored), kernel: kernel, linearLight: linearLight)
                if scaling.size != stored, let cached = state.entries[key]?.scaled[scaling] {
                    state.clock += 1
                    state.entries[key]?.scaled[scaling]?.used = state.clock
                    state.entries[key]?.age = state.clock
                    return cached.image
                }
            }
            let decoded = try decoded(path, key, options, in: &state)
            let scaling = Scaling(size: size(decoded.size), kernel: kernel, linearLight: linearLight)
            guard scaling.size != decoded.size else { return decoded }
            state.clock += 1
            let now = state.clock
            let scaled = try decoded.scaled(to: scaling.size, kernel: kernel, linearLight: linearLight)
            state.scalings[path, default: 0] += 1
            // No entry only when the cache keeps nothing (a capacity of 0).
            guard var entry = state.entries[key] else { return scaled }
            entry.scaled[scaling] = (scaled, now)
            while entry.scaled.count > scaledCapacity, let oldest = entry.scaled.min(by: { $0.value.used < $1.value.used })?.key {
                entry.scaled[oldest] = nil
            }
            entry.age = now
            state.entries[key] = entry
            trim(keeping: key, in: &state)
            return scaled
        }
    }

    /// How many times the file at `path` has been decoded by this cache (for tests).
    public func decodeCount(of path: String) -> Int {
        state.withLock { $0.decodes[path] ?? 0 }
    }

    /// How many times the picture of the file at `path` has been scaled by this cache (for tests).
    public func scaleCount(of path: String) -> Int {
        state.withLock { $0.scalings[path] ?? 0 }
    }

    /// The entry's decoded picture, decoded now if it has none.
    private func decoded(_ path: String, _ key: Key, _ options: LoadOptions, in state: inout State) throws -> Image {
        if let image = state.entries[key]?.image {
            state.clock += 1
            state.entries[key]?.age = state.clock
            return image
        }
        var decoding = key.options
        decoding.deadline = options.deadline // the run's time limit holds for its overlay too
        let image = try Image.load(path: path, options: decoding)
        state.decodes[path, default: 0] += 1
        insert(Entry(size: image.size, image: image, age: 0), for: key, into: &state)
        return image
    }

    private func insert(_ entry: Entry, for key: Key, into state: inout State) {
        var entry = entry
        state.clock += 1
        entry.age = state.clock
        state.entries[key] = entry
        while state.entries.count > capacity, let oldest = state.entries.min(by: { $0.value.age < $1.value.age })?.key {
            state.entries[oldest] = nil
        }
        trim(keeping: key, in: &state)
    }

    /// Drops pictures, least recently used first, until at most `byteCapacity` bytes are kept:
    /// other files' pictures first, then `key`'s own scalings and decode. Entries keep their
    /// size (from the header, a few bytes), so a plan need not read the header again.
    private func trim(keeping key: Key, in state: inout State) {
        var total = state.entries.values.reduce(0) { $0 + $1.bytes }
        while total > byteCapacity {
            if let oldest = state.entries.filter({ $0.key != key && $0.value.bytes > 0 }).min(by: { $0.value.age < $1.value.age })?.key {
                total -= state.entries[oldest]!.bytes
                state.entries[oldest]?.image = nil
                state.entries[oldest]?.scaled = [:]
            } else if var entry = state.entries[key], entry.bytes > 0 {
                if let oldest = entry.scaled.min(by: { $0.value.used < $1.value.used })?.key {
                    entry.scaled[oldest] = nil
                } else {
                    entry.image = nil
                }
                total -= state.entries[key]!.bytes - entry.bytes
                state.entries[key] = entry
            } else {
                return
            }
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
