import CSoup

/// Watches a message's connections (libsoup's `network-event`) and cancels the exchange when one
/// is made to an address the policy refuses: after DNS, so a name that resolved to an allowed
/// address for the check and to another for the connection (DNS rebinding) is caught, before
/// any byte of the request is sent.
final class ConnectionWatch: @unchecked Sendable {
    let policy: OriginPolicy
    let cancellable = g_cancellable_new()!
    /// Why a connection was refused, once one was.
    private(set) var refusal: String?

    init(policy: OriginPolicy) { self.policy = policy }

    deinit { g_object_unref(UnsafeMutableRawPointer(cancellable)) }

    func connect(to message: OpaquePointer) {
        typealias NetworkEvent = @convention(c) (OpaquePointer?, GSocketClientEvent, UnsafeMutablePointer<GIOStream>?, gpointer?) -> Void
        let event: NetworkEvent = { _, event, stream, context in
            guard event == G_SOCKET_CLIENT_CONNECTED, let stream, let context else { return }
            let watch = Unmanaged<ConnectionWatch>.fromOpaque(context).takeUnretainedValue()
            let connection = UnsafeMutableRawPointer(stream).assumingMemoryBound(to: GSocketConnection.self)
            guard let address = g_socket_connection_get_remote_address(connection, nil) else {
                watch.refuse("unknown")
                return
            }
            defer { g_object_unref(UnsafeMutableRawPointer(address)) }
            let inet = UnsafeMutableRawPointer(address).assumingMemoryBound(to: GInetSocketAddress.self)
            guard let host = g_inet_socket_address_get_address(inet), let bytes = g_inet_address_to_bytes(host) else {
                watch.refuse("unknown")
                return
            }
            let kind = OriginAddress(bytes: Array(UnsafeBufferPointer(start: bytes, count: Int(g_inet_address_get_native_size(host)))))
            if let refusal = watch.policy.refusal(of: kind) { watch.refuse(refusal) }
        }
        let context = Unmanaged.passRetained(self).toOpaque()
        let release: GClosureNotify = { context, _ in
            if let context { Unmanaged<ConnectionWatch>.fromOpaque(context).release() }
        }
        g_signal_connect_data(UnsafeMutableRawPointer(message), "network-event", unsafeBitCast(event, to: GCallback.self), context, release,
                              GConnectFlags(rawValue: 0))
    }

    private func refuse(_ reason: String) {
        refusal = reason
        g_cancellable_cancel(cancellable)
    }
}
