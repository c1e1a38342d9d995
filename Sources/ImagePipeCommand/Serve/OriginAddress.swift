/// The kind of network an address an origin connection goes to lies on, for the rules served
/// origins follow (imgproxy's): loopback, private and link-local addresses are refused unless
/// the server allows them, the unspecified and multicast ones always. Decided on the address a
/// connection is actually made to, after name resolution and on every redirect, so that neither
/// a name that resolves inward nor a redirect reaches the server's own network.
enum OriginAddress: Equatable, Sendable {
    case loopback
    /// RFC 1918's 10/8, 172.16/12 and 192.168/16; IPv6 unique local fc00::/7.
    case privateNetwork
    /// 169.254/16, fe80::/10.
    case linkLocal
    /// 0.0.0.0/8, ::, multicast and broadcast: never a picture's origin.
    case unroutable
    case global

    /// The kind of the IPv4 (4 bytes) or IPv6 (16 bytes) address `bytes`; an IPv4 address
    /// written in IPv6 (`::ffff:127.0.0.1`) is its IPv4 address's kind.
    init(bytes: [UInt8]) {
        if bytes.count == 16 {
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                self.init(bytes: Array(bytes[12...]))
                return
            }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) {
                self = bytes[15] == 1 ? .loopback : bytes[15] == 0 ? .unroutable : .global
            } else if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 {
                self = .linkLocal
            } else if bytes[0] & 0xFE == 0xFC {
                self = .privateNetwork
            } else if bytes[0] == 0xFF {
                self = .unroutable
            } else {
                self = .global
            }
            return
        }
        guard bytes.count == 4 else { self = .unroutable; return }
        switch (bytes[0], bytes[1]) {
        case (127, _): self = .loopback
        case (10, _), (172, 16...31), (192, 168): self = .privateNetwork
        case (169, 254): self = .linkLocal
        case (0, _), (224...255, _): self = .unroutable
        default: self = .global
        }
    }

    /// A few words for a refusal: which kind of address the origin led to.
    var name: String {
        switch self {
        case .loopback: "a loopback address"
        case .privateNetwork: "a private network's address"
        case .linkLocal: "a link-local address"
        case .unroutable: "an unspecified, multicast or broadcast address"
        case .global: "a public address"
        }
    }
}
