import SyncKernel
import SyncKernelSimulator
import XCTest

final class VersionVectorTests: XCTestCase {
    private let a = TestWorld.device(0)
    private let b = TestWorld.device(1)
    private let c = TestWorld.device(2)

    func testRelationHasFourOutcomes() {
        let base = VersionVector([a: 1])
        XCTAssertEqual(VersionVector([a: 1, b: 1]).relation(to: base), .dominates)
        XCTAssertEqual(base.relation(to: VersionVector([a: 1, b: 1])), .dominated)
        XCTAssertEqual(base.relation(to: VersionVector([a: 1])), .equal)
        XCTAssertEqual(VersionVector([b: 1]).relation(to: base), .concurrent)
        XCTAssertEqual(VersionVector().relation(to: base), .dominated)
        XCTAssertEqual(VersionVector([a: 0]), VersionVector(), "a zero counter is the same as a missing one")
    }

    func testMergeIsCommutativeAssociativeIdempotentAndDominatesBothInputs() {
        var random = SeededGenerator(seed: 2024)
        func randomVector() -> VersionVector {
            VersionVector(Dictionary(uniqueKeysWithValues: [a, b, c].map { ($0, random.next() % 4) }))
        }
        for _ in 0..<500 {
            let (x, y, z) = (randomVector(), randomVector(), randomVector())
            XCTAssertEqual(x.merged(with: y), y.merged(with: x))
            XCTAssertEqual(x.merged(with: y).merged(with: z), x.merged(with: y.merged(with: z)))
            XCTAssertEqual(x.merged(with: x), x)
            XCTAssertTrue([.dominates, .equal].contains(x.merged(with: y).relation(to: x)))
            XCTAssertTrue([.dominates, .equal].contains(x.merged(with: y).relation(to: y)))
        }
    }

    func testVectorEncodingIsCanonicalAndRejectsZeroCounters() throws {
        let vector = VersionVector([b: 2, a: 300])
        XCTAssertEqual(try VersionVector(decoding: CBORReader.decode(vector.encoded())), vector)
        XCTAssertEqual(VersionVector([a: 300, b: 2]).encoded(), vector.encoded())
        var writer = CanonicalWriter()
        writer.writeMap { map in map.entry(bytesKey: a.publicKey) { $0.write(UInt64(0)) } }
        XCTAssertThrowsError(try VersionVector(decoding: CBORReader.decode(writer.bytes)))
    }

    func testResolveMergeFollowsCausalityThenAddWinsThenTheTieBreak() {
        func resolve(_ local: (VersionVector, Bool), _ incoming: (VersionVector, Bool), tie: Bool = false) -> MergeResolution.Winner {
            VersionVector.resolveMerge(local: MergeCandidate(vector: local.0, isLive: local.1),
                                       incoming: MergeCandidate(vector: incoming.0, isLive: incoming.1),
                                       incomingWinsTie: { tie }).winner
        }
        let older = VersionVector([a: 1])
        let newer = VersionVector([a: 1, b: 1])
        let fork = VersionVector([c: 1])
        XCTAssertEqual(resolve((newer, true), (older, true), tie: true), .local)
        XCTAssertEqual(resolve((older, true), (newer, false)), .incoming, "a causally later delete wins")
        XCTAssertEqual(resolve((newer, false), (older, true)), .local, "a stale row does not resurrect")
        XCTAssertEqual(resolve((fork, true), (older, false)), .local, "concurrent delete and edit: add wins")
        XCTAssertEqual(resolve((fork, false), (older, true)), .incoming, "concurrent delete and edit: add wins")
        XCTAssertEqual(resolve((fork, false), (older, false)), .local)
        XCTAssertEqual(resolve((fork, true), (older, true), tie: true), .incoming)
        XCTAssertEqual(resolve((fork, true), (older, true), tie: false), .local)
        XCTAssertEqual(resolve((older, true), (older, true), tie: true), .incoming, "equal vectors are a tie too")
        let merged = VersionVector.resolveMerge(local: MergeCandidate(vector: fork, isLive: true),
                                                incoming: MergeCandidate(vector: newer, isLive: true),
                                                incomingWinsTie: { false })
        XCTAssertEqual(merged.vector, VersionVector([a: 1, b: 1, c: 1]))
        XCTAssertEqual(merged.relation, .concurrent)
    }

    func testClockRefusesToBumpBeforeIdentityAndToChangeIdentity() throws {
        var clock = DeviceClock()
        XCTAssertThrowsError(try clock.bump(VersionVector())) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .deviceIdentityNotConfigured)
        }
        try clock.configure(a)
        try clock.configure(a)
        XCTAssertThrowsError(try clock.configure(b)) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .deviceIdentityAlreadyConfigured)
        }
        XCTAssertEqual(try clock.bump(VersionVector([b: 4])), VersionVector([a: 1, b: 4]))
        XCTAssertThrowsError(try DeviceID(publicKey: [1, 2, 3]))
    }

    func testUnconfiguredStoreRefusesCausalSavesAndWritesNothing() throws {
        let world = try TestWorld()
        let store = try world.store(device: nil)
        XCTAssertThrowsError(try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(.init(id: "a", value: "x", updatedAt: 1))
        }) { XCTAssertEqual(($0 as? SyncKernelError)?.code, .deviceIdentityNotConfigured) }
        XCTAssertEqual(try store.rows(RecordNamespace.self), [])
        XCTAssertEqual(store.stateDigest().roots, [Array(MerkleTree.emptyRoot.prefix(StateDigest.setHashRootBytes))])
    }
}
