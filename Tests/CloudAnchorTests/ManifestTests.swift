import Foundation
import XCTest
@testable import CloudAnchor

/// The manifest's encoding: canonical, byte-exact names, and every damage detected.
final class ManifestTests: XCTestCase {
    private func sample() throws -> Manifest {
        try Manifest(entries: [
            .folder(path: "d"), .folder(path: "d/empty"),
            .file(path: "d/caf\u{E9}.txt", size: 3, sha256: ContentHash.sha256(Data("abc".utf8))),
            .file(path: "d/cafe\u{301}.txt", size: 0, sha256: ContentHash.sha256(Data())),
            .file(path: "name with spaces %25 and\nnewline", size: 1, sha256: String(repeating: "a", count: 64)),
            .link(path: "d/up", target: ".."), .link(path: "abs", target: "/etc/passwd"),
        ])
    }

    func testARoundTripKeepsEveryEntryByteForByteAndTheEncodingIsCanonical() throws {
        let manifest = try sample()
        let decoded = try Manifest(decoding: manifest.encoded())
        XCTAssertEqual(decoded.entries.map { Array($0.path.utf8) }, manifest.entries.map { Array($0.path.utf8) })
        XCTAssertEqual(decoded.encoded(), manifest.encoded())
        XCTAssertEqual(decoded.files.count, 3, "NFC and NFD spellings are two files")
        let shuffled = try Manifest(entries: manifest.entries.reversed())
        XCTAssertEqual(shuffled.encoded(), manifest.encoded(), "the same entries give the same bytes")
    }

    func testRejectEveryTruncationEveryFlippedBitAndGarbage() throws {
        let bytes = try sample().encoded()
        for length in 0..<bytes.count {
            XCTAssertThrowsError(try Manifest(decoding: bytes.prefix(length)), "truncated to \(length) bytes")
        }
        for offset in 0..<bytes.count {
            var flipped = bytes
            flipped[offset] ^= 0x04
            XCTAssertThrowsError(try Manifest(decoding: flipped), "a bit flipped at \(offset)")
        }
        for garbage in ["", "\n", "[]", "cloudanchor-manifest 2\nend \n"] {
            XCTAssertThrowsError(try Manifest(decoding: Data(garbage.utf8)), "garbage \(garbage.debugDescription)")
        }
    }

    func testRejectAManifestWhoseHashLineMatchesButWhoseEntriesBreakTheInvariant() {
        func sealed(_ body: String) -> Data {
            let data = Data(("cloudanchor-manifest 2\n" + body).utf8)
            return data + Data("end \(ContentHash.sha256(data))\n".utf8)
        }
        let hash = String(repeating: "b", count: 64)
        let cases = [
            "f 1 \(hash) a/b\n": "a file whose folder is not listed",
            "d a\nf 1 \(hash) a\n": "two entries at one path",
            "f 1 \(hash) b\nf 1 \(hash) a\n": "entries out of order",
            "l x a\nd a\n": "out of order and a folder below a link",
            "f 1 \(hash) ..\n": "a path that leaves the folder",
            "f 01 \(hash) a\n": "a size that is not canonical",
            "f 1 \(hash.uppercased()) a\n": "a hash that is not lowercase hex",
            "d %2e\n": "a lowercase escape",
            "d %FF\n": "bytes that are not UTF-8",
            "d %61\n": "an escape where none is needed",
        ]
        for (body, why) in cases {
            XCTAssertThrowsError(try Manifest(decoding: sealed(body)), why)
        }
        XCTAssertNoThrow(try Manifest(decoding: sealed("d a\nf 1 \(hash) a/b\n")), "the sealing helper itself")
    }
}
