/// The screens `imagepipe edit` shows, one per seed, and the stages each one's "OK" writes.
enum EditMode: String, CaseIterable, Sendable {
    /// Seed 000: the QQ-style avatar editor; "OK" gives `circle-crop`.
    case avatar
    /// Seed 001: Project NP's slice picker; "OK" gives `slice`.
    case slice
    /// Seed 004: the zoomable viewer; "OK" gives `fit | letterbox`.
    case viewer
    /// Seed 003: the swipe-to-dismiss turn; "OK" gives `fit | letterbox | rotate`.
    case swipe
}
