#if canImport(Glibc)
import Glibc
#endif

/// Facts about the machine the resampler sizes its work by.
package enum System {
    /// Online processors (at least 1).
    package static let coreCount = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
}
