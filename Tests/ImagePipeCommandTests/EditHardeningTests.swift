import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

// No time limits: within the full suite a test here went past one minute (the 1 GiB POST, which
// takes 0.06 s alone: most likely waiting its turn behind the other suites, which a limit counts);
// the sockets' 10 s timeouts are what keep a test from hanging.
/// `imagepipe edit`'s server against hostile local clients, over real sockets on 127.0.0.1: bodies
/// refused before they are read, slow connections closed and their number bounded, the token
/// kept out of every command line, and the page's numbers and JSON checked before use.
@Suite(.serialized) struct EditHardeningTests {
    static let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples/images/boats.jpg").path

    /// One `imagepipe edit` process and the address it printed.
    final class Editor {
        let process = Process()
        let port: UInt16
        let token: String
        let url: String
        private let errors = Pipe()

        /// Starts the editor; `descriptors` lowers its limit of open files (as a desktop's default of 1024 would).
        init(arguments: [String] = ["--no-browser"], environment: [String: String] = [:], descriptors: Int? = nil) throws {
            if let descriptors {
                process.executableURL = URL(fileURLWithPath: "/bin/sh")
                process.arguments = ["-c", "ulimit -n \(descriptors) && exec \"$0\" \"$@\"", CommandRunner.binary, "edit", EditHardeningTests.photo] + arguments
            } else {
                process.executableURL = URL(fileURLWithPath: CommandRunner.binary)
                process.arguments = ["edit", EditHardeningTests.photo] + arguments
            }
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
            // The first line on standard error is the address.
            var line: [UInt8] = []
            let handle = errors.fileHandleForReading
            while line.last != UInt8(ascii: "\n"), let byte = try handle.read(upToCount: 1), !byte.isEmpty { line += byte }
            let text = String(decoding: line, as: UTF8.self)
            guard let range = text.range(of: "editor at ") else {
                process.terminate()
                throw EditorError(message: "imagepipe edit printed no address: \(text)")
            }
            url = text[range.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)
            let parts = url.split(separator: "/")
            port = UInt16(parts[1].split(separator: ":")[1])!
            token = String(parts[2])
            // Keep draining standard error so the editor never blocks on a full pipe.
            handle.readabilityHandler = { _ = $0.availableData }
        }

        deinit {
            errors.fileHandleForReading.readabilityHandler = nil
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }

        var alive: Bool { process.isRunning }

        /// The editor's resident memory, from /proc.
        var residentKiB: Int {
            let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }

        /// The editor's open descriptors, from /proc.
        var descriptors: Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count) ?? 0
        }

        /// A request to this editor: the request line and Host header, `headers`, then `body`.
        func request(_ method: String, _ path: String, headers: [String] = [], body: [UInt8] = []) -> [UInt8] {
            let head = (["\(method) \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"] + headers).joined(separator: "\r\n")
            return Array((head + "\r\n\r\n").utf8) + body
        }

        /// POSTs `body` to a route under the token.
        func post(_ route: String, _ body: [UInt8]) throws -> Answer {
            try exchange(request("POST", "/\(token)/\(route)", headers: ["Content-Type: application/json", "Content-Length: \(body.count)"], body: body))
        }

        /// Sends `bytes` on a new connection and reads the answer to its end.
        func exchange(_ bytes: [UInt8]) throws -> Answer {
            let socket = try Client(port: port)
            _ = socket.send(bytes)
            return Answer(socket.readAll())
        }

        /// Whether the page is still served: the server lives and answers.
        var answers: Bool { alive && (try? exchange(request("GET", "/\(token)/")).status) == 200 }
    }

    struct EditorError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// An HTTP answer: its status and body.
    struct Answer {
        let status: Int
        let body: String

        init(_ bytes: [UInt8]) {
            let text = String(decoding: bytes, as: UTF8.self)
            let line = text.prefix { $0 != "\r" }.split(separator: " ")
            status = line.count > 1 ? Int(line[1]) ?? 0 : 0
            body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        }
    }

    /// A TCP connection to 127.0.0.1, with a receive timeout so no read hangs a test.
    final class Client {
        let descriptor: Int32

        init(port: UInt16) throws {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw EditorError(message: "socket: \(String(cString: strerror(errno)))") }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw EditorError(message: "connect: \(reason)")
            }
        }

        deinit { close(descriptor) }

        /// Sends all of `bytes`; false once the peer has closed or reset the connection.
        func send(_ bytes: [UInt8]) -> Bool {
            var sent = 0
            while sent < bytes.count {
                let count = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }

        /// Everything the peer sends until it closes (or resets, or 10 s of silence).
        func readAll() -> [UInt8] {
            var result: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return result }
                result += buffer[0..<count]
            }
        }

        /// Whether the peer has closed the connection, waiting at most `milliseconds`.
        func closedByPeer(within milliseconds: Int32) -> Bool {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, milliseconds) > 0 else { return false }
            var byte: UInt8 = 0
            return recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT)) <= 0
        }
    }

    /// Polls `condition` until it holds or `seconds` pass.
    static func eventually(within seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    static let goodState = Array(#"{"viewport":{"width":375,"height":667},"zoom":1,"offset":{"x":0,"y":0},"pan":0}"#.utf8)

    // MARK: - Bodies

    @Test
    func aGibibytePostWithoutTheTokenIsRefusedUnread() throws {
        let editor = try Editor()
        #expect(editor.answers)
        let before = editor.residentKiB
        let client = try Client(port: editor.port)
        let gibibyte = 1 << 30
        _ = client.send(editor.request("POST", "/settle", headers: ["Content-Length: \(gibibyte)"]))
        let mebibyte = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        var sent = 0
        while sent < gibibyte, client.send(mebibyte) { sent += mebibyte.count }
        // The connection is closed after the headers: only what the kernel's buffers held went out.
        #expect(sent < 64 << 20, "the editor read \(sent >> 20) MiB of a refused body")
        #expect(editor.residentKiB - before < 32 * 1024, "resident memory grew from \(before) KiB to \(editor.residentKiB) KiB")
        #expect(editor.answers)
    }

    @Test
    func aHugeContentLengthWithTheTokenIs413() throws {
        let editor = try Editor()
        let answer = try editor.exchange(editor.request("POST", "/\(editor.token)/settle", headers: ["Content-Length: 1000000000000"]))
        #expect(answer.status == 413)
        #expect(answer.body.contains("at most 65536 bytes"))
        #expect(editor.answers)
    }

    @Test
    func aChunkedBodyIsCutOffPastTheLimit() throws {
        let editor = try Editor()
        let client = try Client(port: editor.port)
        _ = client.send(editor.request("POST", "/\(editor.token)/settle", headers: ["Transfer-Encoding: chunked"]))
        let chunk = Array("4000\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "["), count: 0x4000) + Array("\r\n".utf8)
        var sent = 0
        while sent < 256 << 20, client.send(chunk) { sent += 0x4000 }
        #expect(sent < 64 << 20, "the editor took \(sent >> 20) MiB of chunks")
        #expect(editor.answers)
    }

    // MARK: - The page's files

    /// The page, script and style sheet served are the repository's own files
    /// (Sources/ImagePipeCommand/Edit/editor.*), compiled in: the script and style byte for
    /// byte, the page with the mode's words filled in and nothing left unfilled.
    @Test
    func theServedFilesAreTheRepositorysFiles() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/ImagePipeCommand/Edit").path
        let editor = try Editor()
        for (name, file) in [("editor.js", "editor.js"), ("editor.css", "editor.css")] {
            let answer = try editor.exchange(editor.request("GET", "/\(editor.token)/\(name)"))
            #expect(answer.status == 200)
            #expect(answer.body == (try String(contentsOfFile: sources + "/" + file, encoding: .utf8)), "\(name)")
        }
        let page = try editor.exchange(editor.request("GET", "/\(editor.token)/"))
        let template = try String(contentsOfFile: sources + "/editor.html", encoding: .utf8)
        #expect(page.status == 200 && page.body.hasPrefix("<!doctype html>"))
        #expect(!page.body.contains("{{") && template.contains("{{help}}"))
        #expect(page.body.contains("<title>imagepipe edit — avatar editor</title>") && page.body.contains("class=\"mode-avatar\""))
        // The rest of the page is the template's, line for line.
        let kept = template.split(separator: "\n").filter { !$0.contains("{{") }
        #expect(kept.allSatisfy { page.body.contains($0) })
    }

    // MARK: - Connections

    @Test
    func halfSentRequestsTimeOutAndDoNotExhaustDescriptors() throws {
        // 128 descriptors: without a cap, the held connections would take them all.
        let timeout = 1000
        let editor = try Editor(environment: ["IMAGEPIPE_EDIT_TIMEOUT_MS": "\(timeout)"], descriptors: 128)
        let baseline = editor.descriptors
        var held: [Client] = []
        for _ in 0..<300 {
            let client = try Client(port: editor.port)
            _ = client.send(Array("GET /\(editor.token)/ HTTP/1.1\r\nHost: 127".utf8))
            held.append(client)
        }
        #expect(editor.descriptors <= baseline + 32 + 8, "\(editor.descriptors) descriptors open, \(baseline) before")
        // A good request still gets through while they are held.
        #expect(editor.answers)
        // Every half-sent request is closed by the editor, within its timeout and a sweep.
        // The bounds only guard against a hang: a busy machine may be slow to sweep.
        let closed = Self.eventually(within: 60) {
            held.removeAll { $0.closedByPeer(within: 0) }
            return held.isEmpty
        }
        #expect(closed, "\(held.count) half-sent connections still open")
        #expect(Self.eventually(within: 60) { editor.descriptors <= baseline + 2 }, "\(editor.descriptors) descriptors open, \(baseline) before")
        #expect(editor.answers)
    }

    @Test
    func aRequestDrippedSlowerThanTheTimeoutIsClosed() throws {
        let editor = try Editor(environment: ["IMAGEPIPE_EDIT_TIMEOUT_MS": "500"])
        let client = try Client(port: editor.port)
        let started = Date()
        // One byte every 100 ms keeps any idle timer from firing; the request's deadline must.
        var open = true
        for byte in Array("GET /\(editor.token)/ HTTP/1.1\r\nHost: 127.0.0.1:\(editor.port)\r\nX-Slow: ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 200) {
            if client.closedByPeer(within: 100) || !client.send([byte]) { open = false; break }
        }
        #expect(!open, "a request dripped for \(Date().timeIntervalSince(started)) s is still open")
        #expect(editor.answers)
    }

    // MARK: - The token

    @Test
    func theTokenIsInNoCommandLine() throws {
        let directory = try TemporaryDirectory()
        let bin = directory.file("bin"), record = directory.file("record"), runtime = directory.file("runtime")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        // A fake xdg-open that records its arguments, the launch page and the page's and its directory's modes.
        let script = """
            #!/bin/sh
            page="${1#file://}"
            printf '%s\\n' "$0" "$@" > "\(record).args"
            stat -c %a "$page" "$(dirname "$page")" > "\(record).modes"
            cat "$page" > "\(record).page"
            echo done > "\(record).done"

            """
        try script.write(toFile: bin + "/xdg-open", atomically: true, encoding: .utf8)
        chmod(bin + "/xdg-open", 0o755)
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let editor = try Editor(arguments: [], environment: ["PATH": path, "XDG_RUNTIME_DIR": runtime])
        #expect(Self.eventually(within: 10) { FileManager.default.fileExists(atPath: record + ".done") }, "xdg-open was not started")
        let arguments = try String(contentsOfFile: record + ".args", encoding: .utf8)
        #expect(!arguments.contains(editor.token), "xdg-open's arguments hold the token: \(arguments)")
        let lines = arguments.split(separator: "\n")
        #expect(lines.count == 2 && lines[1].hasPrefix("file://\(runtime)/imagepipe-edit-"), "xdg-open was given \(arguments)")
        #expect(try String(contentsOfFile: record + ".modes", encoding: .utf8) == "600\n700\n")
        // The page forwards to the address with the token, which serves the editor.
        let page = try String(contentsOfFile: record + ".page", encoding: .utf8)
        #expect(page.contains("url=\(editor.url)"))
        let launch = String(lines.last?.dropFirst("file://".count) ?? "")
        #expect(FileManager.default.fileExists(atPath: launch))
        #expect(editor.answers)
        // Once the page has loaded, the launch page is gone, its directory too.
        #expect(Self.eventually(within: 5) { !FileManager.default.fileExists(atPath: launch) })
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty)
    }

    // MARK: - What the page sends

    @Test
    func nonFiniteAndHugeNumbersAre400() throws {
        let editor = try Editor()
        let bad: [(String, String)] = [
            (#"{"viewport":{"width":375,"height":667},"zoom":1,"offset":{"x":1e300,"y":0},"pan":0}"#, "offset.x"),
            (#"{"viewport":{"width":375,"height":667},"zoom":1,"offset":{"x":0,"y":-1e300},"pan":0}"#, "offset.y"),
            (#"{"viewport":{"width":375,"height":667},"zoom":1e400,"offset":{"x":0,"y":0},"pan":0}"#, "zoom"),
            (#"{"viewport":{"width":375,"height":667},"zoom":1e-320,"offset":{"x":0,"y":0},"pan":0}"#, "zoom"),
            (#"{"viewport":{"width":375,"height":667},"zoom":1,"offset":{"x":0,"y":0},"pan":-1e300}"#, "pan"),
            (#"{"viewport":{"width":1e300,"height":667},"zoom":1,"offset":{"x":0,"y":0},"pan":0}"#, "viewport.width"),
            (#"{"viewport":{"width":375,"height":667},"zoom":"1","offset":{"x":0,"y":0},"pan":0}"#, "zoom"),
        ]
        for route in ["settle", "turn", "ok"] {
            for (body, field) in bad {
                let answer = try editor.post(route, Array(body.utf8))
                #expect(answer.status == 400, "\(route) \(body): \(answer.status) \(answer.body)")
                // A literal past Double's range (1e400) is refused already by the JSON reader.
                #expect(answer.body.hasPrefix(field) || (body.contains("1e400") && answer.body.contains("not JSON")),
                        "\(route) \(body): \(answer.body)")
            }
        }
        #expect(editor.alive)
        #expect(try editor.post("settle", Self.goodState).status == 200)
    }

    @Test
    func deepJSONIsRefusedAndTheEditorLives() throws {
        let editor = try Editor()
        // Under the size limit, nested too deep for the reader: 400, saying why.
        let deep = try editor.post("settle", [UInt8](repeating: UInt8(ascii: "["), count: 60_000))
        #expect(deep.status == 400)
        #expect(deep.body.contains("nested deeper"))
        let deepInString = try editor.post("settle", Array(#"{"a":""#.utf8) + [UInt8](repeating: UInt8(ascii: "["), count: 60_000) + Array(#""}"#.utf8))
        #expect(deepInString.status == 400 && deepInString.body.hasPrefix("the state has no viewport"), "\(deepInString.body)")
        #expect(editor.alive)
        // A megabyte of brackets is past the size limit: refused before it is read (413, or the
        // connection reset when the refusal closes it while the brackets are still coming).
        let megabyte = try editor.post("settle", [UInt8](repeating: UInt8(ascii: "["), count: 1 << 20))
        #expect(megabyte.status == 413 || megabyte.status == 0, "\(megabyte.status) \(megabyte.body)")
        #expect(editor.alive)
        #expect(try editor.post("settle", Self.goodState).status == 200)
    }
}
