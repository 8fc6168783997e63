import SyncKernel
import XCTest

final class MerkleDigestTests: XCTestCase {
    private func leafHash(_ byte: UInt8) -> [UInt8] { SHA256.hash(domain: Array("leaf".utf8), [byte]) }

    func testOneLeafIsItsOwnRootAndAnOddNodeIsPromotedUnchanged() {
        let (a, b, c) = (leafHash(1), leafHash(2), leafHash(3))
        XCTAssertEqual(MerkleTree.root([a]), a)
        let ab = SHA256.hash(domain: MerkleTree.nodeDomain, a, b)
        XCTAssertEqual(MerkleTree.root([a, b]), ab)
        XCTAssertEqual(MerkleTree.root([a, b, c]), SHA256.hash(domain: MerkleTree.nodeDomain, ab, c))
        XCTAssertEqual(MerkleTree.root([[UInt8]]()), MerkleTree.emptyRoot)
    }

    func testDomainSeparationKeepsLeavesAndNodesApart() {
        XCTAssertNotEqual(SHA256.hash(domain: Array("a".utf8), [0x62]), SHA256.hash(domain: Array("ab".utf8)))
        XCTAssertNotEqual(SHA256.hash(domain: MerkleTree.nodeDomain, [1, 2]), SHA256.hash(domain: RecordNamespace.leafDomain, [1, 2]))
    }

    func testEqualContentGivesByteIdenticalDigestsWhateverTheWriteOrder() throws {
        let world = try TestWorld()
        let first = try world.store(device: 0)
        let second = try world.store(device: 1)
        let rows = (0..<50).map { RecordNamespace.Row(id: "r\($0)", value: "v\($0)", updatedAt: 10) }
        try first.write(RecordNamespace.self) { tx throws(SyncKernelError) in for row in rows { try tx.save(row) } }
        try second.write(RecordNamespace.self) { tx throws(SyncKernelError) in for row in rows.reversed() { try tx.save(row) } }
        XCTAssertEqual(first.stateDigest().encoded(), second.stateDigest().encoded())
        XCTAssertEqual(first.stateDigest().encoded().count, 1 + StateDigest.setHashRootBytes, "a set-hash digest: the layout byte and one root")
    }

    func testAChangeInAnExcludedFieldLeavesTheRootUnchanged() throws {
        let world = try TestWorld()
        let store = try world.store()
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(.init(id: "a", value: "x", updatedAt: 1, observedBy: "phone"))
        }
        let before = store.stateDigest()
        let outcome = try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(.init(id: "a", value: "x", updatedAt: 1, observedBy: "laptop"))
        }
        XCTAssertEqual(store.stateDigest(), before)
        XCTAssertTrue(outcome.changedNamespaces.isEmpty, "an excluded-field write must not dirty the state")
        XCTAssertEqual(outcome.rowsWritten, 1)
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(.init(id: "a", value: "y", updatedAt: 1, observedBy: "laptop"))
        }
        XCTAssertNotEqual(store.stateDigest(), before)
    }

    func testDigestRoundTripsAndNamesDivergentNamespaces() throws {
        let world = try TestWorld()
        let namespaces: [any SyncNamespace.Type] = [RecordNamespace.self, StormyNamespace.self]
        let first = try world.store(namespaces)
        let second = try world.store(namespaces, device: 1)
        try first.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(.init(id: "a", value: "x", updatedAt: 1)) }
        let digest = first.stateDigest()
        XCTAssertEqual(digest.namespaces, ["records", "stormy"])
        let decoded = try StateDigest(decoding: digest.encoded(), expecting: first.namespaces.schema,
                                      namespaces: first.namespaces.names)
        XCTAssertEqual(decoded, digest)
        XCTAssertEqual(second.stateDigest().divergentNamespaces(from: digest), ["records"])
        XCTAssertEqual(digest.divergentNamespaces(from: digest), [])
    }

    func testRejectDigestOfAnotherSchemaLayoutOrLength() throws {
        let records = try NamespaceSet([RecordNamespace.self])
        let both = try NamespaceSet([RecordNamespace.self, StormyNamespace.self])
        let digest = StateDigest(schema: both.schema, namespaces: both.names, roots: [MerkleTree.emptyRoot, MerkleTree.emptyRoot])
        func code(_ bytes: [UInt8], _ set: NamespaceSet) -> SyncKernelError.Code? {
            do {
                _ = try StateDigest(decoding: bytes, expecting: set.schema, namespaces: set.names)
                return nil
            } catch {
                return error.code
            }
        }
        XCTAssertEqual(code(digest.encoded(), records), .schemaMismatch)
        for retiredOrUnknown: UInt8 in [0, 2, 4] {
            XCTAssertEqual(code([retiredOrUnknown] + digest.encoded().dropFirst(), both), .unsupportedLayout, "layout \(retiredOrUnknown)")
        }
        let setHash = StateDigest(layout: .setHash, schema: both.schema, namespaces: both.names, roots: digest.roots)
        XCTAssertEqual(setHash.encoded().count, 1 + StateDigest.setHashRootBytes * 2, "layout 3 names no schema: the frame does")
        XCTAssertEqual(setHash.roots, digest.roots.map { Array($0.prefix(StateDigest.setHashRootBytes)) })
        XCTAssertEqual(StateDigest(layout: .setHash, schema: both.schema, namespaces: both.names, roots: setHash.roots), setHash,
                       "a set-hash digest takes roots already cut")
        XCTAssertEqual(try StateDigest(decoding: setHash.encoded(), expecting: both.schema, namespaces: both.names), setHash)
        XCTAssertNil(StateDigest.claimedSchema(of: setHash.encoded()))
        XCTAssertEqual(code(Array(setHash.encoded().dropLast()), both), .malformedDigest)
        XCTAssertEqual(code(Array(digest.encoded().dropLast()), both), .malformedDigest)
        XCTAssertEqual(code([1, 2, 3], both), .malformedDigest)
        XCTAssertNil(code(digest.encoded(), both))
    }

    func testSchemaFingerprintMovesWithTheNamespaceSet() throws {
        let base = try NamespaceSet([RecordNamespace.self]).schema
        XCTAssertEqual(base, try NamespaceSet([RecordNamespace.self]).schema)
        XCTAssertNotEqual(base, try NamespaceSet([RecordNamespace.self, StormyNamespace.self]).schema)
        XCTAssertEqual(try NamespaceSet([StormyNamespace.self, RecordNamespace.self]).schema,
                       try NamespaceSet([RecordNamespace.self, StormyNamespace.self]).schema)
    }

    func testRejectDuplicateNamespaces() {
        XCTAssertThrowsError(try NamespaceSet([RecordNamespace.self, RecordNamespace.self])) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .duplicateNamespace)
        }
    }
}
