/// Why a served request fails: the HTTP status and a message for the client, which never holds
/// a path outside the root or anything of the server's inside.
struct ServeError: Error, Sendable {
    let status: UInt32
    let message: String

    init(_ status: UInt32, _ message: String) {
        self.status = status
        self.message = message
    }
}
