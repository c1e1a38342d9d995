/// Why the editor refuses what a page sent: answered 400 with this message.
struct EditRequestError: Error, Sendable {
    let message: String

    init(_ message: String) { self.message = message }
}
