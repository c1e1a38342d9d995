import Foundation
import Testing
import ImagePipe

/// docs/extending.md and the sample's guide document the plugin interface as it is: the number
/// of fields appended to the C table since version 2 began, each by name, and every key and kind
/// of the JSON a plugin describes itself with, exactly those the host reads.
@Suite struct PluginInterfaceDocsTests {
    static let root = FuzzRegressionTests.root
    static let guide = root.appendingPathComponent("Samples/CustomStage/README.md").path
    static let extending = root.appendingPathComponent("docs/extending.md").path

    /// The table's function fields after `free_string` (the last every plugin has), in order,
    /// read from the header.
    static func appendedFields() throws -> [String] {
        let header = try String(contentsOfFile: root.appendingPathComponent("Sources/CImagePipePlugin/include/imagepipe_plugin.h").path,
                                encoding: .utf8)
        let start = try #require(header.range(of: "typedef struct imagepipe_plugin {")), end = try #require(header.range(of: "} imagepipe_plugin;"))
        let body = String(header[start.upperBound..<end.lowerBound]).replacing(try Regex(#"/\*(.|\n)*?\*/"#), with: "")
        let fields = body.matches(of: try Regex(#"\(\*(\w+)\)"#)).map { String($0.output[1].substring!) }
        let last = try #require(fields.firstIndex(of: "free_string"))
        return Array(fields[(last + 1)...])
    }

    static let numberWords = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                              "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
                              "twenty-one", "twenty-two", "twenty-three", "twenty-four", "twenty-five"]

    /// Each count of appended fields a document states ("eighteen fields appended", "fills all
    /// eighteen"), as numbers.
    static func statedCounts(in path: String) throws -> [Int] {
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\n", with: " ").lowercased()
        let phrases = try [#"([a-z-]+) fields (?:were )?appended"#, #"fills all ([a-z-]+)"#].map { try Regex($0) }
        return phrases.flatMap { text.matches(of: $0) }.map { match in
            let word = String(match.output[1].substring!)
            return (numberWords.firstIndex(of: word) ?? -1) + 1
        }
    }

    @Test func theDocumentsCountTheAppendedFieldsRight() throws {
        let fields = try Self.appendedFields()
        #expect(fields.first == "notes" && fields.count >= 18, "\(fields)")
        for path in [Self.guide, Self.extending] {
            let counts = try Self.statedCounts(in: path)
            #expect(!counts.isEmpty, "\(path) states no count of appended fields")
            #expect(counts.allSatisfy { $0 == fields.count }, "\(path) states \(counts); the header appends \(fields.count)")
        }
        let guide = try String(contentsOfFile: Self.guide, encoding: .utf8)
        for field in fields {
            #expect(guide.contains("`\(field)`"), "the guide does not describe \(field)")
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
