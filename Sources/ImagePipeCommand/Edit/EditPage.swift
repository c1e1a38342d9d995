/// The editor's page: one screen, its toolbar and its help, in plain HTML. Its script and style
/// are served beside it (`editor.js`, `editor.css`) so the page's Content-Security-Policy can
/// forbid inline code.
enum EditPage {
    static func html(mode: EditMode) -> String {
        let (title, label, help) = texts(mode)
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1, user-scalable=no">
            <title>imagepipe edit — \(title)</title>
            <link rel="stylesheet" href="editor.css">
            <script src="editor.js" defer></script>
            </head>
            <body class="mode-\(mode.rawValue)">
            <main id="stage">
              <div id="editor" class="editor" role="application" tabindex="0" data-settled="false" data-mode="\(mode.rawValue)"
                   aria-roledescription="\(title)" aria-label="\(label)" aria-describedby="help">
                <div id="view" class="view">
                  <img id="picture" class="picture" src="preview" alt="" draggable="false">
                </div>
                <svg id="overlay" class="overlay" aria-hidden="true" xmlns="http://www.w3.org/2000/svg">
                  <path id="mask" class="mask" fill-rule="evenodd"></path>
                  <circle id="ring" class="ring"></circle>
                  <rect id="frame" class="frame"></rect>
                </svg>
                <p id="caption" class="caption"></p>
                <div class="toolbar" role="toolbar" aria-label="Editor actions">
                  <button id="cancel" type="button" aria-label="Cancel: write nothing and close the editor" aria-keyshortcuts="Escape">Cancel</button>
                  <button id="turn" type="button" aria-label="Turn the screen between portrait and landscape" aria-keyshortcuts="T">Turn</button>
                  <button id="ok" type="button" class="primary" aria-label="OK: write the picture and print its pipeline line" aria-keyshortcuts="Enter">OK</button>
                </div>
              </div>
              <p id="help" class="help">\(help)</p>
              <p id="status" class="status" role="status" aria-live="polite"></p>
            </main>
            </body>
            </html>
            """
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
