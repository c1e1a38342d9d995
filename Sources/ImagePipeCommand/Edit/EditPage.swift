import ImagePipe

/// The editor's page: one screen, its toolbar and its help, from `editor.html` with the mode's
/// words filled in.
enum EditPage {
    static func html(mode: EditMode) -> String {
        let (title, label, help) = texts(mode)
        return EditAssets.page
            .replacing("{{title}}", with: TraceWriter.escape(title))
            .replacing("{{mode}}", with: mode.rawValue)
            .replacing("{{label}}", with: TraceWriter.escape(label))
            .replacing("{{help}}", with: TraceWriter.escape(help))
    }

    private static func texts(_ mode: EditMode) -> (title: String, label: String, help: String) {
        switch mode {
        case .avatar:
            ("avatar editor", "Avatar editor: the photo behind a circle",
             "Drag to move the photo behind the circle, pinch or scroll to zoom; it springs back so the circle stays covered. Arrows move, + and − zoom, T turns, Enter is OK, Esc is Cancel.")
        case .slice:
            ("slice picker", "Slice picker: the photo behind a square window",
             "Drag to move the photo behind the window, pinch or scroll to zoom (from cover to native pixels). Arrows move, + and − zoom, T turns, Enter is OK, Esc is Cancel.")
        case .viewer:
            ("zoomable viewer", "Zoomable viewer: the whole photo, fitted and centered",
             "Pinch or scroll to zoom, drag to scroll a zoomed photo; it stays centered where it is smaller than the screen. Arrows scroll, + and − zoom, T turns, Enter is OK, Esc is Cancel.")
        case .swipe:
            ("swipe to dismiss", "Swipe to dismiss: the screen turns about a point below it",
             "Drag sideways to turn the screen about a point half a height below it; let go past 0.33 rad (18.9°) and it is dismissed at that turn, else it springs back. Arrows turn, T turns the device, Enter is OK, Esc is Cancel.")
        }
    }
}
