import ImagePipe

extension ImagePipeCommand {
    /// Reads `bytes` as the ledger file `name` and writes its report through `emit`, as `imagepipe report` does.
    ///
    /// For the ledger fuzzer: the same reading and writing as the command, from memory, with
    /// `listLimit` for --json's lists so that a case stays quick. Returns the exit status, or the
    /// message of the error that refused the ledger.
    public static func reportLedger(named name: String, bytes: [UInt8], json: Bool, listLimit: Int,
                                    emit: (String) -> Void) -> (status: Int32, error: String?) {
        do {
            let report = try LedgerReport(name: name, bytes: bytes)
            let total = try report.totalFromLedgers()
            return (try ReportCommand.write(report, total: total, names: [:], json: json, jsonListLimit: listLimit, emit: emit), nil)
        } catch {
            return (2, "\(error)")
        }
    }
}
