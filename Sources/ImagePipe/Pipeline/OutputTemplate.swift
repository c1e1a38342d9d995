/// Output names made from the input's: `{stem}`, `{name}`, `{ext}`, `{dir}`, `{index}`; and the
/// rule that a templated output stays inside the output directory.
public enum OutputTemplate {
    public static let placeholders = ["{stem}", "{name}", "{ext}", "{dir}", "{index}"]

    /// Whether the text is a template rather than a plain file name.
    public static func isTemplate(_ text: String) -> Bool { text.contains("{") }

    /// Fills in the placeholders for one input:
    /// - `{name}` the file name (`IMG_1.jpg`), `{stem}` without its last extension (`IMG_1`),
    ///   `{ext}` that extension without the dot (`jpg`);
    /// - `{dir}` the input's directory relative to the directory it was found in (`2024/may`,
    ///   or nothing for a file named directly; `{dir}/` then vanishes);
    /// - `{index}` its 1-based position among the inputs.
    public static func expand(_ template: String, input: String, inputRoot: String?, index: Int) throws(StageError) -> String {
        let name = input.split(separator: "/").last.map(String.init) ?? input
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let stem = dot.map { String(name[..<$0]) } ?? name
        let ext = dot.map { String(name[name.index(after: $0)...]) } ?? ""
        var dir = ""
        if let root = inputRoot, input.hasPrefix(root.hasSuffix("/") ? root : root + "/") {
            let relative = input.dropFirst(root.hasSuffix("/") ? root.count : root.count + 1)
            dir = relative.split(separator: "/").dropLast().joined(separator: "/")
        }
        var result = template.replacingAll("{dir}/", with: dir.isEmpty ? "" : dir + "/")
        for (placeholder, value) in [("{stem}", stem), ("{name}", name), ("{ext}", ext), ("{dir}", dir.isEmpty ? "." : dir), ("{index}", String(index))] {
            result = result.replacingAll(placeholder, with: value)
        }
        if let open = result.firstIndex(of: "{"), let close = result[open...].firstIndex(of: "}") {
            throw StageError("unknown placeholder '\(result[open...close])' in '\(template)'; use \(placeholders.joined(separator: ", "))")
        }
        return result
    }

    /// `path` inside `directory`: refused when absolute or when `..` would leave the directory.
    public static func place(_ path: String, in directory: String) throws(StageError) -> String {
        guard !path.hasPrefix("/") else { throw StageError("'\(path)' is outside the output directory '\(directory)'") }
        var depth = 0
        for component in path.split(separator: "/") {
            if component == ".." { depth -= 1 } else if component != "." { depth += 1 }
            if depth < 0 { throw StageError("'\(path)' is outside the output directory '\(directory)'") }
        }
        return directory.hasSuffix("/") ? directory + path : directory + "/" + path
    }
}

extension String {
    /// Every occurrence of `target` replaced (without Foundation).
    package func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
