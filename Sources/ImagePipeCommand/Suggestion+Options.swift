import ImagePipe

extension Suggestion {
    /// The closest option name, compared without its leading dashes.
    static func closestOption(to option: String, in options: [String]) -> String? {
        let bare = { (name: String) in String(name.drop { $0 == "-" }) }
        guard let match = closest(to: bare(option), in: options.map(bare)) else { return nil }
        return options.first { bare($0) == match }
    }
}
