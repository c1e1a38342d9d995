/// What a pyramid's files go into.
public enum PyramidContainer: String, CaseIterable, Hashable, Sendable {
    /// Files and folders beside the path (`NAME.dzi` and `NAME_files/`, or the folder `NAME/`).
    case folder
    /// One ZIP file at the path, holding the same files under `NAME/` (as libvips' dzsave),
    /// stored without compression: the tiles are compressed already.
    case zip
}
