/// Parameter names and values that people bring from ImageMagick, libvips, sharp and Pillow.
///
/// A value with one clear meaning here is taken as written (`format=jpg` is `format=jpeg`). A
/// parameter name from another tool is answered with the exact replacement (`q=80` gets "write
/// quality=80") rather than taken, so that each setting keeps one spelling in pipelines, in their
/// canonical text and in the docs.
package enum ParameterHabits {
    /// Another tool's word for a parameter here, and how its value translates (nil: no
    /// translation for that value, so only the name is pointed out).
    struct Rename: Sendable {
        let parameter: String
        let value: @Sendable (String) -> String?
    }

    /// Other values of a choice, by parameter name: the choice's own value for each.
    static let valueSynonyms: [String: [String: String]] = [
        "format": ["jpg": "jpeg", "jpe": "jpeg", "tif": "tiff"],
        "kernel": ["lanczos": "lanczos3", "bilinear": "linear", "bicubic": "cubic", "catmull-rom": "cubic", "point": "nearest"],
        // How lossless JPEG work is often asked for: never re-encode, or require it.
        "lossless": ["never": "false", "require": "true"],
        // libvips' fail=true/false, from before its fail_on levels.
        "fail": ["true": "error", "false": "none"],
    ]

    private static let same: @Sendable (String) -> String? = { $0 }
    private static let isTrue: @Sendable (String) -> Bool? = {
        switch $0.lowercased() {
        case "true", "1", "yes", "on": true
        case "false", "0", "no", "off": false
        default: nil
        }
    }

    /// ImageMagick's and sharp's gravity names → positions here.
    private static let gravities = Anchor.compassNames.merging(
        ["center": "center", "smart": "attention", "attention": "attention", "entropy": "entropy"]) { name, _ in name }

    static let renames: [String: Rename] = [
        "q": Rename(parameter: "quality", value: same),
        "qual": Rename(parameter: "quality", value: same),
        "strip": Rename(parameter: "keep") { isTrue($0).map { $0 ? "none" : "all" } },
        "interlace": Rename(parameter: "progressive") { value in
            isTrue(value).map(String.init) ?? (["none", "no"].contains(value.lowercased()) ? "false" : "true")
        },
        "interlaced": Rename(parameter: "progressive") { isTrue($0).map(String.init) },
        "gravity": Rename(parameter: "position") { gravities[$0.lowercased().filter { $0 != "-" }] },
        "crop": Rename(parameter: "position") { gravities[$0.lowercased()] },
        "filter": Rename(parameter: "kernel") { value in
            let lower = value.lowercased()
            return valueSynonyms["kernel"]?[lower] ?? lower
        },
        "subsampling": Rename(parameter: "chroma") { String($0.filter { $0 != ":" }) },
        "chroma-subsampling": Rename(parameter: "chroma") { String($0.filter { $0 != ":" }) },
        "sampling-factor": Rename(parameter: "chroma") { ["4:2:0": "420", "2x2": "420", "4:2:2": "422", "2x1": "422", "4:4:4": "444", "1x1": "444"][$0] },
        "without-enlargement": Rename(parameter: "upscale") { isTrue($0).map { String(!$0) } },
        "compression-level": Rename(parameter: "compression", value: same),
        "level": Rename(parameter: "compression", value: same),
        "width": Rename(parameter: "size") { "\($0)x" },
        "w": Rename(parameter: "size") { "\($0)x" },
        "height": Rename(parameter: "size") { "x\($0)" },
        "h": Rename(parameter: "size") { "x\($0)" },
    ]

    /// The value of a choice that `value` stands for, when it is another spelling of one: a
    /// synonym, or a comma list of choices in another order (`keep=icc,exif` is `exif,icc`,
    /// `exif,icc,xmp` is `all`, and `-gps,icc,exif` is `exif,icc,-gps`).
    static func choice(_ value: String, for parameter: String, among options: [String]) -> String? {
        guard !options.contains(value) else { return nil }
        if let synonym = valueSynonyms[parameter]?[value.lowercased()], options.contains(synonym) { return synonym }
        // A choice of the nine anchors (composite's and text's gravity) reads positions as anchors do.
        if Anchor.named.allSatisfy({ options.contains($0.name) }), let anchor = Anchor.name(for: value) { return anchor }
        let words = value.lowercased().split(separator: ",").map(String.init)
        // Exclusions (`-gps`) come last, after the choices they narrow.
        let exclusions = words.filter { $0.hasPrefix("-") }, parts = words.filter { !$0.hasPrefix("-") }
        let tail = exclusions.sorted().map { "," + $0 }.joined()
        let single = options.filter { !$0.contains(",") }
        guard !parts.isEmpty, words.count > 1, Set(words).count == words.count, parts.allSatisfy(single.contains) else { return nil }
        let ordered = single.filter(parts.contains)
        if options.contains(ordered.joined(separator: ",") + tail) { return ordered.joined(separator: ",") + tail }
        // Every single choice but none and all: the whole set.
        if options.contains("all" + tail), Set(ordered) == Set(single.filter { $0 != "none" && $0 != "all" }) { return "all" + tail }
        return nil
    }

    /// What to write instead of `key=value` among a stage's `parameters`, when `key` is another
    /// tool's name for one of them: `quality=80`, or just `quality` when the value has no
    /// translation.
    package static func replacement(forKey key: String, value: String, among parameters: [String]) -> String? {
        guard let rename = renames[key.lowercased()], parameters.contains(rename.parameter) else { return nil }
        guard let translated = rename.value(value) else { return rename.parameter }
        return "\(rename.parameter)=\(translated)"
    }

    /// Parameters an ImageMagick argument stands for, by name, with their values as text.
    package typealias Reading = [(name: String, value: String)]

    /// ImageMagick's resize flags on a size (`640x480>`): the size without its flag and what the
    /// flag says in parameters: `>` shrinks only a picture larger than the box, `<` enlarges
    /// only one smaller, each fitting inside it; `!` stretches to the box; `^` covers it.
    static func geometryFlag(_ value: String) -> (size: String, reading: Reading)? {
        guard let flag = value.last, value.count > 1 else { return nil }
        let size = String(value.dropLast())
        switch flag {
        case ">": return (size, [("fit", "inside"), ("upscale", "false")])
        case "<": return (size, [("fit", "inside"), ("downscale", "false")])
        case "!": return (size, [("fit", "fill")])
        case "^": return (size, [("fit", "outside")])
        default: return nil
        }
    }

    /// ImageMagick's argument to a stage that takes no positional one, read as that stage's
    /// parameters: `modulate 110,140,120` (brightness, saturation and hue in percent, 100 =
    /// unchanged; hue 200 is half a turn) and `sharpen 0x1+1.5+0.02` (`-unsharp`'s radius,
    /// sigma, amount and threshold as a fraction of the range). nil when `value` is not in
    /// that form; an error naming the exact parameters when it is, but does not map cleanly.
    static func positionalReading(_ value: String, stage: String) throws(ValueError) -> Reading? {
        func number(_ text: Substring) -> Double? { DecimalNumber.parse(text).flatMap { $0.isFinite ? $0 : nil } }
        switch stage {
        case "modulate":
            let parts = value.split(separator: ",", omittingEmptySubsequences: false)
            guard (1...3).contains(parts.count), !value.contains("="), case let numbers = parts.compactMap(number), numbers.count == parts.count else { return nil }
            guard numbers.count > 1 else {
                // One number may be ImageMagick's percent or sharp's factor.
                throw ValueError("\(value) is ambiguous: ImageMagick's -modulate \(value) (percent) is brightness=\(NumberFormat.text(numbers[0] / 100)) here, a factor of \(value) is brightness=\(value)")
            }
            let names = ["brightness", "saturation", "hue"]
            return zip(names, numbers).map { name, percent in
                (name, name == "hue" ? "\(NumberFormat.text((percent - 100) * 180 / 100))deg" : NumberFormat.text(percent / 100))
            }
        case "sharpen":
            let radiusAndRest = value.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard radiusAndRest.count == 2, let radius = number(radiusAndRest[0]) else { return nil }
            let parts = radiusAndRest[1].split(separator: "+", omittingEmptySubsequences: false)
            guard (1...3).contains(parts.count), case let numbers = parts.compactMap(number), numbers.count == parts.count else { return nil }
            var reading: Reading = [("sigma", NumberFormat.text(numbers[0]))]
            if numbers.count > 1 { reading.append(("amount", NumberFormat.text(numbers[1]))) }
            if numbers.count > 2 { reading.append(("threshold", NumberFormat.text((numbers[2] * 255 * 1000).rounded() / 1000))) }
            guard radius == 0 else {
                let exact = "sharpen " + reading.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
                throw ValueError("ImageMagick's radius \(NumberFormat.text(radius)) has no parameter here (the blur reaches as far as its sigma needs, as ImageMagick's radius 0 does): write \(exact)")
            }
            return reading
        default:
            return nil
        }
    }
}
