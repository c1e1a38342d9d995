import CLCMS2
import Foundation

/// Color references from Little CMS's own tools and the ICC profiles Debian ships, for tests of
/// color management: the expected sRGB of a color is what `transicc` (lcms2's calculator,
/// Debian `liblcms2-utils`) computes in floating point, rounded and clamped to 8 bits.
public enum ColorReference {
    /// Adobe RGB (1998), from Debian `colord-data`.
    public static let adobeRGB = "/usr/share/color/icc/colord/AdobeRGB1998.icc"
    /// A CMYK printing profile (SWOP-like, from Ghostscript), from Debian `libgs-common`.
    public static let cmyk = "/usr/share/color/icc/ghostscript/default_cmyk.icc"
    /// A grey profile with gamma 2.2, from Debian `icc-profiles-free`.
    public static let grey = "/usr/share/color/icc/Gray.icc"

    /// A Display P3 profile as Apple's phones embed it: the DCI-P3 primaries, D65 white and the
    /// sRGB tone curve, built by Little CMS from those numbers (no Debian package ships one).
    /// With `privateTagBytes` above 0 it also holds a private tag of that many bytes, as some
    /// editors embed previews or settings in their profiles (a large profile that is still valid).
    public static func displayP3(privateTagBytes: Int = 0) -> [UInt8] {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: 0.680, y: 0.320, Y: 1), Green: cmsCIExyY(x: 0.265, y: 0.690, Y: 1),
                                        Blue: cmsCIExyY(x: 0.150, y: 0.060, Y: 1))
        var parameters: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        let curve = cmsBuildParametricToneCurve(nil, 4, &parameters)
        var curves: [OpaquePointer?] = [curve, curve, curve]
        let profile = cmsCreateRGBProfile(&white, &primaries, &curves)!
        let description = cmsMLUalloc(nil, 1)
        cmsMLUsetASCII(description, "en", "US", "Display P3")
        cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeRawPointer(description))
        if privateTagBytes > 0 {
            let padding = [UInt8](repeating: 0x5A, count: privateTagBytes)
            cmsWriteRawTag(profile, cmsTagSignature(0x7A7A_7A7A), padding, UInt32(privateTagBytes))
        }
        var length: UInt32 = 0
        cmsSaveProfileToMem(profile, nil, &length)
        var bytes = [UInt8](repeating: 0, count: Int(length))
        cmsSaveProfileToMem(profile, &bytes, &length)
        cmsMLUfree(description)
        cmsFreeToneCurve(curve)
        cmsCloseProfile(profile)
        return bytes
    }

    /// sRGB values, 0–255, of `values` in the profile at `profile` (RGB and grey 0–255, CMYK in
    /// percent as transicc reads them), by `transicc -t intent`.
    public static func transicc(profile: String, _ values: [[Double]], intent: Int = 0) throws -> [[Int]] {
        let input = values.map { $0.map { String($0) }.joined(separator: " ") }.joined(separator: "\n") + "\n"
        let result = try CommandRunner.runProgram("/usr/bin/transicc", ["-i", profile, "-o", "*sRGB", "-t\(intent)", "-n"],
                                                  input: Array(input.utf8))
        guard result.status == 0 else { throw ReferenceError("transicc failed: \(result.standardError)") }
        let rows = result.standardOutput.split(separator: "\n").compactMap { line -> [Int]? in
            let numbers = line.split(separator: " ").compactMap { Double($0) }
            return numbers.count == 3 ? numbers.map { Int(min(255, max(0, $0.rounded()))) } : nil
        }
        guard rows.count == values.count else { throw ReferenceError("transicc gave \(rows.count) rows for \(values.count): \(result.standardOutput)") }
        return rows
    }

    /// Converts the TIFF at `input` from the profile at `profile` to sRGB with `tificc`, lcms2's own
    /// TIFF converter, without a precalculated table (`-c0`: every pixel in floating point).
    public static func tificc(_ input: String, profile: String, to output: String, intent: Int = 0) throws {
        let result = try CommandRunner.runProgram("/usr/bin/tificc", ["-i\(profile)", "-o*sRGB", "-t\(intent)", "-c0", input, output])
        guard result.status == 0 else { throw ReferenceError("tificc failed: \(result.standardError)") }
    }

    /// Runs a Python script with Pillow (Debian `python3-pil`), for the files ImagePipe cannot write
    /// itself (CMYK JPEG, grey PNG). Debian's own Python, which the package is for: another
    /// `python3` first on the PATH (pyenv's, a virtualenv's) has no Pillow.
    public static func python(_ script: String) throws {
        let result = try CommandRunner.runProgram("/usr/bin/python3", ["-c", script])
        guard result.status == 0 else { throw ReferenceError("python3 failed: \(result.standardError)") }
    }

    public struct ReferenceError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
