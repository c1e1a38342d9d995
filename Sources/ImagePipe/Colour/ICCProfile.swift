import CLCMS2

/// An ICC profile opened with Little CMS: what it describes and its name.
public final class ICCProfile: @unchecked Sendable {
    /// The color spaces pictures come in.
    public enum Space: String, Sendable {
        case rgb, grey, cmyk, other
    }

    /// The largest profile read: 4 MiB. Real profiles are under 1 MB (sRGB 3 KB, a camera's or
    /// a display's a few KB, the large printer profiles with 16-bit tables 1–3 MB); Firefox's
    /// qcms refuses larger ones too. A larger one is dropped with a warning, the pixels taken
    /// as sRGB, as a profile Little CMS cannot read is: the picture is still shown, as a
    /// browser or libvips shows it. A cap, since Little CMS copies and parses a profile whole
    /// (35 MB of profile made a 34 KB PNG take 230 MB).
    public static let maxBytes = 4 << 20

    let handle: cmsHPROFILE
    /// The profile as stored in a file.
    public let bytes: [UInt8]
    public let space: Space
    /// The profile's own description ("Display P3", "sRGB IEC61966-2.1"); empty when it has none.
    public let name: String

    private init(handle: cmsHPROFILE, bytes: [UInt8]) {
        self.handle = handle
        self.bytes = bytes
        switch cmsGetColorSpace(handle) {
        case cmsSigRgbData: space = .rgb
        case cmsSigGrayData: space = .grey
        case cmsSigCmykData: space = .cmyk
        default: space = .other
        }
        var text = [CChar](repeating: 0, count: 256)
        let count = cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", &text, UInt32(text.count))
        name = count > 0 ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    }

    deinit { cmsCloseProfile(handle) }

    /// Opens a profile from its bytes; throws when Little CMS cannot read it.
    public convenience init(bytes: [UInt8]) throws(ImageError) {
        ICCProfile.silenceLittleCMS
        guard bytes.count <= ICCProfile.maxBytes else {
            throw ImageError(.tooLarge, reason: "its ICC profile is \(bytes.count) bytes, more than the largest read, \(ICCProfile.maxBytes)")
        }
        guard bytes.count >= 128, let handle = bytes.withUnsafeBytes({ cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) }) else {
            throw ImageError(.corrupt, reason: "its ICC profile cannot be read (\(bytes.count) bytes)")
        }
        self.init(handle: handle, bytes: bytes)
    }

    /// The opened profile of these bytes, from a small cache: a batch of phone photos carries one
    /// profile, opened once. nil when Little CMS cannot read it.
    package static func cached(_ bytes: [UInt8]) -> ICCProfile? {
        if let found = cache.withLock({ $0[bytes] }) { return found }
        guard let profile = try? ICCProfile(bytes: bytes) else { return nil }
        return cache.withLock { cache in
            if cache.count >= 16 { cache.removeAll() }
            if let raced = cache[bytes] { return raced }
            cache[bytes] = profile
            return profile
        }
    }

    private static let cache = Locked<[[UInt8]: ICCProfile]>([:])

    /// Little CMS's built-in sRGB (IEC 61966-2.1 primaries and curve, D65), the conversion target.
    public static let sRGB: ICCProfile = {
        silenceLittleCMS
        let handle = cmsCreate_sRGBProfile()!
        // Version 4 (Little CMS's own): its parametric curves make a profile of a few hundred
        // bytes, where version 2's sampled curves take 9 KB; browsers and viewers read v4.
        var length: UInt32 = 0
        cmsSaveProfileToMem(handle, nil, &length)
        var bytes = [UInt8](repeating: 0, count: Int(length))
        cmsSaveProfileToMem(handle, &bytes, &length)
        return ICCProfile(handle: handle, bytes: bytes)
    }()

    /// Little CMS's CIELab (version 4, D50 white, as ICC's profile connection space and TIFF's
    /// CIELab photometric take it), the source of a Lab TIFF's conversion to sRGB.
    static let labD50: ICCProfile = {
        silenceLittleCMS
        let handle = cmsCreateLab4Profile(nil)!
        var length: UInt32 = 0
        cmsSaveProfileToMem(handle, nil, &length)
        var bytes = [UInt8](repeating: 0, count: Int(length))
        cmsSaveProfileToMem(handle, &bytes, &length)
        return ICCProfile(handle: handle, bytes: bytes)
    }()

    /// Whether these bytes describe sRGB as well as Little CMS's own: by the profile's name, as
    /// libvips and browsers recognise the common sRGB profiles (converting through them would
    /// only add rounding).
    public var isSRGB: Bool {
        space == .rgb && (bytes == ICCProfile.sRGB.bytes || name.hasPrefix("sRGB IEC61966-2") || name == "sRGB built-in" || name == "sRGB")
    }

    /// Little CMS prints its errors to nowhere by default in a library, but a bad profile is
    /// reported by the caller with its own words: the handler only swallows them.
    private static let silenceLittleCMS: Void = {
        cmsSetLogErrorHandler { _, _, _ in }
    }()
}
