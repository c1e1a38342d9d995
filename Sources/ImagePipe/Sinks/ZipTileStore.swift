import CArchive
#if canImport(Glibc)
import Glibc
#endif

/// Files written one after the other into a ZIP, through libarchive, under a folder named as the
/// pyramid (as libvips' dzsave lays out its ZIPs). Entries are stored, not deflated: the tiles
/// are compressed already, and a stored entry is read straight from the file by a tile server.
/// libarchive writes ZIP64 records when the archive outgrows 4 GiB or 65 535 entries.
final class ZipTileStore: TileStore, @unchecked Sendable {
    /// The archive, used under `lock` only: one entry is written at a time.
    private let archive: OpaquePointer
    private let lock = Locked(())
    private let folder: String
    private let path: String
    private let time = Glibc.time(nil)

    /// A ZIP written to the open `descriptor` (the temporary file of `path`), its entries under `folder/`.
    init(descriptor: Int32, folder: String, path: String) throws {
        guard let archive = archive_write_new() else { throw ImageError(.unwritable, path: path, reason: "libarchive could not start a ZIP") }
        self.archive = archive
        self.folder = folder
        self.path = path
        guard archive_write_set_format_zip(archive) == ARCHIVE_OK,
              archive_write_set_options(archive, "zip:compression=store") == ARCHIVE_OK,
              archive_write_set_bytes_in_last_block(archive, 1) == ARCHIVE_OK,
              archive_write_open_fd(archive, descriptor) == ARCHIVE_OK else {
            let reason = Self.message(archive)
            archive_write_free(archive)
            throw ImageError(.unwritable, path: path, reason: reason)
        }
    }

    deinit { archive_write_free(archive) }

    func write(_ bytes: [UInt8], at name: String) throws {
        try lock.withLock { _ in
            guard let entry = archive_entry_new() else { throw ImageError(.unwritable, path: path, reason: "out of memory") }
            defer { archive_entry_free(entry) }
            archive_entry_set_pathname(entry, folder + "/" + name)
            archive_entry_set_filetype(entry, UInt32(Glibc.S_IFREG)) // AE_IFREG, a macro Swift cannot import
            archive_entry_set_perm(entry, 0o644)
            archive_entry_set_size(entry, la_int64_t(bytes.count))
            archive_entry_set_mtime(entry, time, 0)
            guard archive_write_header(archive, entry) == ARCHIVE_OK else { throw ImageError(.unwritable, path: path, reason: Self.message(archive)) }
            let written = bytes.withUnsafeBytes { archive_write_data(archive, $0.baseAddress, $0.count) }
            guard written == bytes.count else { throw ImageError(.unwritable, path: path, reason: Self.message(archive)) }
        }
    }

    /// Writes the ZIP's central directory: the file is whole only after this.
    func finish() throws {
        try lock.withLock { _ in
            guard archive_write_close(archive) == ARCHIVE_OK else { throw ImageError(.unwritable, path: path, reason: Self.message(archive)) }
        }
    }

    private static func message(_ archive: OpaquePointer) -> String {
        archive_error_string(archive).map { String(cString: $0) } ?? "libarchive failed"
    }
}
