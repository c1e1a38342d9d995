import Testing
@testable import ImagePipeCommand

/// The address rules of served origins (imgproxy's): each kind by its bytes, IPv4 written in
/// IPv6 as its IPv4 address, and what the policy refuses unless allowed.
@Suite struct OriginAddressTests {
    private func v6(_ groups: [UInt16]) -> [UInt8] { groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }

    @Test func eachKindByItsBytes() {
        let cases: [([UInt8], OriginAddress)] = [
            ([127, 0, 0, 1], .loopback), ([127, 255, 3, 4], .loopback),
            ([10, 1, 2, 3], .privateNetwork), ([172, 16, 0, 1], .privateNetwork), ([172, 31, 255, 255], .privateNetwork),
            ([192, 168, 1, 1], .privateNetwork), ([172, 32, 0, 1], .global), ([172, 15, 0, 1], .global),
            ([169, 254, 169, 254], .linkLocal), ([0, 0, 0, 0], .unroutable), ([224, 0, 0, 1], .unroutable),
            ([255, 255, 255, 255], .unroutable), ([93, 184, 216, 34], .global), ([8, 8, 8, 8], .global),
            (v6([0, 0, 0, 0, 0, 0, 0, 1]), .loopback), (v6([0, 0, 0, 0, 0, 0, 0, 0]), .unroutable),
            (v6([0xFE80, 0, 0, 0, 0, 0, 0, 1]), .linkLocal), (v6([0xFEBF, 0, 0, 0, 0, 0, 0, 1]), .linkLocal),
            (v6([0xFC00, 0, 0, 0, 0, 0, 0, 1]), .privateNetwork), (v6([0xFD12, 0x3456, 0, 0, 0, 0, 0, 1]), .privateNetwork),
            (v6([0xFF02, 0, 0, 0, 0, 0, 0, 1]), .unroutable), (v6([0x2606, 0x4700, 0, 0, 0, 0, 0, 0x1111]), .global),
            // IPv4 written in IPv6: its IPv4 address's kind, or a loopback would pass as global.
            (v6([0, 0, 0, 0, 0, 0xFFFF, 0x7F00, 0x0001]), .loopback), (v6([0, 0, 0, 0, 0, 0xFFFF, 0x0A00, 0x0001]), .privateNetwork),
            (v6([0, 0, 0, 0, 0, 0xFFFF, 0x0808, 0x0808]), .global),
        ]
        for (bytes, kind) in cases { #expect(OriginAddress(bytes: bytes) == kind, "\(bytes)") }
        #expect(OriginAddress(bytes: [1, 2, 3]) == .unroutable)
    }

    @Test func thePolicyRefusesWhatItIsNotToldToAllow() {
        var policy = OriginPolicy(prefixes: ["https://images.example.com/"])
        #expect(policy.permits("https://images.example.com/a.jpg"))
        #expect(!policy.permits("https://images.example.com.evil.net/a.jpg") && !policy.permits("http://images.example.com/a.jpg"))
        #expect(!policy.permits("file:///etc/passwd") && !policy.permits("ftp://images.example.com/a.jpg"))
        #expect(policy.refusal(of: .global) == nil)
        for kind in [OriginAddress.loopback, .privateNetwork, .linkLocal, .unroutable] { #expect(policy.refusal(of: kind) != nil) }
        #expect(policy.refusal(of: .loopback)?.contains("--allow-loopback-origins") == true)
        policy.allowsLoopback = true
        policy.allowsPrivate = true
        policy.allowsLinkLocal = true
        #expect([OriginAddress.loopback, .privateNetwork, .linkLocal].allSatisfy { policy.refusal(of: $0) == nil })
        #expect(policy.refusal(of: .unroutable) != nil)
    }
}
