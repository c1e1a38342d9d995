/// Options that ImageMagick, vipsthumbnail, sharp-cli and cwebp take and this command does not:
/// their settings are stages or stage parameters here. An unknown option that is one of them is
/// answered with the exact pipeline text to write instead.
enum OptionHabits {
    /// An option's name without its dashes → whether it takes a value, and the advice for it.
    private static let table: [String: (takesValue: Bool, advice: @Sendable (String) -> String)] = [
        "quality": (true, { "quality is a parameter of save: end the pipeline with '| save quality=\($0)'" }),
        "q": (true, { "quality is a parameter of save: end the pipeline with '| save quality=\($0)'" }),
        "strip": (false, { _ in "metadata is left out already: save writes only what its keep= names (keep=none by default)" }),
        "resize": (true, { "resizing is a stage: -e 'resize \(box($0, bare: "x")) fit=inside' (within the box, keeping the aspect ratio, as ImageMagick's -resize)" }),
        "thumbnail": (true, { "resizing is a stage: -e 'resize \(box($0, bare: "x")) fit=inside' (metadata is left out unless save's keep= names it)" }),
        "size": (true, { "resizing is a stage: -e 'resize \(box($0, bare: "x\($0)")) fit=inside' (within the box, keeping the aspect ratio, as vipsthumbnail's --size)" }),
        "width": (true, { "resizing is a stage: -e 'resize \($0)x'" }),
        "height": (true, { "resizing is a stage: -e 'resize x\($0)'" }),
        "auto-orient": (false, { _ in "pictures are turned by their EXIF orientation already (load auto-orient=true is the default)" }),
        "rotate": (true, { "rotation is a stage: -e 'rotate angle=\($0)' (or rotate 90, 180, 270 for exact quarter turns)" }),
        "blur": (true, { "blurring is a stage: -e 'blur SIGMA' (for ImageMagick's -blur \($0), the number after the x)" }),
        "interlace": (true, { _ in "progressive JPEG is a parameter of save: end the pipeline with '| save progressive=true'" }),
        "colorspace": (true, { _ in "gray output is a stage: -e 'grayscale'" }),
        "flip": (false, { _ in "flipping is a stage: -e 'flip' (top to bottom) or -e 'flop' (left to right)" }),
        "flop": (false, { _ in "flipping is a stage: -e 'flop' (left to right) or -e 'flip' (top to bottom)" }),
    ]

    /// ImageMagick's geometry `200` is a width, vipsthumbnail's a square: `bare` completes a bare
    /// number as each tool reads it.
    private static func box(_ geometry: String, bare: String) -> String {
        Int(geometry) == nil ? geometry : geometry + bare
    }

    /// The message for `option` (as written, with its dashes) when it is another tool's, with the
    /// argument after it as its value; nil when it is nobody's.
    static func message(for option: String, next: String?) -> String? {
        let bare = option.drop { $0 == "-" }
        let name = bare.prefix { $0 != "=" }.lowercased()
        guard let habit = table[name] else { return nil }
        let inline = bare.firstIndex(of: "=").map { String(bare[bare.index(after: $0)...]) }
        let value = habit.takesValue ? inline ?? next ?? "VALUE" : ""
        return "unknown option '\(option.prefix { $0 != "=" })': \(habit.advice(value))"
    }

    /// cwebp's and ImageMagick's `-q 80` reads here as --quiet and an input named 80: said when
    /// the number is no file.
    static func quietWithNumber(_ flag: String, next: String?) -> String? {
        guard RunCommand.quiet.declaration.names.contains(flag), let next, let number = Int(next), (0...100).contains(number), !RunCommand.exists(next) else { return nil }
        return "-q is --quiet here, and \(next) would be an input; quality is a parameter of save: end the pipeline with '| save quality=\(next)'"
    }
}
