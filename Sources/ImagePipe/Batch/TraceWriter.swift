
/// `--trace DIR`: the image after every stage as a PNG, and an `index.html` that shows them in
/// order with each stage's text, size and time.
package final class TraceWriter {
    private struct Entry {
        let file: String
        let text: String
        let size: Size
        let standsFor: Size?
        let milliseconds: Double
    }

    package let directory: String
    private let title: String
    private var entries: [Entry] = []

    /// The file that marks a folder as a trace's, so that a later trace may write over it.
    package static let marker = ".imagepipe-trace"

    /// Takes `directory` for a run's trace before any picture: a new or empty folder, or one a
    /// trace made before (it holds `marker`). A folder of other files is refused unless
    /// `allowOverwrite`: the trace's `index.html` and `00-load.png` would replace the user's own.
    package static func claim(_ directory: String, allowOverwrite: Bool) throws {
        do { try ImageFile.makeDirectories(directory) } catch let error as ImageError {
            throw UsageError("--trace: cannot make '\(directory)': \(error.reason)")
        }
        guard OutputCheck.isDirectory(directory) else { throw UsageError("--trace: '\(directory)' is not a folder") }
        let markerPath = directory + "/" + marker
        if !BatchRunner.isRegularFile(markerPath), !allowOverwrite {
            let present = (try? ImageFile.directoryEntries(directory)) ?? []
            if !present.isEmpty {
                let shown = present.sorted().prefix(3).joined(separator: ", ") + (present.count > 3 ? ", …" : "")
                throw UsageError("--trace: '\(directory)' holds files that are not a trace's (\(shown)); name a new or empty folder, or give --overwrite")
            }
        }
        let note = Array("A trace of imagepipe runs: its files may be replaced by the next trace.\n".utf8)
        do { try note.withUnsafeBytes { try ImageFile.writeAtomically($0, to: markerPath) } } catch {
            throw UsageError("--trace: cannot write in '\(directory)': \(error)")
        }
    }

    package init(directory: String, title: String) throws {
        self.directory = directory
        self.title = title
        try ImageFile.createParentDirectories(of: directory + "/index.html", within: directory.hasPrefix("/") ? "/" : ".")
    }

    package func record(_ event: StageEvent) throws {
        let name = event.stage.stageSchema.name
        let file = (event.index < 10 ? "0" : "") + "\(event.index)-\(name).png"
        // Fast compression: a trace is for looking at, not for keeping.
        let bytes = try event.image.encoded(as: .png, options: SaveOptions(compression: 1))
        try bytes.withUnsafeBytes { try ImageFile.writeAtomically($0, to: directory + "/" + file) }
        // A branch's stage under its group: `{2} resize 320x`; the branch itself as one word.
        let own = event.stage is Branch ? "branch" : event.stage.text
        let text = event.group.map { "\($0) \(own)" } ?? own
        entries.append(Entry(file: file, text: text, size: event.image.size, standsFor: event.standsFor,
                             milliseconds: event.seconds * 1000))
    }

    /// Writes `index.html`; `failure` is shown after the last stage that ran.
    package func finish(failure: String?) throws {
        var html = """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>imagepipe trace: \(Self.escape(title))</title>
            <style>
            body { font-family: sans-serif; background: #1e1e1e; color: #ddd; margin: 1.5em; }
            figure { display: inline-block; vertical-align: top; margin: 0 1.5em 1.5em 0; }
            img { max-width: 360px; max-height: 360px; display: block;
                  background: repeating-conic-gradient(#777 0 25%, #999 0 50%) 0 0 / 16px 16px; }
            figcaption { font-family: monospace; margin-top: .4em; }
            .error { color: #f77; font-family: monospace; }
            </style></head>
            <body><h1>\(Self.escape(title))</h1>

            """
        for (number, entry) in entries.enumerated() {
            html += """
                <figure><img src="\(entry.file)" alt="\(Self.escape(entry.text))">\
                <figcaption>\(number). \(Self.escape(entry.text))<br>\(Self.sizeText(entry)) · \(TerminalText.tenths(entry.milliseconds)) ms</figcaption></figure>

                """
        }
        if let failure { html += "<p class=\"error\">\(Self.escape(failure))</p>\n" }
        // Marks how many images loaded, for tests in a headless browser.
        html += """
            <script>
            window.addEventListener('load', () => {
              const images = Array.from(document.images);
              document.body.dataset.loaded = images.filter(i => i.complete && i.naturalWidth > 0).length;
              document.body.dataset.total = images.length;
            });
            </script>
            </body></html>

            """
        try Array(html.utf8).withUnsafeBytes { try ImageFile.writeAtomically($0, to: directory + "/index.html") }
    }

    /// `5640x3172 (decoded at 2820x1586)` after a reduced decode: the picture's size, which the
    /// next stage plans with, and the pixels that stand for it.
    private static func sizeText(_ entry: Entry) -> String {
        entry.standsFor.map { "\($0) (decoded at \(entry.size))" } ?? "\(entry.size)"
    }

    /// `DIR/index.html` of a batch: each input with a link to its own trace page, and how it
    /// ended.
    package static func writeBatchIndex(in directory: String, runs: [(input: String, folder: String, error: String?)]) throws {
        var html = """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>imagepipe trace: \(runs.count) inputs</title>
            <style>
            body { font-family: sans-serif; background: #1e1e1e; color: #ddd; margin: 1.5em; }
            a { color: #8cf; } .error { color: #f77; font-family: monospace; }
            </style></head>
            <body><h1>\(runs.count) inputs</h1><ol>

            """
        for run in runs {
            let folder = String(run.folder.dropFirst(directory.count + 1))
            html += "<li><a href=\"\(escape(folder))/index.html\">\(escape(run.input))</a>"
                + (run.error.map { " <span class=\"error\">\(escape($0))</span>" } ?? "") + "</li>\n"
        }
        html += "</ol></body></html>\n"
        try Array(html.utf8).withUnsafeBytes { try ImageFile.writeAtomically($0, to: directory + "/index.html") }
    }

    package static func escape(_ text: String) -> String {
        text.replacingAll("&", with: "&amp;").replacingAll("<", with: "&lt;").replacingAll(">", with: "&gt;").replacingAll("\"", with: "&quot;")
    }
}
