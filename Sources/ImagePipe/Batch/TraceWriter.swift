
/// `--trace DIR`: the image after every stage as a PNG, and an `index.html` that shows them in
/// order with each stage's text, size and time. It observes the run without changing it: a run
/// that streams writes each stage's picture as its rows pass (side outputs, as a `tee`'s), and
/// a run of whole pictures hands each stage's picture to `record`.
public final class TraceWriter: Sendable {
    private struct Entry {
        let index: Int
        let file: String
        let text: String
        let size: Size
        let standsFor: Size?
        let milliseconds: Double
    }

    public let directory: String
    private let title: String
    private let entries = Locked<[Entry]>([])
    /// The seconds each stage of a streamed run has taken, by its number, strip after strip.
    private let streamedSeconds = Locked<[Int: Double]>([:])

    /// The file that marks a folder as a trace's, so that a later trace may write over it.
    package static let marker = ".imagepipe-trace"

    /// Takes `directory` for a run's trace before any picture: a new or empty folder, or one a
    /// trace made before (it holds `marker`). A folder of other files is refused unless
    /// `allowOverwrite`: the trace's `index.html` and `00-load.png` would replace the user's own.
    package static func claim(_ directory: String, allowOverwrite: Bool) throws {
        do { try ImageFile.makeDirectories(directory) } catch let error as ImageError {
            throw UsageError("the trace folder '\(directory)' cannot be made: \(error.reason)")
        }
        guard OutputCheck.isDirectory(directory) else { throw UsageError("the trace folder '\(directory)' is not a folder") }
        let markerPath = directory + "/" + marker
        if !BatchRunner.isRegularFile(markerPath), !allowOverwrite {
            let present = (try? ImageFile.directoryEntries(directory)) ?? []
            if !present.isEmpty {
                let shown = present.sorted().prefix(3).joined(separator: ", ") + (present.count > 3 ? ", …" : "")
                throw UsageError("the trace folder '\(directory)' holds files that are not a trace's (\(shown)); name a new or empty folder", remedy: .allowOverwrite)
            }
        }
        let note = Array("A trace of imagepipe runs: its files may be replaced by the next trace.\n".utf8)
        do { try note.withUnsafeBytes { try ImageFile.writeAtomically($0, to: markerPath) } } catch {
            throw UsageError("the trace folder '\(directory)' cannot be written in: \(error)")
        }
    }

    /// A trace into `directory` (made when missing) of a run of `title`, the input's name its
    /// page shows. Give it to `RunContext.trace`, and call `finish` once the run has ended.
    public init(directory: String, title: String) throws {
        self.directory = directory
        self.title = title
        try ImageFile.createParentDirectories(of: directory + "/index.html", within: directory.hasPrefix("/") ? "/" : ".")
    }

    /// What a picture of the trace is saved with. Fast compression: a trace is for looking at,
    /// not for keeping.
    package static let pictureOptions = SaveOptions(compression: 1)

    /// The file of the picture after stage `index` (0 the source): `03-resize.png`.
    package static func fileName(index: Int, stage: any Stage) -> String {
        (index < 10 ? "0" : "") + "\(index)-\(stage.stageSchema.name).png"
    }

    /// The whole picture after a stage, of a run that is not streamed.
    package func record(_ event: StageEvent) throws {
        let file = Self.fileName(index: event.index, stage: event.stage)
        let bytes = try event.image.encoded(as: .png, options: Self.pictureOptions)
        try bytes.withUnsafeBytes { try ImageFile.writeAtomically($0, to: directory + "/" + file) }
        add(index: event.index, stage: event.stage, group: event.group, size: event.image.size, standsFor: event.standsFor, seconds: event.seconds)
    }

    /// `record` as a run's observer.
    package var observer: (StageEvent) throws -> Void { { try self.record($0) } }

    /// A stage of a streamed run whose picture (`fileName`) its rows have written: `size`, and
    /// the seconds its strips took (`addSeconds`) unless `seconds` says.
    package func recordStreamed(index: Int, stage: any Stage, group: String?, size: Size, standsFor: Size?, seconds: Double? = nil) {
        add(index: index, stage: stage, group: group, size: size, standsFor: standsFor,
            seconds: seconds ?? streamedSeconds.withLock { $0[index] ?? 0 })
    }

    /// Time that stage `index` of a streamed run took on a strip.
    package func addSeconds(_ seconds: Double, index: Int) {
        streamedSeconds.withLock { $0[index, default: 0] += seconds }
    }

    private func add(index: Int, stage: any Stage, group: String?, size: Size, standsFor: Size?, seconds: Double) {
        // A branch's stage under its group: `{2} resize 320x`; the branch itself as one word.
        let own = stage is Branch ? "branch" : stage.text
        let text = group.map { "\($0) \(own)" } ?? own
        let entry = Entry(index: index, file: Self.fileName(index: index, stage: stage), text: text, size: size, standsFor: standsFor,
                          milliseconds: seconds * 1000)
        entries.withLock { $0.append(entry) }
    }

    /// Writes `index.html`; `failure` is shown after the last stage that ran.
    public func finish(failure: String?) throws {
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
        for (number, entry) in entries.withLock({ $0 }).sorted(by: { $0.index < $1.index }).enumerated() {
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
