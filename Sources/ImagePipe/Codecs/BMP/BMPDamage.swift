/// What is wrong with a BMP's data, refused once the decode is done if the load's `fail=`
/// level refuses it (an index past the palette is found pixel by pixel, and reported once).
struct BMPDamage {
    let options: LoadOptions
    let path: String?
    /// The worst damage found, with its level.
    private(set) var found: (level: FailOn, reason: String)?

    init(options: LoadOptions, path: String?) {
        self.options = options
        self.path = path
    }

    /// Records damage at `level`; true when the decode can stop here (the load refuses it).
    mutating func note(_ level: FailOn, _ reason: String) -> Bool {
        if found == nil || found!.level < level { found = (level, reason) }
        return options.refuses(level)
    }

    func check() throws(ImageError) {
        if let found, options.refuses(found.level) { throw ImageError(.corrupt, path: path, reason: found.reason) }
    }
}
