/// The rotation of an IIIF Image API request: `!` mirrors the picture left to right first, then
/// it turns clockwise by 0 to 360 degrees.
struct IIIFRotation: Equatable, Sendable {
    let mirrored: Bool
    let degrees: Double

    init(mirrored: Bool = false, degrees: Double = 0) {
        self.mirrored = mirrored
        self.degrees = degrees
    }

    init(parsing text: String) throws(ServeError) {
        mirrored = text.hasPrefix("!")
        guard let degrees = IIIFNumber.decimal(mirrored ? text.dropFirst() : Substring(text)), degrees <= 360 else {
            throw ServeError(400, "rotation '\(text)' is not a number of degrees from 0 to 360, perhaps after ! (mirrored)")
        }
        self.degrees = degrees
    }

    /// The turn within one turn: 360 is 0.
    var turn: Double { degrees == 360 ? 0 : degrees }

    /// Whether the turn moves pixels without resampling them (a multiple of 90°).
    var isQuarterTurns: Bool { turn.truncatingRemainder(dividingBy: 90) == 0 }
}
