#if canImport(Glibc)
import Glibc
#endif

/// Which version of which plugin file: a scan of it holds while none of these change.
package struct PluginIdentity: Hashable, Sendable {
    package let path: String
    package let device: UInt64
    package let inode: UInt64
    package let size: Int64
    package let modifiedSeconds: Int
    package let modifiedNanoseconds: Int

    init(path: String, status: stat) {
        self.path = path
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        modifiedSeconds = status.st_mtim.tv_sec
        modifiedNanoseconds = status.st_mtim.tv_nsec
    }
}
