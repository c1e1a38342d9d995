import ImagePipe
import ImagePipeCommand

/// What the ledger fuzzer checks for any bytes, read as a ledger by `imagepipe report`: reading
/// never crashes, hangs or takes memory a number in the file asks for; a refused ledger says why;
/// the text report holds no control character but its line feeds (nothing a terminal would obey);
/// and the --json report is one valid JSON object.
///
/// A first line that is a ledger's name (`shard-3-of-7.jsonl`) names the file and the rest is its
/// contents, so the names are fuzzed too; otherwise all of it is `shard-1-of-2.jsonl`.
public enum LedgerFuzzCheck {
    /// --json's lists are cut here (the command's limit is 10 million): the same code, quicker.
    static let listLimit = 1000

    /// Checks one input; a broken promise stops the process (so libFuzzer reports it).
    public static func check(_ bytes: UnsafeBufferPointer<UInt8>) {
        var name = "shard-1-of-2.jsonl"
        var contents = Array(bytes)
        if let cut = contents.firstIndex(of: UInt8(ascii: "\n")), let first = String(validating: contents[..<cut], as: UTF8.self),
           first.hasPrefix("shard-"), first.hasSuffix(".jsonl") {
            name = first
            contents = Array(contents[(cut + 1)...])
        }
        for json in [false, true] {
            var output: [UInt8] = []
            let (status, error) = ImagePipeCommand.reportLedger(named: name, bytes: contents, json: json, listLimit: listLimit) { output += $0.utf8 }
            if let error {
                precondition(status == 2 && !error.isEmpty, "a refusal without a reason")
                continue
            }
            precondition(status == 0 || status == 1, "exit status \(status)")
            let text = String(decoding: output, as: UTF8.self)
            if json {
                precondition(text.hasSuffix("}\n") && JSONValue.parse(text)?.objectKeys != nil, "the --json report is not one JSON object: \(text.prefix(200).debugDescription)")
            } else {
                precondition(!text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) },
                             "a control character in the text report: \(text.prefix(200).debugDescription)")
            }
        }
    }
}
