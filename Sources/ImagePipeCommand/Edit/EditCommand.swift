import CSoup
import FitZoom
import ImagePipe
#if canImport(Glibc)
import Glibc
#endif

/// `imagepipe edit PHOTO [-o OUTPUT] [--mode …]`: the seeds' screens in a local web page, to
/// choose a crop by hand; "OK" writes what `imagepipe run` of the printed line writes.
struct EditCommand {
    let registry: Registry

    static let help = """
        usage: imagepipe edit PHOTO [-o OUTPUT] [--mode avatar|slice|viewer|swipe] [--viewport WxH]
                              [--gap N] [--size N] [--port N] [--no-browser]

        Opens one of the seeds' screens in a web browser to choose a crop by hand: drag the
        photo, pinch or use the wheel to zoom, "Turn" to swap portrait and landscape. Every
        number on the page comes from ImagePipe's own models. "OK" writes OUTPUT as
        `imagepipe run -e LINE PHOTO -o OUTPUT` would, and prints LINE on standard output;
        "Cancel", closing the page or Ctrl-C writes nothing and exits with status 1.

        The page is served on 127.0.0.1 only, at an address holding a token made for this run
        (printed on standard error); other addresses, hosts and origins are refused. The
        browser is opened at a launch page only you can read (a 0600 file in a 0700 directory
        under $XDG_RUNTIME_DIR or the temporary directory) that forwards to that address, so the
        token is in no command line; the file is removed once the page has loaded.

        Limits: request bodies of at most 64 KiB (a larger Content-Length, or a chunked body
        growing past it, is answered 413 and the connection closed unread); a connection must
        deliver a whole request within 15 s of opening or of its previous response, and take
        its response within 15 s, else it is closed; at most 32 connections are open, past that
        the oldest one waiting for a request is closed. Numbers the page sends are range-checked
        and its JSON nested at most 16 deep (400 otherwise).

        Modes:
          avatar   seed 000's circle editor; OK gives circle-crop (the default)
          slice    seed 001's slice picker; OK gives slice
          viewer   seed 004's zoomable viewer; OK gives fit | letterbox
          swipe    seed 003's swipe-to-dismiss turn; OK gives fit | letterbox | rotate

        Options:
        """ + "\n" + OptionTable.text(options, width: 18) + "\n\n" + """
        Keys on the page: arrows pan, + and - zoom, T turns, Enter is OK, Esc is Cancel.
        Exit status: 0 written (or printed), 1 cancelled or a processing error, 2 a usage error.
        """

    static let declaration = CommandDeclaration("edit", summary: "Choose a crop by hand in a browser; prints the pipeline line",
                                                help: help, options: options) { try EditCommand(registry: $0).main($1) }

    static let defaultViewport = Size(375, 667)
    static let defaultGap = 20.0

    static let output = PipelineArguments.output.describing("Where OK writes the picture; without it OK only prints the line")
    static let mode = CommandOption("--mode", value: "MODE", kind: .choices(EditMode.allCases.map(\.rawValue)), help: "The screen (default avatar)") { name in
        guard let mode = EditMode(rawValue: name) else {
            throw UsageError("unknown mode '\(name)': use one of \(EditMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return mode
    }
    static let viewport = CommandOption("--viewport", value: "WxH",
                                        help: "The screen's size in CSS pixels (default \(defaultViewport), the seeds' phone)") { try size($0) }
    static let gap = CommandOption("--gap", value: "N", help: """
        avatar: the circle's diameter is min(W, H) − N (default \(NumberFormat.text(defaultGap)):
        the seed keeps a gap, which keeps the ring clear of the screen's edge)
        """) { text in
        guard let value = Double(text), value.isFinite, value >= 0 else { throw UsageError("--gap needs a number ≥ 0, got '\(text)'") }
        return value
    }
    static let sizeOption = CommandOption("--size", value: "N", help: """
        avatar: the avatar's side in pixels (default: the circle's diameter
        in picture pixels, as circle-crop); slice: the slice's side (default \(EditModel.defaultSliceSide))
        """) { text in
        guard let value = Int(text), (1...100_000).contains(value) else { throw UsageError("--size needs a whole number from 1 to 100000, got '\(text)'") }
        return value
    }
    static let port = CommandOption("--port", value: "N", help: "Listen on this port (default: a free one)") { text in
        guard let value = UInt32(text), value <= 65535 else { throw UsageError("--port needs a port number 0…65535, got '\(text)'") }
        return value
    }
    static let noBrowser = CommandFlag("--no-browser", help: "Only print the address; do not open a browser")
    static let options: [any OptionDeclaring] = [output, mode, viewport, gap, sizeOption, port, noBrowser]

    /// The preview's longer side: enough for the screen at any zoom the page allows on a
    /// high-density display, never the full photo.
    static let previewSide = 2048

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: Self.options, help: Self.help) else { return 0 }
        guard parser.positionals.count == 1, let photo = parser.positionals.first, photo != "-" else {
            throw UsageError(parser.positionals.isEmpty ? "edit needs a photo: imagepipe edit PHOTO -o OUTPUT"
                                                        : "edit takes one photo (a file), got \(parser.positionals.count == 1 ? "standard input" : "\(parser.positionals.count)")")
        }
        let mode = try parser.value(of: Self.mode) ?? .avatar
        let viewport = try parser.value(of: Self.viewport) ?? Self.defaultViewport
        let gap = try parser.value(of: Self.gap)
        let size = try parser.value(of: Self.sizeOption)
        let port = try parser.value(of: Self.port) ?? 0
        if gap != nil, mode != .avatar { throw UsageError("--gap is for --mode avatar") }
        if size != nil, mode != .avatar, mode != .slice { throw UsageError("--size is for --mode avatar or slice") }

        var context = RunContext(input: photo, output: parser.text(of: Self.output))
        context.warn = { Console.warning($0) }
        let description = try Load().describe(in: context)
        let model = EditModel(mode: mode, imageSize: description.size, viewport: viewport, gap: gap ?? Self.defaultGap, size: size)
        try model.check()
        // The output is checked now, as `run` checks it: a name it cannot write, or the photo itself, is refused before any editing.
        let first = model.first(in: viewport)
        let probe = try compile(model.line(for: first))
        if context.output != nil {
            try OutputCheck(pipeline: probe, contexts: [context], allowOverwrite: false, describe: { RemedyWording.text(for: $0) }).run()
        }
        let preview = try Self.preview(context: context, description: description)

        return try MainActor.assumeIsolated {
            let session = try EditSession(model: model, context: context, preview: preview, orientation: description.orientation,
                                          port: port, compile: compile)
            Console.error("editor at \(session.url)")
            Console.error(context.output.map { "OK writes \($0) and prints the pipeline line; Cancel or Ctrl-C writes nothing" }
                          ?? "OK prints the pipeline line (give -o FILE to write the picture too); Cancel or Ctrl-C exits")
            if !parser.has(Self.noBrowser) {
                do throws(StageError) {
                    let page = try EditLaunchPage.write(forwardingTo: session.url)
                    session.launchPage = page
                    Self.openBrowser(page.url)
                } catch {
                    Console.error("\(error.message): open the address in a browser yourself")
                }
            }
            let status = session.run()
            session.launchPage?.remove()
            return status
        }
    }

    func compile(_ line: String) throws -> Pipeline {
        try PipelineCompiler(registry: registry).compile(line, file: "<edit>", variables: [:])
    }

    static func size(_ text: String) throws(UsageError) -> Size {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), (1...20_000).contains(width), (1...20_000).contains(height) else {
            throw UsageError("--viewport needs WxH with sides from 1 to 20000, like 375x667; got '\(text)'")
        }
        return Size(width, height)
    }

    /// The photo as the pipeline sees it (upright, EXIF orientation applied), reduced to at most
    /// `previewSide` on its longer side, decoded reduced where the JPEG allows; JPEG, or PNG
    /// when it has alpha.
    static func preview(context: RunContext, description: SourceDescription) throws -> EditSession.Preview {
        let fit = FitStage(size: Size(previewSide, previewSide), upscale: false)
        let plan = try Pipeline(transforms: [fit]).plan(in: context)
        let load = Load()
        let image = try load.load(in: context, description: description, atLeast: plan.decodeAtLeast)
        let reduced = ReducedImage(image: image, fullSize: description.size, mapping: description.mapping(toDecoded: image.size))
        let shown = reduced.isFull ? try fit.apply(to: image) : try fit.apply(to: reduced)
        let format: ImageFormat = shown.hasAlpha ? .png : .jpeg
        return EditSession.Preview(size: shown.size, bytes: try shown.encoded(as: format, options: SaveOptions(quality: 90)),
                                   contentType: format.mediaType ?? "application/octet-stream")
    }

    /// Opens `url` (the launch page, never an address with the token: xdg-open's and the
    /// browser's arguments are readable by every local user) in the desktop's browser with
    /// xdg-open, when there is one; says so otherwise.
    static func openBrowser(_ url: String) {
        guard let program = g_find_program_in_path("xdg-open") else {
            Console.error("no xdg-open here: open the address in a browser yourself")
            return
        }
        var arguments: [UnsafeMutablePointer<CChar>?] = [program, strdup(url), nil]
        defer { arguments.compactMap { $0 }.forEach { free($0) } }
        var error: UnsafeMutablePointer<GError>?
        let flags = GSpawnFlags(rawValue: G_SPAWN_STDOUT_TO_DEV_NULL.rawValue | G_SPAWN_STDERR_TO_DEV_NULL.rawValue)
        if g_spawn_async(nil, &arguments, nil, flags, nil, nil, nil, &error) == 0 {
            Console.error("could not start xdg-open (\(error.map { String(cString: $0.pointee.message) } ?? "unknown error")): open the address yourself")
            if let error { g_error_free(error) }
        }
    }
}
