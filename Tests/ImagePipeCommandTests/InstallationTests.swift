import Foundation
import Testing
import ImagePipe
import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// What `make install` and `make deb` ship: the manual page and completions the command makes
/// from its own help and schemas, and a .deb that runs without a Swift toolchain.
@Suite struct InstallationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The manual page holds every command's help and every stage's description, word for word.
    @Test func manualPageAgreesWithHelpAndStages() throws {
        let page = try CommandRunner.run(["man"])
        #expect(page.status == 0)
        let usage = try CommandRunner.run(["--help"]).standardOutput
        // Every command the top-level usage lists has its section, holding its --help.
        let commands = usage.split(separator: "\n", omittingEmptySubsequences: false).drop { !$0.hasPrefix("Commands:") }.dropFirst()
            .prefix { !$0.isEmpty }.compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(commands.contains("run") && commands.contains("edit"))
        for command in commands {
            #expect(page.standardOutput.contains(".SS \(command)\n"), "no section for \(command)")
            let help = try CommandRunner.run([command, "--help"]).standardOutput
            for line in help.split(separator: "\n") where !line.hasPrefix(".") {
                #expect(page.standardOutput.contains(line.replacingOccurrences(of: "\\", with: "\\e")), "\(command): '\(line)' is not in the manual")
            }
        }
        for name in StandardPlugins.registry.stageNames {
            let usageLine = "usage: " + StandardPlugins.registry.entry(named: name)!.schema.usage
            #expect(page.standardOutput.contains(".SS \(name)\n") && page.standardOutput.contains(usageLine), "\(name)")
        }
        // man(1) reads it without complaint.
        let directory = try TemporaryDirectory()
        let file = try directory.write(page.standardOutput, to: "imagepipe.1")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") {
            let rendered = try CommandRunner.runProgram("/usr/bin/groff", ["-k", "-man", "-Tutf8", "-ww", file])
            #expect(rendered.status == 0 && rendered.standardError.isEmpty, "\(rendered.standardError)")
            #expect(rendered.standardOutput.contains("IMAGEPIPE(1)"))
        }
    }

    /// Every option a command's help lists is one its parser takes, and bash completes commands,
    /// options, option values and stage names with the script.
    @Test func helpListsTheParsersOptionsAndBashCompletes() throws {
        for command in ["run", "check", "explain", "stages", "edit"] {
            let help = try CommandRunner.run([command, "--help"]).standardOutput
            let listed = help.split(separator: "\n").filter { $0.drop { $0 == " " }.hasPrefix("--") }
            #expect(!listed.isEmpty || command == "stages", "\(command) lists no options")
            for line in listed {
                let option = String(line.drop { $0 == " " }.prefix { $0 != " " && $0 != "," })
                let tried = try CommandRunner.run([command, option] + (command == "edit" ? [] : ["--help"]))
                #expect(!tried.standardError.contains("unknown option"), "\(command) \(option): \(tried.standardError)")
            }
        }
        let directory = try TemporaryDirectory()
        let script = try directory.write(try CommandRunner.run(["completions", "bash"]).standardOutput, to: "imagepipe.bash")
        func complete(_ words: [String]) throws -> [String] {
            let line = words.map { "'\($0)'" }.joined(separator: " ")
            let result = try CommandRunner.runProgram("/bin/bash", ["-c", """
                source '\(script)'; COMP_WORDS=(\(line)); COMP_CWORD=\(words.count - 1); _imagepipe; printf '%s\\n' "${COMPREPLY[@]}"
                """])
            #expect(result.status == 0, "\(result.standardError)")
            return result.standardOutput.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["imagepipe", "ex"]) == ["explain"])
        #expect(try complete(["imagepipe", "run", "--max-p"]) == ["--max-pixels"])
        #expect(try complete(["imagepipe", "stages", "circle-c"]) == ["circle-crop"])
        #expect(try complete(["imagepipe", "run", "-e", "kern"]) == ["kernel="])
        #expect(try complete(["imagepipe", "convert", "--no-shr"]) == ["--no-shrink-on-load"])
        #expect(try complete(["imagepipe", "convert", "--out"]) == [], "convert takes no --out-dir")
        #expect(try complete(["imagepipe", "run", "--scaling", "b"]) == ["best"])
        #expect(try complete(["imagepipe", "edit", "--mode", "s"]) == ["slice", "swipe"])
        #expect(try complete(["imagepipe", "url", "--format", "j"]) == ["jpg"])
        #expect(try CommandRunner.run(["completions", "tcsh"]).status == 2)
    }

    /// The same completions in real zsh (its line editor on a pseudo-terminal, driven by
    /// Tests/Shells/zsh_complete.py) and real fish (`complete -C`), which `make test` installs.
    @Test func completionsWorkInZshAndFish() throws {
        for shell in ["/bin/zsh", "/usr/bin/fish"] {
            try #require(FileManager.default.isExecutableFile(atPath: shell), "\(shell) is missing: make test installs zsh and fish")
        }
        let directory = try TemporaryDirectory()
        _ = try directory.write(try CommandRunner.run(["completions", "zsh"]).standardOutput, to: "_imagepipe")
        let fish = try directory.write(try CommandRunner.run(["completions", "fish"]).standardOutput, to: "imagepipe.fish")
        let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Shells/zsh_complete.py").path
        let cases: [(line: String, zsh: String, fish: [String])] = [
            ("imagepipe expl", "imagepipe explain", ["explain"]),
            ("imagepipe run --max-p", "imagepipe run --max-pixels", ["--max-pixels"]),
            ("imagepipe stages circle-c", "imagepipe stages circle-crop", ["circle-crop"]),
            ("imagepipe run -e kern", "imagepipe run -e kernel=", ["kernel="]),
            ("imagepipe convert --no-shr", "imagepipe convert --no-shrink-on-load", ["--no-shrink-on-load"]),
            ("imagepipe run --scaling b", "imagepipe run --scaling best", ["best"]),
        ]
        for (line, zshLine, fishWords) in cases {
            let zsh = try CommandRunner.runProgram("/usr/bin/python3", [driver, directory.path, line])
            #expect(zsh.status == 0 && zsh.standardOutput == zshLine + "\n", "zsh, '\(line)': \(zsh.standardOutput) \(zsh.standardError)")
            let completed = try CommandRunner.runProgram("/usr/bin/fish", ["--no-config", "-c", "source '\(fish)'; complete -C '\(line)'"])
            let words = completed.standardOutput.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
            #expect(completed.status == 0 && words == fishWords, "fish, '\(line)': \(completed.standardOutput) \(completed.standardError)")
        }
    }

    /// The .deb: its files, its dependencies (the Debian packages of the libraries the command
    /// links), and a command that runs from the unpacked tree on the Swift runtime it carries.
    @Test func debianPackage() throws {
        for tool in ["/usr/bin/dpkg-deb", "/usr/bin/patchelf", "/usr/bin/readelf"] {
            try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing: make test installs patchelf")
        }
        let directory = try TemporaryDirectory.forPlugins() // a plugin is loaded from the unpacked tree
        let built = try CommandRunner.runProgram(Self.root.appendingPathComponent(".ci/build-deb.sh").path, [CommandRunner.binary, directory.path])
        try #require(built.status == 0, "\(built.standardError)")
        let deb = built.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let contents = try CommandRunner.runProgram("/usr/bin/dpkg-deb", ["-c", deb]).standardOutput
        for file in ["./usr/bin/imagepipe", "./usr/share/man/man1/imagepipe.1.gz", "./usr/share/bash-completion/completions/imagepipe",
                     "./usr/share/zsh/site-functions/_imagepipe", "./usr/share/fish/vendor_completions.d/imagepipe.fish",
                     "./usr/lib/imagepipe/plugins/", "./usr/lib/imagepipe/swift/libswiftCore.so"] {
            #expect(contents.contains(file), "\(file) is not in the package")
        }
        let control = try CommandRunner.runProgram("/usr/bin/dpkg-deb", ["-f", deb, "Depends"]).standardOutput
        // libheif1 and libavif15 are opened on first use, not linked: --version names them.
        for package in ["libgdk-pixbuf-2.0-0", "libjpeg62-turbo", "libdeflate0", "libc6", "libheif1", "libavif15"] {
            #expect(control.contains(package), "Depends: \(control)")
        }
        #expect(!control.contains("swift"))
        let unpacked = directory.file("root")
        #expect(try CommandRunner.runProgram("/usr/bin/dpkg-deb", ["-x", deb, unpacked]).status == 0)
        let libraries = try CommandRunner.runProgram("/usr/bin/ldd", [unpacked + "/usr/bin/imagepipe"]).standardOutput
        #expect(libraries.contains(unpacked + "/usr/bin/../lib/imagepipe/swift/libswiftCore.so"), "\(libraries)")
        let version = try CommandRunner.runProgram(unpacked + "/usr/bin/imagepipe", ["--version"])
        #expect(version.standardOutput.hasPrefix("imagepipe \(ImagePipeCommand.version)\nplugin interface "))
        // Plugins in PREFIX/lib/imagepipe/plugins load without being named.
        let plugin = Self.root.appendingPathComponent("Samples/CustomStage/.build/debug/libSepiaPlugin.so").path
        if FileManager.default.fileExists(atPath: plugin) {
            try FileManager.default.copyItem(atPath: plugin, toPath: unpacked + "/usr/lib/imagepipe/plugins/libSepiaPlugin.so")
            let stages = try CommandRunner.runProgram(unpacked + "/usr/bin/imagepipe", ["stages"])
            #expect(stages.standardOutput.contains("  sepia "), "\(stages.standardError)")
        }
        // apt can satisfy its dependencies (simulated: nothing is installed).
        if getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/apt-get") {
            let simulated = try CommandRunner.runProgram("/usr/bin/apt-get", ["install", "-s", "-q", deb])
            #expect(simulated.status == 0, "\(simulated.standardError)")
            #expect(simulated.standardOutput.contains("Inst imagepipe"), "\(simulated.standardOutput)")
        }
    }
}
