/// Output names made from the input's: `{stem}`, `{name}`, `{ext}`, `{dir}`, `{index}`; and the
/// rule that a templated output stays inside the output directory.
public enum OutputTemplate {
    public static let placeholders = ["{stem}", "{name}", "{ext}", "{dir}", "{index}"]

    /// Whether the text is a template rather than a plain file name.
    public static func isTemplate(_ text: String) -> Bool { text.utf8.contains(UInt8(ascii: "{")) }

    /// Fills in the placeholders for one input:
    /// - `{name}` the file name (`IMG_1.jpg`), `{stem}` without its last extension (`IMG_1`),
    ///   `{ext}` that extension without the dot (`jpg`); standard input (`-`) is named `stdin`;
    /// - `{dir}` the input's directory relative to the directory it was found in (`2024/may`,
    ///   or nothing for a file named directly; `{dir}/` then vanishes);
    /// - `{index}` its 1-based position among the inputs.
    public static func expand(_ template: String, input: String, inputRoot: String?, index: Int) throws(StageError) -> String {
        // Cut at the bytes `/` and `.`: a Character-wise split misses a slash or dot followed by a
        // combining mark (see PathBytes).
        // Standard input has no name: `stdin`, not `-` (which would make `--avatar.png`).
        let name = input == "-" ? "stdin" : PathBytes.lastComponent(input)
        let (stem, ext) = PathBytes.splitExtension(name)
        var dir = ""
        if let root = inputRoot, let relative = PathBytes.relative(input, below: root) {
            dir = PathBytes.components(relative).dropLast().joined(separator: "/")
        }
        var result = template.replacingAll("{dir}/", with: dir.isEmpty ? "" : dir + "/")
        for (placeholder, value) in [("{stem}", stem), ("{name}", name), ("{ext}", ext ?? ""), ("{dir}", dir.isEmpty ? "." : dir), ("{index}", String(index))] {
            result = result.replacingAll(placeholder, with: value)
        }
        let bytes = Array(result.utf8)
        if let open = bytes.firstIndex(of: UInt8(ascii: "{")), let close = bytes[open...].firstIndex(of: UInt8(ascii: "}")) {
            let unknown = String(decoding: bytes[open...close], as: UTF8.self)
            throw StageError("unknown placeholder '\(unknown)' in '\(template)'; use \(placeholders.joined(separator: ", "))")
        }
        return result
    }

    /// `path` inside `directory`: refused when absolute or when `..` would leave the directory.
    /// Components are the bytes between `/` bytes, as the kernel reads them.
    public static func place(_ path: String, in directory: String) throws(StageError) -> String {
        guard !PathBytes.isAbsolute(path) else { throw StageError("'\(path)' is outside the output directory '\(directory)'") }
        var depth = 0
        for component in path.utf8.split(separator: PathBytes.slash) {
            if component.elementsEqual("..".utf8) { depth -= 1 } else if !component.elementsEqual(".".utf8) { depth += 1 }
            if depth < 0 { throw StageError("'\(path)' is outside the output directory '\(directory)'") }
        }
        return PathBytes.join(directory, path)
    }
}

extension String {
    /// Every occurrence of `target` replaced (without Foundation), matched byte for byte: a
    /// Character-wise search misses `}` or `<` followed by a combining mark.
    package func replacingAll(_ target: String, with replacement: String) -> String {
        let needle = Array(target.utf8)
        guard !needle.isEmpty else { return self }
        let bytes = Array(utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == needle[0], bytes.count - index >= needle.count, bytes[index..<(index + needle.count)].elementsEqual(needle) {
                result += replacement.utf8
                index += needle.count
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
