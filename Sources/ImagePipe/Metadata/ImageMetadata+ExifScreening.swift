/// An EXIF block is looked at as the file is read, so that a block no reader can parse is told
/// of with the input's name (a decode warning: `in.jpg: the EXIF block … is ignored`) and is
/// never carried on to a `save keep=exif`, where the warning could only name the output.
extension ImageMetadata {
    /// `self` without an EXIF block that is not TIFF-structured (`ExifBlock.isWellFormed`), with
    /// a decode warning saying so.
    func screeningEXIF() -> ImageMetadata {
        guard let exif, !ExifBlock(exif).isWellFormed else { return self }
        var screened = self
        screened.exif = nil
        screened.decodeWarnings.append("the EXIF block (\(exif.count) bytes) is not valid TIFF-structured data, so it is ignored")
        return screened
    }
}
