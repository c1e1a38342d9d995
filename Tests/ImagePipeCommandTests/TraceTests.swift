import Foundation
import Testing
import ImagePipe
import TestSupport

@Suite struct TraceTests {
    @Test func traceWritesEveryStageAndAPageThatShowsThem() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(60, 40).encoded(as: .jpeg), to: "in.jpg")
        let result = try CommandRunner.run(["run", "-e", "fit 30x30 | letterbox 30x30 | circle-crop | save out.png",
                                            "in.jpg", "--trace", "trace"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.file("trace")).sorted()
        // With the mark that lets a later trace write over this folder (and no other).
        #expect(files == [".imagepipe-trace", "00-load.png", "01-fit.png", "02-letterbox.png", "03-circle-crop.png", "04-save.png", "index.html"])
        #expect(try Image.load(path: directory.file("trace/01-fit.png")).size == Size(30, 20))
        let html = try String(contentsOfFile: directory.file("trace/index.html"), encoding: .utf8)
        #expect(html.contains("2. letterbox 30x30<br>30x30 · "))

        // A real browser loads the page and every image on it.
        let chromium = try #require(["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                    "no Chromium: make test installs Debian's chromium package")
        let browser = try CommandRunner.runProgram(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                                                              "--dump-dom", "file://" + directory.file("trace/index.html")])
        #expect(browser.standardOutput.contains("<body data-loaded=\"5\" data-total=\"5\">"), "\(browser.standardOutput.prefix(300))")
    }

    @Test func aFailedRunStillLeavesAPageSayingWhere() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(60, 40).encoded(as: .png), to: "in.png")
        let result = try CommandRunner.run(["run", "-e", "fit 30x30 | save out.ico", "in.png", "--trace", "trace", "--max-pixels", "10"], in: directory.path)
        #expect(result.status == 1)
        let html = try String(contentsOfFile: directory.file("trace/index.html"), encoding: .utf8)
        #expect(html.contains("<p class=\"error\">in.png: too large: 60x40 is 2400 pixels, more than the limit of 10; raise the limit with --max-pixels</p>"))
    }

    @Test func batchTracesGoIntoOneFolderPerInput() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(6, 4).encoded(as: .png), to: "a.png")
        _ = try directory.write(Synthetic.gradient(6, 4).encoded(as: .png), to: "b.png")
        let result = try CommandRunner.run(["run", "-e", "fit 3x3", "a.png", "b.png", "--out-dir", "out", "--trace", "trace", "-q"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("trace")).sorted() == [".imagepipe-trace", "1-a", "2-b", "index.html"])
        #expect(FileManager.default.fileExists(atPath: directory.file("trace/2-b/index.html")))
        // The batch's own page links every input's page.
        let index = try String(contentsOfFile: directory.file("trace/index.html"), encoding: .utf8)
        #expect(index.contains("<a href=\"1-a/index.html\">a.png</a>") && index.contains("<a href=\"2-b/index.html\">b.png</a>"))
    }

    /// After a reduced decode the load step shows the picture's size and what was decoded.
    @Test func traceShowsTheReducedDecode() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(800, 600).encoded(as: .jpeg), to: "big.jpg")
        let result = try CommandRunner.run(["run", "-e", "fit 100x100", "big.jpg", "-o", "out.png", "--trace", "trace"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let html = try String(contentsOfFile: directory.file("trace/index.html"), encoding: .utf8)
        #expect(html.contains("0. load<br>800x600 (decoded at 200x150)"), "\(html)")
    }
}
