#if canImport(Glibc)
import Glibc
#endif

/// Which version of which plugin file: a scan of it holds while none of these change.
public struct PluginIdentity: Hashable, Sendable {
    public let path: String
    public let device: UInt64
    public let inode: UInt64
    public let size: Int64
    public let modifiedSeconds: Int
    public let modifiedNanoseconds: Int

    init(path: String, status: stat) {
        self.path = path
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        modifiedSeconds = status.st_mtim.tv_sec
        modifiedNanoseconds = status.st_mtim.tv_nsec
    }
}
