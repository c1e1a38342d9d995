import Foundation

/// Headless Chromium driven by Selenium from Debian's Python (python3-selenium, chromium,
/// chromium-driver; `make test` installs them): the scripts in Tests/Browser.
public enum SeleniumBrowser {
    public static let python = "/usr/bin/python3"

    /// Whether the browser, its driver and Selenium are all there.
    public static let available: Bool = {
        guard ["/usr/lib/chromium/chromium", "/usr/bin/chromedriver", python].allSatisfy(FileManager.default.isExecutableFile(atPath:)) else { return false }
        return (try? CommandRunner.runProgram(python, ["-c", "import selenium"]).status) == 0
    }()

    /// The path of a script in Tests/Browser.
    public static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Browser").appendingPathComponent(name).path
    }
}
