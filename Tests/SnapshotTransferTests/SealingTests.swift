@testable import SnapshotTransfer
import SyncKernel
import XCTest

/// The chunked AEAD: golden blobs written from the format's description with another library
/// (`Fixtures/sealed`, Python's `cryptography` and a hand-written HChaCha20), and every way a
/// blob can be altered, cut, reordered or extended failing to open.
final class SealingTests: XCTestCase {
    static let key = Array(UInt8(0)..<32)
    static let plaintext = (0..<3_000).map { UInt8(truncatingIfNeeded: $0 * 7) }

    static func nonce(_ algorithm: SealingAlgorithm) -> [UInt8] {
        Array(UInt8(0xb0)..<UInt8(0xb0 + algorithm.nonceBytes))
    }

    static func seal(_ plaintext: [UInt8], _ algorithm: SealingAlgorithm, chunkBytes: Int = 1_024,
                     pieceBytes: Int = 700) throws -> [UInt8] {
        let cipher = try SnapshotCipher(algorithm: algorithm, key: key, nonce: nonce(algorithm))
        var sealer = try SnapshotSealer(plaintext: PieceSource(plaintext, pieceBytes: pieceBytes), cipher: cipher, chunkBytes: chunkBytes)
        let sealed = try PieceSource.drain(&sealer)
        XCTAssertEqual(sealer.size, Int64(sealed.count))
        var hash = StreamingSHA256()
        hash.update(sealed)
        XCTAssertEqual(sealer.sha256, hash.finish(), "the sealer hashes exactly what it yields")
        return sealed
    }

    static func open(_ sealed: [UInt8], _ algorithm: SealingAlgorithm, size: Int64? = nil, pieceBytes: Int = 500) throws -> [UInt8] {
        let cipher = try SnapshotCipher(algorithm: algorithm, key: key, nonce: nonce(algorithm))
        var opener = SnapshotOpener(sealed: PieceSource(sealed, pieceBytes: pieceBytes), size: size ?? Int64(sealed.count), cipher: cipher)
        return try PieceSource.drain(&opener)
    }

    func testBothAlgorithmsSealToTheirGoldenBlobs() throws {
        for (name, algorithm) in [("aes256gcm", SealingAlgorithm.aes256GCM), ("xchacha20poly1305", .xChaCha20Poly1305)] {
            XCTAssertEqual(try Fixture.bytes("sealed/\(name)", label: "nonce"), Self.nonce(algorithm))
            let golden = try Fixture.bytes("sealed/\(name)")
            XCTAssertEqual(try Self.seal(Self.plaintext, algorithm), golden, name)
            XCTAssertEqual(try Self.open(golden, algorithm), Self.plaintext, name)
        }
    }

    func testEverySizeAroundTheChunkBoundariesRoundTrips() throws {
        for algorithm in SealingAlgorithm.allCases {
            for length in [1, 2, 1_023, 1_024, 1_025, 2_047, 2_048, 2_049, 5_000] {
                let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 5) }
                let sealed = try Self.seal(plaintext, algorithm, pieceBytes: 333)
                let chunks = (length + 1_023) / 1_024
                XCTAssertEqual(sealed.count, SealedBlobFormat.headerBytes + length + 16 * chunks, "\(algorithm) \(length)")
                XCTAssertEqual(try Self.open(sealed, algorithm, pieceBytes: 77), plaintext, "\(algorithm) \(length)")
            }
        }
    }

    func testRejectEveryAlteredByte() throws {
        for algorithm in SealingAlgorithm.allCases {
            let sealed = try Fixture.bytes("sealed/\(algorithm == .aes256GCM ? "aes256gcm" : "xchacha20poly1305")")
            for index in stride(from: 0, to: sealed.count, by: 37) + [sealed.count - 1] {
                var altered = sealed
                altered[index] ^= 0x01
                XCTAssertThrowsError(try Self.open(altered, algorithm), "\(algorithm) byte \(index)") { error in
                    XCTAssertEqual((error as? SnapshotTransferError)?.code, .snapshotUnauthentic, "\(algorithm) byte \(index)")
                }
            }
        }
    }

    func testRejectATruncatedReorderedOrExtendedBlob() throws {
        let algorithm = SealingAlgorithm.xChaCha20Poly1305
        let sealed = try Fixture.bytes("sealed/xchacha20poly1305")
        let header = Array(sealed.prefix(12))
        let chunks = [Array(sealed[12..<1_052]), Array(sealed[1_052..<2_092]), Array(sealed[2_092...])]
        let cases: [(String, [UInt8], Int64?)] = [
            ("the last chunk dropped", header + chunks[0] + chunks[1], nil),
            ("cut inside the last chunk", Array(sealed.dropLast(100)), nil),
            ("cut, claiming the full size", Array(sealed.dropLast(100)), Int64(sealed.count)),
            ("two chunks swapped", header + chunks[1] + chunks[0] + chunks[2], nil),
            ("a chunk repeated", header + chunks[0] + chunks[0] + chunks[2], nil),
            ("a chunk appended", sealed + chunks[1], nil),
            ("a byte appended, size as sealed", sealed + [0], Int64(sealed.count)),
            ("only the header", header, nil),
            ("the header of the other algorithm", [header[0], header[1], header[2], header[3], 1, 2] + Array(sealed.dropFirst(6)), nil),
        ]
        for (name, bytes, size) in cases {
            XCTAssertThrowsError(try Self.open(bytes, algorithm, size: size), name) { error in
                XCTAssertEqual((error as? SnapshotTransferError)?.code, .snapshotUnauthentic, name)
            }
        }
        XCTAssertThrowsError(try Self.open(sealed, .aes256GCM), "opened with the other algorithm")
    }

    func testRejectAnotherKeyOrNonce() throws {
        let sealed = try Fixture.bytes("sealed/aes256gcm")
        for (key, nonce) in [(Array(UInt8(1)...32), SealingTests.nonce(.aes256GCM)), (SealingTests.key, Array(UInt8(0xb1)..<0xbd))] {
            let cipher = try SnapshotCipher(algorithm: .aes256GCM, key: key, nonce: nonce)
            var opener = SnapshotOpener(sealed: PieceSource(sealed, pieceBytes: 4_096), size: Int64(sealed.count), cipher: cipher)
            XCTAssertThrowsError(try PieceSource.drain(&opener))
        }
    }

    func testRejectChunkSizesAndLayoutsOutsideTheBounds() throws {
        let cipher = try SnapshotCipher(algorithm: .aes256GCM, key: Self.key, nonce: Self.nonce(.aes256GCM))
        XCTAssertThrowsError(try SnapshotSealer(plaintext: PieceSource([[1]]), cipher: cipher, chunkBytes: 1_023))
        XCTAssertThrowsError(try SnapshotSealer(plaintext: PieceSource([[1]]), cipher: cipher, chunkBytes: (4 << 20) + 1))
        for chunk in [0, 1_023, (4 << 20) + 1, Int(UInt32.max)] {
            var header = SealedBlobFormat.header(algorithm: .aes256GCM, chunkBytes: 1_024)
            header[8..<12] = ArraySlice([UInt8(truncatingIfNeeded: chunk >> 24), UInt8(truncatingIfNeeded: chunk >> 16),
                                         UInt8(truncatingIfNeeded: chunk >> 8), UInt8(truncatingIfNeeded: chunk)])
            XCTAssertThrowsError(try SealedBlobFormat.chunkBytes(ofHeader: header, algorithm: .aes256GCM), "\(chunk)")
        }
        XCTAssertThrowsError(try SealedBlobFormat.layout(size: 28, chunkBytes: 1_024), "no room for a chunk")
        XCTAssertThrowsError(try SealedBlobFormat.layout(size: 12 + 1_040 + 16, chunkBytes: 1_024), "an empty last chunk")
        XCTAssertEqual(try SealedBlobFormat.layout(size: 12 + 1_040 + 17, chunkBytes: 1_024).chunks, 2)
        var empty = try SnapshotSealer(plaintext: PieceSource([]), cipher: cipher, chunkBytes: 1_024)
        XCTAssertThrowsError(try PieceSource.drain(&empty), "an empty plaintext is never sealed")
        XCTAssertThrowsError(try SnapshotCipher(algorithm: .aes256GCM, key: Self.key, nonce: Self.nonce(.xChaCha20Poly1305)))
        XCTAssertThrowsError(try SnapshotCipher(algorithm: .xChaCha20Poly1305, key: Array(Self.key.dropLast()), nonce: Self.nonce(.xChaCha20Poly1305)))
    }

    func testChunkNoncesDifferInTheirLastEightBytesOnly() {
        let base = [UInt8](repeating: 0xff, count: 24)
        XCTAssertEqual(SealedBlobFormat.nonce(base, index: 0), base)
        XCTAssertEqual(SealedBlobFormat.nonce(base, index: 0x0102), Array(repeating: 0xff, count: 22) + [0xfe, 0xfd])
        XCTAssertEqual(Set((0..<1_000).map { SealedBlobFormat.nonce(base, index: Int64($0)) }).count, 1_000)
    }

    func testTheCipherNeverShowsItsKey() throws {
        let cipher = try SnapshotCipher(algorithm: .aes256GCM, key: Self.key, nonce: Self.nonce(.aes256GCM))
        var dumped = ""
        dump(cipher, to: &dumped)
        for rendering in ["\(cipher)", String(reflecting: cipher), dumped] {
            XCTAssertFalse(rendering.contains("000102030405"), rendering)
        }
    }
}
