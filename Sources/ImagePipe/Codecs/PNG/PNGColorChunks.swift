import CLCMS2

/// A PNG's color chunks other than an ICC profile, turned into the profile they describe, so that
/// the picture is converted to sRGB as a browser shows it. The PNG 3 order decides which chunk
/// counts: `cICP`, then `iCCP`, then `sRGB`, then `gAMA` with `cHRM` (or with sRGB's primaries
/// when there is no `cHRM`). Little CMS builds the profile from primaries, white point and curve.
enum PNGColorChunks {
    typealias Chromaticity = (x: Double, y: Double)

    static let d65: Chromaticity = (0.3127, 0.3290)
    static let bt709: [Chromaticity] = [(0.640, 0.330), (0.300, 0.600), (0.150, 0.060)]
    static let displayP3: [Chromaticity] = [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]
    static let bt2020: [Chromaticity] = [(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)]

    /// A transfer curve: a pure power (the exponent that turns stored values into linear light),
    /// or a parametric curve of Little CMS's type 4 (sRGB's and BT.709's shape).
    enum Curve {
        case power(Double)
        case parametric([Double])

        static let sRGB = Curve.parametric([2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
        /// BT.709's camera curve inverted, as browsers take transfer 1, 6, 14 and 15.
        static let bt709 = Curve.parametric([1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081])
    }

    /// The profile a `cICP` chunk (colour primaries, transfer, matrix, full range) describes;
    /// nil for sRGB itself, and for what is not supported here (PQ and HLG, which need tone
    /// mapping; a matrix other than RGB's 0).
    static func profile(cicp data: [UInt8]) -> [UInt8]? {
        guard data.count == 4, data[2] == 0 else { return nil }
        let primaries: [Chromaticity], name: String
        switch data[0] {
        case 1: (primaries, name) = (bt709, "BT.709")
        case 9: (primaries, name) = (bt2020, "BT.2020")
        case 12: (primaries, name) = (displayP3, "Display P3")
        default: return nil
        }
        let curve: Curve
        switch data[1] {
        case 13: curve = .sRGB
        case 1, 6, 14, 15: curve = .bt709
        case 8: curve = .power(1)
        case 4: curve = .power(2.2)
        case 5: curve = .power(2.8)
        default: return nil
        }
        if data[0] == 1, data[1] == 13 { return nil }
        return profile(white: d65, primaries: primaries, curve: curve, name: "\(name) (PNG cICP \(data[0])/\(data[1]))")
    }

    /// The profile a `gAMA` chunk (and a `cHRM` chunk, when there is one) describes; nil when
    /// they say sRGB in the old way (`sRGBLike`), so the pixels are left as they are.
    static func profile(gama: [UInt8], chrm: [UInt8]?) -> [UInt8]? {
        guard gama.count == 4 else { return nil }
        func number(_ bytes: [UInt8], _ at: Int) -> Double { Double(bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }) / 100_000 }
        let gamma = number(gama, 0)
        guard gamma > 0.01, gamma < 100 else { return nil }
        var white = d65, primaries = bt709
        if let chrm, chrm.count == 32 {
            let values = (0..<8).map { number(chrm, $0 * 4) }
            white = (values[0], values[1])
            primaries = [(values[2], values[3]), (values[4], values[5]), (values[6], values[7])]
            guard ([white] + primaries).allSatisfy({ $0.x > 0 && $0.y > 0 && $0.x + $0.y <= 1 }) else { return nil }
        }
        if sRGBLike(gamma: gamma, white: white, primaries: primaries) { return nil }
        return profile(white: white, primaries: primaries, curve: .power(1 / gamma),
                       name: "PNG gAMA \(NumberFormat.short(gamma))\(chrm == nil ? "" : " with cHRM")")
    }

    /// Whether a `gAMA` of about 1/2.2 with sRGB's primaries and white (given by `cHRM` or by
    /// its absence) means sRGB: ImageMagick and libpng's `png_set_sRGB_gAMA_and_cHRM` write
    /// exactly that beside (or instead of) an `sRGB` chunk, and a 2.2 power curve taken at its
    /// word moves the shadows by up to 9 levels from what was meant. The gamma's tolerance is
    /// libpng 1.6's test for "not significantly different from sRGB" (gamma × 2.2 within 5% of 1),
    /// which is also where Chromium stops converting a lone `gAMA` (0.44–0.47 are left as they
    /// are, 0.43 and 0.48 converted); the chromaticities' is libpng's when it checks a `cHRM`
    /// against an `sRGB` chunk (±0.001 each).
    static func sRGBLike(gamma: Double, white: Chromaticity, primaries: [Chromaticity]) -> Bool {
        func near(_ a: Chromaticity, _ b: Chromaticity) -> Bool { abs(a.x - b.x) <= 0.001 && abs(a.y - b.y) <= 0.001 }
        return abs(gamma * 2.2 - 1) <= 0.05 && near(white, d65) && zip(primaries, bt709).allSatisfy(near)
    }

    /// Little CMS's RGB profile of these primaries, white point and curve, as ICC bytes.
    static func profile(white: Chromaticity, primaries: [Chromaticity], curve: Curve, name: String) -> [UInt8]? {
        let tone: OpaquePointer?
        switch curve {
        case let .power(exponent): tone = cmsBuildGamma(nil, exponent)
        case let .parametric(parameters): tone = parameters.withUnsafeBufferPointer { cmsBuildParametricToneCurve(nil, 4, $0.baseAddress) }
        }
        guard let tone else { return nil }
        defer { cmsFreeToneCurve(tone) }
        var whitePoint = cmsCIExyY(x: white.x, y: white.y, Y: 1)
        var triple = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: primaries[0].x, y: primaries[0].y, Y: 1),
                                     Green: cmsCIExyY(x: primaries[1].x, y: primaries[1].y, Y: 1),
                                     Blue: cmsCIExyY(x: primaries[2].x, y: primaries[2].y, Y: 1))
        var curves: [OpaquePointer?] = [tone, tone, tone]
        guard let handle = curves.withUnsafeMutableBufferPointer({ cmsCreateRGBProfile(&whitePoint, &triple, $0.baseAddress) }) else { return nil }
        defer { cmsCloseProfile(handle) }
        if let description = cmsMLUalloc(nil, 1) {
            defer { cmsMLUfree(description) }
            cmsMLUsetASCII(description, "en", "US", name)
            cmsWriteTag(handle, cmsSigProfileDescriptionTag, UnsafeRawPointer(description))
        }
        var length: UInt32 = 0
        guard cmsSaveProfileToMem(handle, nil, &length) != 0, length > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        guard cmsSaveProfileToMem(handle, &bytes, &length) != 0 else { return nil }
        return bytes
    }
}
