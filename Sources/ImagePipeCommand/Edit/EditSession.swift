import ImagePipe

/// One run of the editor: the page's routes over an `EditModel`. The page sends a gesture's raw
/// state; the session answers with the settled state and everything drawn from it, so the
/// model in Swift is the one source of truth. "OK" runs the line for the settled state as
/// `imagepipe run` would.
@MainActor
final class EditSession {
    /// The reduced photo the page shows.
    struct Preview: Sendable {
        let size: Size
        let bytes: [UInt8]
        let contentType: String
    }

    let model: EditModel
    let context: RunContext
    let preview: Preview
    let orientation: Int
    private let server: EditServer
    private let compile: (String) throws -> Pipeline
    /// The pages open now, by the id each made for itself: a reload opens a new one before or
    /// after the old one says it is closing, so the editor ends only when none is left.
    private var openPages: Set<String> = []
    private var done = false
    /// The file the browser was opened at, removed once the page has loaded: its work is done.
    var launchPage: EditLaunchPage?

    init(model: EditModel, context: RunContext, preview: Preview, orientation: Int, port: UInt32,
         compile: @escaping (String) throws -> Pipeline) throws {
        self.model = model
        self.context = context
        self.preview = preview
        self.orientation = orientation
        self.compile = compile
        server = try EditServer(port: port)
        server.route = { [unowned self] in self.route($0) }
        server.onSignal = { _ in Console.error("interrupted; nothing written") }
    }

    var url: String { server.url }

    func run() -> Int32 { server.run() }

    private func route(_ request: EditServer.Request) -> EditServer.Response {
        switch (request.method, request.path) {
        case ("GET", ""):
            launchPage?.remove()
            launchPage = nil
            return EditServer.Response(status: 200, contentType: "text/html; charset=utf-8", body: Array(EditPage.html(mode: model.mode).utf8))
        case ("GET", "editor.js"):
            return EditServer.Response(status: 200, contentType: "text/javascript; charset=utf-8", body: EditAssets.script)
        case ("GET", "editor.css"):
            return EditServer.Response(status: 200, contentType: "text/css; charset=utf-8", body: EditAssets.style)
        case ("GET", "preview"):
            return EditServer.Response(status: 200, contentType: preview.contentType, body: preview.bytes)
        case ("GET", let path) where path.hasPrefix("session/"):
            openPages.insert(String(path.dropFirst("session/".count)))
            return .json(session())
        case ("POST", "settle"), ("POST", "turn"), ("POST", "ok"):
            guard !done else { return .text(409, "the editor has finished") }
            let raw: EditState
            do throws(EditRequestError) {
                raw = try EditState(json: EditJSON.parse(request.body, maxDepth: server.limits.maxDepth))
            } catch {
                return .text(400, "\(error.message): expected the state as JSON: {\"viewport\":{\"width\":W,\"height\":H},\"zoom\":z,\"offset\":{\"x\":x,\"y\":y},\"pan\":p}")
            }
            guard model.allows(raw.viewport) else {
                return .text(400, "the viewport \(raw.viewport) is neither \(model.viewport) nor turned \(model.viewport.transposed)")
            }
            switch request.path {
            case "settle": return .json(model.answer(model.settle(raw), requested: raw))
            case "turn": return .json(model.answer(model.turn(raw), requested: raw))
            default: return ok(model.settle(raw))
            }
        case ("POST", "cancel"):
            guard !done else { return .text(409, "the editor has finished") }
            done = true
            Console.error("cancelled; nothing written")
            server.finish(1, after: server.currentMessage)
            return .json(.object([("cancelled", .bool(true))]))
        case ("POST", "closed"):
            // The page is going away: a reload comes back within moments, a closed tab does not.
            openPages.remove(String(decoding: request.body, as: UTF8.self))
            server.after(milliseconds: 2500) { [unowned self] in
                guard !done, openPages.isEmpty else { return }
                done = true
                Console.error("the page was closed; nothing written")
                server.finish(1, after: nil)
            }
            return .json(.object([]))
        default:
            return .text(404, "no \(request.method) \(request.path) here")
        }
    }

    private func session() -> JSONValue {
        .object([
            ("mode", .string(model.mode.rawValue)),
            ("image", .size(model.imageSize)),
            ("orientation", .number(Double(orientation))),
            ("preview", .size(preview.size)),
            ("viewport", .size(model.viewport)),
            ("gap", .number(model.gap)),
            ("size", model.size.map { .number(Double($0)) } ?? .null),
            ("output", context.output.map(JSONValue.string) ?? .null),
            ("answer", model.answer(model.first(in: model.viewport))),
        ])
    }

    /// Runs the line for the settled state, writes the output, prints the line and ends the run
    /// once the page has the answer. A failure is shown on the page, which may try again or cancel.
    private func ok(_ state: EditState) -> EditServer.Response {
        let line = model.line(for: state)
        do {
            let pipeline = try compile(line)
            if context.output != nil { try pipeline.run(in: context) }
        } catch {
            let message = RemedyWording.text(for: error)
            Console.error(message)
            return .text(500, message)
        }
        done = true
        Console.output(line)
        server.finish(0, after: server.currentMessage)
        return .json(.object([("line", .string(line)), ("output", context.output.map(JSONValue.string) ?? .null)]))
    }
}
