/// Names people reach for from other tools (ImageMagick, sharp, Pillow, CSS), mapped to the stage
/// that does the job, so that `scale` gets "did you mean 'resize'?" where edit distance finds
/// nothing. Only stages the registry has are ever suggested.
package enum StageSynonyms {
    /// Other tools' word → the stage name here.
    package static let table: [String: String] = [
        "scale": "resize", "thumbnail": "resize", "thumb": "resize", "shrink": "resize", "downscale": "resize",
        "upscale": "resize", "size": "resize",
        "zoom": "fit", "contain": "fit",
        "grey": "grayscale", "gray": "grayscale", "greyscale": "grayscale", "gray-scale": "grayscale",
        "grey-scale": "grayscale", "monochrome": "grayscale", "colorspace": "grayscale", "colourspace": "grayscale", "desaturate": "grayscale", "bw": "grayscale",
        "mirror": "flop", "hflip": "flop", "flip-horizontal": "flop", "vflip": "flip", "flip-vertical": "flip",
        "round": "circle-crop", "avatar": "circle-crop", "circle": "circle-crop", "circular": "circle-crop",
        "pad": "extend", "border": "extend", "canvas": "letterbox",
        "cut": "crop", "clip": "crop", "cover": "slice",
        "rotate90": "rotate", "turn": "rotate", "orient": "load", "auto-orient": "load",
        "read": "load", "open": "load", "input": "load", "write": "save", "output": "save", "export": "save",
        "write-copy": "tee", "copy": "tee",
        "invert": "negate", "negative": "negate", "levels": "linear", "normalise": "normalize",
        "brightness": "modulate", "saturation": "modulate", "hue": "modulate",
        "colorize": "tint", "colourize": "tint", "binarize": "threshold", "gaussian": "blur",
        "gaussian-blur": "blur", "unsharp": "sharpen", "unsharp-mask": "sharpen", "despeckle": "median",
        "background": "flatten", "alpha": "ensure-alpha",
    ]

    /// The stage to suggest for `name`: a near spelling first (a typo), else the table's entry,
    /// when that stage exists among `stageNames`.
    package static func suggestion(for name: String, in stageNames: [String]) -> String? {
        if let close = Suggestion.closest(to: name, in: stageNames) { return close }
        guard let target = table[name.lowercased()], stageNames.contains(target) else { return nil }
        return target
    }

    /// The message for a stage name the registry does not have, pointing at the stage list.
    package static func unknownStageMessage(_ name: String, in stageNames: [String]) -> String {
        let hint = suggestion(for: name, in: stageNames).map { " (did you mean '\($0)'?)" } ?? ""
        return "unknown stage '\(name)'\(hint)"
    }
}
