import Foundation
import ImagePipe

/// What ExifTool (Debian `libimage-exiftool-perl`) reads from a file: a reader of EXIF, XMP and
/// ICC profiles in JPEG, PNG, WebP and AVIF that shares no code with ImagePipe, for tests of what
/// `save keep=…` writes.
public enum ExifTool {
    public static let program = "/usr/bin/exiftool"

    /// Every tag, keyed `GROUP:Name` (`EXIF:Make`, `XMP:CreatorTool`, `ICC_Profile:ColorSpaceData`),
    /// numbers as numbers (`-n`: orientation 6, not "Rotate 90 CW").
    public static func tags(_ path: String) throws -> [String: JSONValue] {
        let result = try CommandRunner.runProgram(program, ["-j", "-G0", "-n", path])
        guard result.status == 0, let file = JSONValue.parse(result.standardOutput)?.arrayValue?.first,
              let keys = file.objectKeys else {
            throw ColorReference.ReferenceError("exiftool could not read \(path): \(result.standardError)")
        }
        return Dictionary(keys.compactMap { key in file[key].map { (key, $0) } }, uniquingKeysWith: { first, _ in first })
    }

    /// The embedded ICC profile's bytes, or nil when there is none.
    public static func profile(_ path: String) throws -> [UInt8]? {
        let result = try CommandRunner.runProgram(program, ["-b", "-ICC_Profile", path])
        guard result.status == 0 else { throw ColorReference.ReferenceError("exiftool failed on \(path): \(result.standardError)") }
        return result.outputBytes.isEmpty ? nil : result.outputBytes
    }

    /// Runs ExifTool to write tags into `path` in place (`-Make=…`, `-Orientation#=6`).
    public static func write(_ path: String, _ assignments: [String]) throws {
        let result = try CommandRunner.runProgram(program, ["-q", "-overwrite_original"] + assignments + [path])
        guard result.status == 0 else { throw ColorReference.ReferenceError("exiftool could not write \(path): \(result.standardError)") }
    }
}
