import ImagePipe

/// imgproxy's processing options, the subset served here, written as the pipeline text they
/// mean, so that addresses made for imgproxy work: `rs`/`resize`, `w`/`width`, `h`/`height`,
/// `g`/`gravity` (with `sm`, smart, as `position=attention`), `q`/`quality`, `f`/`format`/`ext`,
/// `bl`/`blur`, `sh`/`sharpen`, `ar`/`auto_rotate`, `pd`/`padding`, `el`/`enlarge`, `c`/`crop`.
struct ImgproxyOptions {
    private var resizing = "fit"
    private var width = 0
    private var height = 0
    private var enlarge = false
    private var gravity = "ce"
    private var quality: Int?
    private(set) var format: ImageFormat?
    private var blur: Double?
    private var sharpen: Double?
    private var padding: [Int]?
    private var autoRotate = true
    /// `c:W:H:G`, the area cut before resizing: each side in pixels (0 for the whole side, below 1
    /// a fraction of it), and its own gravity (else `g`'s).
    private var crop: (width: Double, height: Double, gravity: String?)?

    /// imgproxy's gravity names as `position=` words.
    private static let gravities = ["no": "top", "so": "bottom", "ea": "right", "we": "left", "noea": "top-right", "nowe": "top-left",
                                    "soea": "bottom-right", "sowe": "bottom-left", "ce": "center", "sm": "attention"]

    init(_ segments: [String]) throws(ServeError) {
        for segment in segments {
            let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            let name = parts[0], arguments = Array(parts.dropFirst())
            func number(_ index: Int) throws(ServeError) -> Int? {
                guard index < arguments.count, !arguments[index].isEmpty else { return nil }
                guard let value = Int(arguments[index]), (0...100_000).contains(value) else {
                    throw ServeError(400, "imgproxy option '\(segment)': '\(arguments[index])' is not a whole number from 0 to 100000")
                }
                return value
            }
            func decimal(_ index: Int, upTo most: Double = 1000) throws(ServeError) -> Double {
                guard index < arguments.count, let value = Double(arguments[index]), value.isFinite, value >= 0, value <= most else {
                    throw ServeError(400, "imgproxy option '\(segment)' needs a number from 0 to \(NumberFormat.short(most))")
                }
                return value
            }
            func flag(_ index: Int) -> Bool? {
                guard index < arguments.count else { return nil }
                return ["1", "t", "true"].contains(arguments[index])
            }
            switch name {
            case "rs", "resize", "rt", "resizing_type":
                if name == "rt" || name == "resizing_type" { resizing = arguments.first ?? resizing; continue }
                if let type = arguments.first, !type.isEmpty { resizing = type }
                width = try number(1) ?? width
                height = try number(2) ?? height
                enlarge = flag(3) ?? enlarge
            case "s", "size":
                width = try number(0) ?? width
                height = try number(1) ?? height
                enlarge = flag(2) ?? enlarge
            case "w", "width": width = try number(0) ?? 0
            case "h", "height": height = try number(0) ?? 0
            case "el", "enlarge": enlarge = flag(0) ?? false
            case "g", "gravity":
                guard let type = arguments.first, Self.gravities[type] != nil else {
                    throw ServeError(400, "imgproxy option '\(segment)': gravity is one of \(Self.gravities.keys.sorted().joined(separator: ", "))")
                }
                gravity = type
            case "q", "quality":
                guard let value = try number(0), (1...100).contains(value) else { throw ServeError(400, "imgproxy option '\(segment)': quality is 1 to 100") }
                quality = value
            case "f", "format", "ext":
                format = try ServedFormat(named: arguments.first ?? "", in: "imgproxy option '\(segment)'").format
            case "c", "crop":
                let gravity = arguments.count > 2 && !arguments[2].isEmpty ? arguments[2] : nil
                if let gravity, Self.gravities[gravity] == nil {
                    throw ServeError(400, "imgproxy option '\(segment)': gravity is one of \(Self.gravities.keys.sorted().joined(separator: ", "))")
                }
                crop = (try decimal(0, upTo: 100_000), try decimal(1, upTo: 100_000), gravity)
            case "bl", "blur": blur = try decimal(0)
            case "sh", "sharpen": sharpen = try decimal(0)
            case "ar", "auto_rotate": autoRotate = flag(0) ?? true
            case "pd", "padding":
                // CSS's shorthand: top, right (= top), bottom (= top), left (= right).
                let top = try number(0) ?? 0, right = try number(1) ?? top, bottom = try number(2) ?? top, left = try number(3) ?? right
                padding = [top, right, bottom, left]
            default:
                throw ServeError(400, "imgproxy option '\(name)' is not served; served: rs, s, w, h, el, g, c, q, f, bl, sh, ar, pd")
            }
        }
        guard ["fit", "fill", "fill-down", "force", "auto"].contains(resizing) else {
            throw ServeError(400, "imgproxy resizing type '\(resizing)' is not one of fit, fill, fill-down, force, auto")
        }
    }

    /// The pipeline text the options mean.
    var pipeline: String {
        var stages: [String] = []
        if !autoRotate { stages.append("load auto-orient=false") }
        if let crop, crop.width > 0 || crop.height > 0 {
            // 0 is the whole side, a value below 1 a fraction of it, else pixels.
            func side(_ value: Double) -> String {
                value == 0 ? "100%" : value < 1 ? "\(NumberFormat.short(value * 100))%" : String(Int(value))
            }
            stages.append("crop \(side(crop.width))x\(side(crop.height)) position=\(Self.gravities[crop.gravity ?? gravity]!)")
        }
        if width > 0 || height > 0 {
            let size = (width > 0 ? String(width) : "") + "x" + (height > 0 ? String(height) : "")
            // fit keeps all of the picture inside the box; fill (and auto, read as fill) covers it
            // and cuts at the gravity; force stretches to it.
            let fit = switch resizing {
            case "force": "fill"
            case "fit": "inside"
            default: "cover"
            }
            let upscale = enlarge && resizing != "fill-down"
            stages.append("resize \(size) fit=\(fit) position=\(Self.gravities[gravity]!) upscale=\(upscale)")
        }
        if let blur, blur > 0 { stages.append("blur \(blur)") }
        if let sharpen, sharpen > 0 { stages.append("sharpen sigma=\(sharpen)") }
        if let padding, padding.contains(where: { $0 > 0 }) {
            stages.append("extend top=\(padding[0]) right=\(padding[1]) bottom=\(padding[2]) left=\(padding[3]) color=white")
        }
        if let quality { stages.append("save quality=\(quality)") }
        return stages.joined(separator: " | ")
    }
}
