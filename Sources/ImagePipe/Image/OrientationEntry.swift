/// IFD0's orientation entry of a TIFF structure, as `ExifOrientation.orientationEntry` finds it:
/// where its value's two bytes lie (from the structure's start), its TIFF type (3 is SHORT, the
/// type the tag must have) and the value those bytes hold; nil where they lie past the data.
struct OrientationEntry: Equatable, Sendable {
    var valueOffset: Int
    var type: Int?
    var value: Int?
}
