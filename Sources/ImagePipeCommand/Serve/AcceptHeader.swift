/// A request's `Accept` header read as RFC 9110 §12.5.1 has it: a list of media ranges
/// (`type/subtype`, `type/*`, `*/*`), each with an optional weight `q` from 0 to 1; `q=0`
/// means "not acceptable". Types are compared whole and without regard to case, so
/// `image/webpx` is not `image/webp`; parameters other than `q` (and extensions after it) are
/// passed over, as they say nothing of the formats served here.
struct AcceptHeader: Sendable, Equatable {
    struct Range: Sendable, Equatable {
        /// Lowercased; `*` for any.
        let type: String
        let subtype: String
        let weight: Double
    }

    let ranges: [Range]
    /// No header at all: RFC 9110 takes it as any type acceptable.
    let isAbsent: Bool

    init(_ text: String?) {
        guard let text else {
            ranges = []
            isAbsent = true
            return
        }
        isAbsent = false
        ranges = text.split(separator: ",").compactMap(Self.range)
    }

    /// One element of the list; nil for an empty or malformed one (a bad weight, no `/`),
    /// which is passed over as the RFC's grammar does not match it.
    private static func range(_ element: Substring) -> Range? {
        let parts = element.split(separator: ";", omittingEmptySubsequences: false).map(Self.trimmed)
        let media = parts[0].lowercased()
        let halves = media.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, !halves[0].isEmpty, !halves[1].isEmpty, halves[0] != "*" || halves[1] == "*" else { return nil }
        var weight = 1.0
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, Self.trimmed(pair[0]).lowercased() == "q" else { continue }
            guard let value = weightValue(Self.trimmed(pair[1])) else { return nil }
            weight = value
            // What follows the weight are accept-extensions, not media type parameters.
            break
        }
        return Range(type: String(halves[0]), subtype: String(halves[1]), weight: weight)
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`.
    private static func weightValue(_ text: String) -> Double? {
        let characters = Array(text)
        guard let first = characters.first, first == "0" || first == "1" else { return nil }
        if characters.count == 1 { return first == "1" ? 1 : 0 }
        guard characters[1] == ".", characters.count <= 5, characters.dropFirst(2).allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        guard let value = Double(text), value <= 1 else { return nil }
        return value
    }

    /// The weight the client gives `mediaType` (`image/webp`): that of the most specific range
    /// matching it (the type itself, else `image/*`, else `*/*`), 0 when none does. With
    /// `wildcards` false only the type named outright counts. No header at all accepts anything
    /// a wildcard would.
    func quality(of mediaType: String, wildcards: Bool) -> Double {
        if isAbsent { return wildcards ? 1 : 0 }
        let halves = mediaType.lowercased().split(separator: "/")
        let type = String(halves[0]), subtype = String(halves[1])
        if let exact = ranges.first(where: { $0.type == type && $0.subtype == subtype }) { return exact.weight }
        guard wildcards else { return 0 }
        if let family = ranges.first(where: { $0.type == type && $0.subtype == "*" }) { return family.weight }
        if let any = ranges.first(where: { $0.type == "*" && $0.subtype == "*" }) { return any.weight }
        return 0
    }

    /// `text` without the spaces and tabs (HTTP's whitespace) around it.
    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
