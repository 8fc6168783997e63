import NotebookNamespace
@testable import SnapshotTransfer
import SyncKernel
import SyncKernelSimulator
import XCTest

/// Seeded mutants of every input from outside (transfer messages, sealed blobs, snapshot
/// plaintext): each is refused with a typed error or accepted, never a trap; an accepted message
/// is canonical (it re-encodes to its own bytes), an accepted blob is the one sealed, and a store
/// fed mutated snapshots stays consistent.
final class MutantTests: XCTestCase {
    /// A mutant of `bytes`: a flipped byte, a byte set, a cut, an inserted or a removed byte.
    private static func mutate(_ bytes: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        var out = bytes
        switch random.next() % 5 {
        case 0 where !out.isEmpty:
            out[Int(random.next() % UInt64(out.count))] ^= UInt8(1 << (random.next() % 8))
        case 1 where !out.isEmpty:
            out[Int(random.next() % UInt64(out.count))] = UInt8(truncatingIfNeeded: random.next())
        case 2:
            out = Array(out.prefix(Int(random.next() % UInt64(out.count + 1))))
        case 3:
            out.insert(UInt8(truncatingIfNeeded: random.next()), at: Int(random.next() % UInt64(out.count + 1)))
        default:
            if !out.isEmpty { out.remove(at: Int(random.next() % UInt64(out.count))) }
        }
        return out
    }

    func testMutatedMessagesAreRefusedOrCanonical() async throws {
        let seed: UInt64 = 61
        var random = SeededGenerator(seed: seed)
        let originals = try TransferMessageTests.messages().map { $0.1.encoded() }
        var accepted = 0
        for round in 0..<5_000 {
            let original = originals[round % originals.count]
            var mutant = Self.mutate(original, &random)
            if random.next() % 3 == 0 { mutant = Self.mutate(mutant, &random) }
            do {
                let message = try TransferMessage(decoding: mutant)
                accepted += 1
                XCTAssertEqual(message.encoded(), mutant, "seed \(seed) round \(round): an accepted message is canonical")
            } catch {
                XCTAssertTrue(error is any StableError, "seed \(seed) round \(round): refused with a typed error, not \(error)")
            }
        }
        XCTAssertGreaterThan(accepted, 0, "some mutants (another id, key or hash) are still messages")
        XCTAssertLessThan(accepted, 5_000)
    }

    func testMutatedBlobsNeverOpenToOtherBytes() async throws {
        let seed: UInt64 = 62
        var random = SeededGenerator(seed: seed)
        for algorithm in SealingAlgorithm.allCases {
            let sealed = try SealingTests.seal(SealingTests.plaintext, algorithm)
            for round in 0..<300 {
                let mutant = Self.mutate(sealed, &random)
                guard mutant != sealed else { continue }
                XCTAssertThrowsError(try SealingTests.open(mutant, algorithm), "seed \(seed) \(algorithm) round \(round)") { error in
                    XCTAssertEqual((error as? SnapshotTransferError)?.code, .snapshotUnauthentic, "seed \(seed) round \(round)")
                }
            }
        }
    }

    func testMutatedSnapshotsLeaveAConsistentStore() async throws {
        let seed: UInt64 = 63
        var random = SeededGenerator(seed: seed)
        let world = try SnapshotWorld(seed: seed)
        let source = try world.richNotebook("source", rows: 120)
        let plaintext = try SnapshotWorld.plaintext(of: source, pageKeys: 20).flatMap { $0 }
        let target = try world.store("target", device: 2)
        var refused = 0
        for round in 0..<150 {
            let mutant = Self.mutate(plaintext, &random)
            var importer = SnapshotImporter(store: target, account: SnapshotWorld.account, rowsPerTransaction: 7)
            do {
                try await importer.consume(mutant)
                _ = try await importer.finish()
            } catch {
                XCTAssertTrue(error is any StableError, "seed \(seed) round \(round): refused with a typed error, not \(error)")
                refused += 1
            }
            try target.verifyStructures()
        }
        XCTAssertGreaterThan(refused, 0)
        let outcome = try await SnapshotWorld.importPlaintext([plaintext], into: target)
        XCTAssertEqual(outcome.keysRefused, 0)
        try target.verifyStructures()
    }
}
