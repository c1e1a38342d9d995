/// How a `Batch` went: each input's outcome, in the inputs' order, and the counts.
public struct BatchResult: Sendable {
    /// One per input that ended, in the inputs' order. Inputs given up because the batch was
    /// cancelled are not here: they are neither done nor failed, and a resumed batch makes them.
    public let outcomes: [FileOutcome]
    /// Inputs whose outputs were written.
    public let written: Int
    /// Inputs that failed; each outcome's `error` says why.
    public let failed: Int
    /// Inputs passed over as done before (`Batch.resume`).
    public let skipped: Int
    /// Whether the batch was cancelled before every input ended.
    public let cancelled: Bool
    /// Why the ledger could not be written in full, if so: a ledger with holes would count
    /// inputs as missing.
    public let ledgerError: String?
    /// Why reading a list of inputs stopped early (the command's `--inputs-from`), if it did.
    package let listFailure: String?

    package init(written: Int, failed: Int, skipped: Int, outcomes: [FileOutcome], cancelled: Bool, ledgerError: String?, listFailure: String?) {
        (self.written, self.failed, self.skipped, self.outcomes) = (written, failed, skipped, outcomes)
        (self.cancelled, self.ledgerError, self.listFailure) = (cancelled, ledgerError, listFailure)
    }
}
