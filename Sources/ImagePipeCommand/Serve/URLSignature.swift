import CSoup

/// imgproxy's URL signatures: HMAC-SHA256 with `key` over `salt` followed by the path after the
/// signature, in URL-safe base64 without padding, cut to `size` bytes of the digest when asked
/// (imgproxy's `IMGPROXY_SIGNATURE_SIZE`). A URL written for an imgproxy with the same key and
/// salt is signed for this server too.
struct URLSignature: Sendable {
    let key: [UInt8]
    let salt: [UInt8]
    /// Digest bytes a signature carries, 8 to 32.
    let size: Int

    /// The signature of `path` (from the `/` after the signature segment).
    func sign(_ path: String) -> String {
        Self.base64URL(Array(digest(of: path).prefix(size)))
    }

    /// Whether `signature` signs `path`, compared in time that does not depend on where they
    /// differ, so that a signature cannot be found byte by byte from response times.
    func verifies(_ signature: String, for path: String) -> Bool {
        let expected = Array(sign(path).utf8), given = Array(signature.utf8)
        var difference = UInt8(expected.count == given.count ? 0 : 1)
        for index in 0..<expected.count { difference |= expected[index] ^ (index < given.count ? given[index] : 0) }
        return difference == 0
    }

    private func digest(of path: String) -> [UInt8] {
        let hmac = key.withUnsafeBufferPointer { g_hmac_new(G_CHECKSUM_SHA256, $0.baseAddress, gsize($0.count)) }!
        defer { g_hmac_unref(hmac) }
        let message = salt + Array(path.utf8)
        message.withUnsafeBufferPointer { g_hmac_update(hmac, $0.baseAddress, gssize($0.count)) }
        var digest = [UInt8](repeating: 0, count: 32)
        var length = gsize(32)
        digest.withUnsafeMutableBufferPointer { g_hmac_get_digest(hmac, $0.baseAddress, &length) }
        return digest
    }

    /// Bytes from hexadecimal text (imgproxy's `IMGPROXY_KEY` form), or nil.
    static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 48...57: digit - 48
            case 97...102: digit - 87
            case 65...70: digit - 55
            default: nil
            }
        }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// URL-safe base64 (RFC 4648 §5) without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for position in 0...chunk.count { out.append(alphabet[(value >> (18 - 6 * position)) & 63]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
