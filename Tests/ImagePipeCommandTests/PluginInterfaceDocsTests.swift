import Foundation
import Testing
import ImagePipe

/// docs/extending.md and the sample's guide document the plugin interface as it is: the number
/// of entries of the C table after its two header fields, each by name, and every key and kind of
/// the JSON a plugin describes itself with, exactly those the host reads.
@Suite struct PluginInterfaceDocsTests {
    static let root = FuzzRegressionTests.root
    static let guide = root.appendingPathComponent("Samples/CustomStage/README.md").path
    static let extending = root.appendingPathComponent("docs/extending.md").path

    /// The table's entries after `interface_version` and `table_size` (functions, and pointers
    /// to the optional sub-tables), in order, read from the header.
    static func entries() throws -> [String] {
        let header = try String(contentsOfFile: root.appendingPathComponent("Sources/CImagePipePlugin/include/imagepipe_plugin.h").path,
                                encoding: .utf8)
        let start = try #require(header.range(of: "typedef struct imagepipe_plugin {")), end = try #require(header.range(of: "} imagepipe_plugin;"))
        let body = String(header[start.upperBound..<end.lowerBound]).replacing(try Regex(#"/\*(.|\n)*?\*/"#), with: "")
        return body.matches(of: try Regex(#"\(\*(\w+)\)|\*(\w+);"#)).map { String(($0.output[1].substring ?? $0.output[2].substring)!) }
    }

    static let numberWords = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                              "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]

    /// Each count of entries a document states ("twelve entries after"), as numbers.
    static func statedCounts(in path: String) throws -> [Int] {
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\n", with: " ").lowercased()
        return text.matches(of: try Regex(#"([a-z-]+) entries after"#)).map { match in
            (numberWords.firstIndex(of: String(match.output[1].substring!)) ?? -1) + 1
        }
    }

    @Test func theDocumentsCountTheEntriesRight() throws {
        let fields = try Self.entries()
        // The issue's bound: the table follows the one-method stage contract, at most a dozen entries.
        #expect(fields.first == "describe" && fields.contains("make_rows") && fields.count <= 12, "\(fields)")
        for path in [Self.guide, Self.extending] {
            let counts = try Self.statedCounts(in: path)
            #expect(!counts.isEmpty, "\(path) states no count of entries")
            #expect(counts.allSatisfy { $0 == fields.count }, "\(path) states \(counts); the header has \(fields.count)")
        }
        for path in [Self.guide, Self.extending] {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            for field in fields {
                #expect(text.contains("`\(field)`"), "\(path) does not describe \(field)")
            }
        }
    }

    /// The first cells of the table in docs/extending.md whose header's first cell is `title`,
    /// without their backquotes.
    static func tableKeys(_ title: String) throws -> [String] {
        let lines = try String(contentsOfFile: extending, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("| \(title) |") }) else { return [] }
        return lines[(start + 2)...].prefix { $0.hasPrefix("|") }.compactMap { row in
            row.split(separator: "|").first.map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`")) }
        }
    }

    @Test func theSchemaTablesListExactlyWhatTheHostReads() throws {
        #expect(try Set(Self.tableKeys("Plugin key")) == Registry.pluginKeys)
        #expect(try Set(Self.tableKeys("Stage key")) == SchemaCoding.stageKeys)
        #expect(try Set(Self.tableKeys("Parameter key")) == SchemaCoding.parameterKeys)
        #expect(try Self.tableKeys("Kind") == SchemaCoding.kinds)
    }

    /// Each kind the tables list is one the decoder reads, and one it does not list is refused.
    @Test func everyListedKindDecodes() throws {
        for kind in SchemaCoding.kinds {
            let extra = kind == "choice" ? #","choices":["a","b"]"# : ""
            let json = try #require(JSONValue.parse(#"{"name":"s","parameters":[{"name":"p","kind":""# + kind + #"""# + extra + "}]}"))
            #expect(throws: Never.self, "\(kind)") { try SchemaCoding.decode(json, strict: true) }
        }
        let unknown = try #require(JSONValue.parse(#"{"name":"s","parameters":[{"name":"p","kind":"colour"}]}"#))
        #expect(throws: StageError.self) { try SchemaCoding.decode(unknown, strict: true) }
    }
}
