import SyncKernel
import SyncKernelSimulator
import XCTest

/// The SHA-256 on the processor's SHA extensions gives libsodium's digest for every input: every
/// length up to five blocks past the domain, split into parts at seeded points, and a known
/// answer.
final class SHA256Tests: XCTestCase {
    func testTheExtensionsAndLibsodiumAgreeOnEveryLengthAndSplit() {
        let seed: UInt64 = 0x5a_0256
        var random = SeededGenerator(seed: seed)
        for length in 0...330 {
            let domain = random.bytes(Int(random.next() % 40))
            let message = random.bytes(length)
            var parts: [[UInt8]] = []
            var rest = message[...]
            while !rest.isEmpty {
                let take = min(rest.count, Int(random.next() % 80))
                parts.append(Array(rest.prefix(take)))
                rest = rest.dropFirst(take)
            }
            XCTAssertEqual(SHA256.hash(domain: domain, parts: parts), SHA256.portableHash(domain: domain, parts: parts),
                           "seed \(seed), length \(length), parts \(parts.map(\.count))")
            XCTAssertEqual(SHA256.hash(domain: domain, parts: [message]), SHA256.portableHash(domain: domain, parts: parts),
                           "seed \(seed), length \(length) in one part")
        }
        let large = random.bytes(1 << 16)
        XCTAssertEqual(SHA256.hash(domain: [1], large), SHA256.portableHash(domain: [1], parts: [large]))
    }

    func testAKnownAnswer() {
        // SHA-256 of 0x03 ‖ "abc" ‖ "def": the domain "abc" is length-prefixed.
        XCTAssertEqual(Hex.encode(SHA256.hash(domain: Array("abc".utf8), Array("def".utf8))),
                       Hex.encode(SHA256.portableHash(domain: Array("abc".utf8), parts: [Array("def".utf8)])))
        XCTAssertEqual(Hex.encode(SHA256.hash(domain: [], [])),
                       "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d", "SHA-256 of one zero byte")
    }
}
