/// What a build of ImagePipe is: the versions a plugin must match (its C interface and schema)
/// and the Swift toolchain that compiled it. Swift has no stable ABI on Linux, so a plugin
/// must be built by the same toolchain as the program that loads it.
public enum BuildInfo {
    /// The Swift compiler's version, from compile-time checks (`#if compiler(>=…)`): the
    /// highest release it is at least.
    public static let swiftVersion: String = {
        #if compiler(>=6.4.5)
        "6.4.5 or later"
        #elseif compiler(>=6.4.4)
        "6.4.4"
        #elseif compiler(>=6.4.3)
        "6.4.3"
        #elseif compiler(>=6.4.2)
        "6.4.2"
        #elseif compiler(>=6.4.1)
        "6.4.1"
        #elseif compiler(>=6.4)
        "6.4"
        #elseif compiler(>=6.3.5)
        "6.3.5"
        #elseif compiler(>=6.3.4)
        "6.3.4"
        #elseif compiler(>=6.3.3)
        "6.3.3"
        #elseif compiler(>=6.3.2)
        "6.3.2"
        #elseif compiler(>=6.3.1)
        "6.3.1"
        #elseif compiler(>=6.3)
        "6.3"
        #elseif compiler(>=6.2.5)
        "6.2.5"
        #elseif compiler(>=6.2.4)
        "6.2.4"
        #elseif compiler(>=6.2.3)
        "6.2.3"
        #elseif compiler(>=6.2.2)
        "6.2.2"
        #elseif compiler(>=6.2.1)
        "6.2.1"
        #elseif compiler(>=6.2)
        "6.2"
        #elseif compiler(>=6.1.5)
        "6.1.5"
        #elseif compiler(>=6.1.4)
        "6.1.4"
        #elseif compiler(>=6.1.3)
        "6.1.3"
        #elseif compiler(>=6.1.2)
        "6.1.2"
        #elseif compiler(>=6.1.1)
        "6.1.1"
        #elseif compiler(>=6.1)
        "6.1"
        #elseif compiler(>=6.0.5)
        "6.0.5"
        #elseif compiler(>=6.0.4)
        "6.0.4"
        #elseif compiler(>=6.0.3)
        "6.0.3"
        #elseif compiler(>=6.0.2)
        "6.0.2"
        #elseif compiler(>=6.0.1)
        "6.0.1"
        #elseif compiler(>=6.0)
        "6.0"
        #else
        "before 6.0"
        #endif
    }()

    /// The system libraries the program opens when a picture first needs them rather than at
    /// start-up (libheif and libavif bring 27 libraries of codecs with them), by soname:
    /// not linked, so a package of the program names them among its dependencies itself.
    public static let librariesOpenedOnFirstUse = Codecs.librariesOpenedOnFirstUse

    /// `plugin interface 3, schema 1; built with Swift 6.3.1 (…)` and the libraries opened on
    /// first use: for `imagepipe --version`.
    public static var summary: String {
        """
        plugin interface \(Registry.pluginInterfaceVersion), schema \(Registry.pluginSchemaVersion); built with Swift \(swiftVersion) (a plugin must be built with the same toolchain)
        libraries opened on first use: \(librariesOpenedOnFirstUse.joined(separator: " "))
        """
    }
}
