import CSQLite
import Foundation
import SyncKernel
import SyncKernelSimulator
import XCTest

/// Hostile peer values and damaged stored values on the kernel's receive and write paths: each
/// test feeds one value that used to trap (or could) and expects a typed error, or a harmless
/// outcome, and no change to rows, tombstones, versions and the digest.
final class HostileValueTests: XCTestCase {
    private typealias Row = RecordNamespace.Row
    private let a = TestWorld.device(0)
    private let b = TestWorld.device(1)
    private let c = TestWorld.device(2)

    /// A causal namespace whose tie-break refuses (throws) a pair holding the value "unordered".
    enum RefusingTieNamespace: SyncNamespace {
        struct Row: Sendable, Hashable {
            var id: String
            var value: String
            var updatedAt: Int64
        }

        static let name = "refusingTie"
        static let schema = RowSchema<Row>(blank: Row(id: "", value: "", updatedAt: 0), key: \.id, [
            .hashed("id", \.id, .text), .hashed("value", \.value, .text), .hashed("updatedAt", \.updatedAt, .int64),
        ])
        static let mergeRule = MergeRule<Row>.causal(changeStamp: \.updatedAt)

        static func incomingWinsTie(_ incoming: Row, over local: Row) throws(SyncKernelError) -> Bool {
            guard incoming.value != "unordered", local.value != "unordered" else {
                throw SyncKernelError(.namespaceRefused, "refusingTie: a value it cannot order")
            }
            return local.value < incoming.value
        }
    }

    /// Everything a refused value must leave as it was: rows, delete versions, the RowVersions of
    /// `keys`, the digest and the change counters.
    private struct Snapshot: Equatable {
        let rows: [Row]
        let tombstones: [Tombstone]
        let versions: [RowVersion?]
        let digest: [UInt8]
        let changes: [UInt64]
    }

    private func snapshot(_ store: KernelStore, keys: [String] = ["n", "m"]) throws -> Snapshot {
        Snapshot(rows: try store.rows(RecordNamespace.self), tombstones: try store.tombstones(namespace: RecordNamespace.name),
                 versions: try keys.map { try store.version(namespace: RecordNamespace.name, key: Array($0.utf8)) },
                 digest: store.encodedStateDigest(), changes: store.changeCounters())
    }

    /// Asserts `store` still holds `before` and its structures agree with its rows.
    private func assertUnchanged(_ store: KernelStore, _ before: Snapshot, _ message: String,
                                 file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try snapshot(store), before, message, file: file, line: line)
        XCTAssertNoThrow(try store.verifyStructures(), message, file: file, line: line)
        XCTAssertEqual(try store.recomputedStateDigest(), store.stateDigest(), message, file: file, line: line)
    }

    private func assertCode<T>(_ code: SyncKernelError.Code, _ message: String, file: StaticString = #filePath, line: UInt = #line,
                               _ body: () throws -> T) {
        XCTAssertThrowsError(try body(), message, file: file, line: line) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, code, "\(message): \($0)", file: file, line: line)
        }
    }

    private func save(_ row: Row, _ store: KernelStore) throws {
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(row) }
    }

    private func delete(_ id: String, _ store: KernelStore) throws {
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: Array(id.utf8)) }
    }

    private func bytes(_ row: Row) -> [UInt8] { RecordNamespace.rowEncoding(of: row) }

    /// The events `replica` reported since the last drain.
    private func events(_ replica: Replica) -> [ReplicaEvent] {
        replica.drainActions().compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    /// A reconcile_resp frame from the test account carrying `response`.
    private func frame(_ response: ReconcileResponse, _ store: KernelStore, world: TestWorld, compact: Bool) -> [UInt8] {
        SyncFrame(account: world.account, schema: store.namespaces.schema, body: .reconcileResponse(response),
                  compactVectors: compact).encoded()
    }

    // MARK: Finding 1: a counter the receiving device cannot bump

    /// The reproducer: a shipped row whose vector gives the receiving device `UInt64.max` used to
    /// be stored, and the next local edit trapped in `VersionVector.bump`. It is refused on
    /// receipt now: the frame does not decode, the replica reports why, nothing is stored.
    func testRejectAShippedVectorGivingThisDeviceUInt64MaxOnReceipt() throws {
        let world = try TestWorld()
        let store = try world.store(device: nil)
        let replica = try Replica(device: a, account: world.account, siblings: [a, b], store: store)
        try save(Row(id: "m", value: "mine", updatedAt: 1), store)
        let before = try snapshot(store)
        let hostile = ReconcileResponse(namespace: RecordNamespace.name,
                                        rows: [ShippedRow(row: bytes(Row(id: "n", value: "evil", updatedAt: 9)),
                                                          vector: VersionVector([a: .max, b: 1])),
                                               ShippedRow(row: bytes(Row(id: "o", value: "fine", updatedAt: 9)),
                                                          vector: VersionVector([a: 1, b: 1]))],
                                        tombstones: [])
        for compact in [false, true] {
            let encoded = frame(hostile, store, world: world, compact: compact)
            XCTAssertEqual(try CBORReader.decode(encoded)["devices"] != nil, compact, "the form under test")
            replica.receive(encoded, from: b, now: 0)
            XCTAssertEqual(events(replica), [.frameRefused(from: b, error: SyncKernelError(
                .counterOutOfRange, "a version-vector counter above VersionVector.maxCounter"))], "compact \(compact)")
            try assertUnchanged(store, before, "compact \(compact)")
        }
        assertCode(.counterOutOfRange, "apply without the frame decoder") { try store.apply(hostile) }
        try assertUnchanged(store, before, "apply")
        try save(Row(id: "m", value: "still editable", updatedAt: 2), store)
        XCTAssertEqual(try store.row(RecordNamespace.self, key: Array("m".utf8))?.value, "still editable")
    }

    /// Every vector a response carries is checked, in the spec's map form and against a compact
    /// device table: the row's vector, its content vector, a sibling's vector and a tombstone's.
    func testRejectCountersAboveTheBoundInEveryVectorOfAResponseInBothForms() throws {
        let world = try TestWorld()
        let store = try world.store(device: 0)
        try save(Row(id: "m", value: "mine", updatedAt: 1), store)
        let before = try snapshot(store)
        let over = VersionVector([a: VersionVector.maxCounter + 1, b: 2, c: 3])
        let fine = VersionVector([a: 1, b: 2, c: 3])
        let row = bytes(Row(id: "n", value: "x", updatedAt: 1))
        let sibling = bytes(Row(id: "n", value: "y", updatedAt: 1))
        let other = ShippedRow(row: bytes(Row(id: "o", value: "z", updatedAt: 1)), vector: fine)
        let cases: [(String, ReconcileResponse)] = [
            ("row vector", ReconcileResponse(namespace: RecordNamespace.name, rows: [ShippedRow(row: row, vector: over), other],
                                             tombstones: [])),
            ("content vector", ReconcileResponse(namespace: RecordNamespace.name,
                                                 rows: [ShippedRow(row: row, vector: fine, contentVector: over), other], tombstones: [])),
            ("sibling vector", ReconcileResponse(namespace: RecordNamespace.name,
                                                 rows: [ShippedRow(row: row, vector: fine, siblings: [ShippedRow(row: sibling, vector: over)]),
                                                        other], tombstones: [])),
            ("tombstone vector", ReconcileResponse(namespace: RecordNamespace.name, rows: [other],
                                                   tombstones: [Tombstone(key: Array("n".utf8), vector: over)])),
        ]
        for (label, response) in cases {
            for compact in [false, true] {
                let encoded = frame(response, store, world: world, compact: compact)
                XCTAssertEqual(try CBORReader.decode(encoded)["devices"] != nil, compact, "\(label): the form under test")
                assertCode(.counterOutOfRange, "\(label), compact \(compact)") { try SyncFrame(decoding: encoded) }
            }
            assertCode(.counterOutOfRange, "\(label): apply") { try store.apply(response) }
            try assertUnchanged(store, before, label)
        }
        let atBound = ReconcileResponse(namespace: RecordNamespace.name,
                                        rows: [ShippedRow(row: row, vector: VersionVector([b: VersionVector.maxCounter])), other],
                                        tombstones: [])
        for compact in [false, true] {
            XCTAssertNoThrow(try SyncFrame(decoding: frame(atBound, store, world: world, compact: compact)), "the bound itself is a valid counter")
        }
    }

    /// A compact device table's vector entry is bounded like a map entry.
    func testRejectACompactDeviceTableEntryAboveTheBound() throws {
        let table = try read(.array([a, b].sorted().map { .bytes($0.publicKey) })) { (cursor, budget) throws(SyncKernelError) in
            try DeviceTable(reading: &cursor, budget: &budget)
        }
        func vector(_ value: CBORValue, allowsOwn: Bool = false) throws -> VersionVector {
            try read(value) { (cursor, budget) throws(SyncKernelError) in try table.readVector(&cursor, allowsOwn: allowsOwn, budget: &budget) }
        }
        XCTAssertEqual(try vector(.array([.unsigned(0), .unsigned(VersionVector.maxCounter)])).counters.values.first,
                       VersionVector.maxCounter)
        for count in [VersionVector.maxCounter + 1, UInt64.max] {
            assertCode(.counterOutOfRange, "count \(count)") { try vector(.array([.unsigned(1), .unsigned(count)])) }
            assertCode(.counterOutOfRange, "own creation, count \(count)") {
                try vector(.array([.unsigned(2), .unsigned(count)]), allowsOwn: true)
            }
        }
        assertCode(.malformedFrame, "an index of UInt64.max") { try vector(.array([.unsigned(.max), .unsigned(1)])) }
    }

    /// Reads `value`'s encoding with `body` through a cursor and a fresh budget.
    private func read<T>(_ value: CBORValue,
                         _ body: (inout CBORCursor, inout DecodeBudget) throws(SyncKernelError) -> T) throws -> T {
        let bytes = value.encoded()
        var cursor = try CBORReader.cursor(over: bytes)
        var budget = DecodeBudget(inputBytes: bytes.count)
        return try body(&cursor, &budget)
    }

    /// A peer may hand this device a counter exactly at the bound (valid on the wire). Counting
    /// this device's own dimension past what the store held is evidence the store lost history,
    /// so the store takes a fresh epoch in the same apply: the next edit, delete, or save of a
    /// key deleted under the bound counts in the new dimension and succeeds, never a trap and
    /// never a counter past the bound.
    func testACounterAtTheBoundFromAPeerMovesTheStoreToAFreshEpochAndWritesGoOn() throws {
        let world = try TestWorld()
        let store = try world.store(device: 0)
        let atBound = VersionVector([a: VersionVector.maxCounter, b: 4])
        let outcome = try store.apply(ReconcileResponse(namespace: RecordNamespace.name,
                                          rows: [ShippedRow(row: bytes(Row(id: "n", value: "theirs", updatedAt: 3)), vector: atBound)],
                                          tombstones: [Tombstone(key: Array("m".utf8), vector: atBound)]))
        XCTAssertNotNil(outcome.epochChange, "the peer counted this device past the store: a fresh epoch")
        let dimension = try XCTUnwrap(store.deviceEpoch?.dimension)
        XCTAssertNotEqual(dimension, a)
        XCTAssertEqual(try store.version(namespace: RecordNamespace.name, key: Array("n".utf8))?.vector, atBound)
        try save(Row(id: "n", value: "edited", updatedAt: 4), store)
        let edited = try XCTUnwrap(try store.version(namespace: RecordNamespace.name, key: Array("n".utf8))?.vector)
        XCTAssertEqual(edited[a], VersionVector.maxCounter, "the old dimension is never counted past the bound")
        XCTAssertEqual(edited[dimension], 1)
        try save(Row(id: "m", value: "again", updatedAt: 4), store)
        try delete("n", store)
        XCTAssertEqual(try store.rows(RecordNamespace.self).map(\.id), ["m"])
    }

    /// A store an older build wrote holds `UInt64.max` for this device (in a row's vector and in
    /// a delete version): it still opens and reads, and the edit, delete and save of the deleted
    /// key that would bump it fail with `counterOutOfRange` instead of killing the process.
    func testAStoredCounterAtUInt64MaxFromAnOlderBuildIsATypedErrorOnEditDeleteAndTombstonedSave() throws {
        let world = try TestWorld()
        let path = world.path()
        let writer = try world.store(device: 0, path: path)
        try save(Row(id: "n", value: "v", updatedAt: 1), writer)
        try save(Row(id: "m", value: "w", updatedAt: 1), writer)
        try delete("m", writer)
        try writer.checkpoint()
        writer.close()
        let poisoned = Hex.encode(VersionVector([a: .max, b: 2]).encoded())
        try SQLiteTestHelper.execute("""
            UPDATE ns_\(RecordNamespace.name) SET vector = X'\(poisoned)', content_vector = X'' WHERE key = X'\(Hex.encode(Array("n".utf8)))';
            UPDATE sk_version SET vector = X'\(poisoned)' WHERE ns = '\(RecordNamespace.name)' AND row IS NULL;
            """, at: path)
        let store = try world.store(device: 0, path: path)
        XCTAssertEqual(try store.version(namespace: RecordNamespace.name, key: Array("n".utf8))?.vector[a], .max, "the stored counter reads")
        XCTAssertEqual(try store.tombstones(namespace: RecordNamespace.name).map { $0.vector[a] }, [.max])
        let before = try snapshot(store)
        assertCode(.counterOutOfRange, "edit") { try save(Row(id: "n", value: "edited", updatedAt: 2), store) }
        try assertUnchanged(store, before, "edit")
        assertCode(.counterOutOfRange, "delete") { try delete("n", store) }
        try assertUnchanged(store, before, "delete")
        assertCode(.counterOutOfRange, "save of the tombstoned key") { try save(Row(id: "m", value: "back", updatedAt: 2), store) }
        try assertUnchanged(store, before, "save of the tombstoned key")
    }

    func testBumpStopsAtTheBoundAndReadingRefusesCountersAboveIt() throws {
        var clock = DeviceClock()
        try clock.configure(a)
        XCTAssertEqual(try clock.bump(VersionVector([a: VersionVector.maxCounter - 1])), VersionVector([a: VersionVector.maxCounter]))
        for held in [VersionVector.maxCounter, VersionVector.maxCounter + 1, UInt64.max] {
            assertCode(.counterOutOfRange, "bump of \(held)") { try clock.bump(VersionVector([a: held, b: 1])) }
        }
        XCTAssertEqual(try clock.bump(VersionVector([b: .max])), VersionVector([a: 1, b: .max]), "only the own counter is bumped")
        for count in [VersionVector.maxCounter + 1, UInt64.max] {
            let encoded = VersionVector([b: count]).encoded()
            assertCode(.counterOutOfRange, "peer vector \(count)") { try VersionVector(decoding: CBORReader.decode(encoded)) }
            let stored = try read(CBORReader.decode(encoded)) { (cursor, budget) throws(SyncKernelError) in
                try VersionVector(reading: &cursor, budget: &budget, bound: .max)
            }
            XCTAssertEqual(stored[b], count, "a stored vector still reads")
        }
        XCTAssertEqual(try VersionVector(decoding: CBORReader.decode(VersionVector([b: VersionVector.maxCounter]).encoded()))[b],
                       VersionVector.maxCounter)
        XCTAssertEqual(VersionVector.maxCounter, UInt64(Int64.max))
    }

    // MARK: Finding 2: repeated sibling ids

    func testRepeatedSiblingIdsCollapseIntoOneSiblingEach() throws {
        let world = try TestWorld()
        let replica = try Replica(device: a, account: world.account, siblings: [c, b, a, b, c, c], store: world.store(device: nil))
        XCTAssertEqual(replica.siblings, [b, c].sorted())
        replica.announce()
        let heartbeats = replica.drainActions().compactMap { action -> DeviceID? in
            if case .send(let to, "heartbeat", _) = action { to } else { nil }
        }
        XCTAssertEqual(heartbeats.sorted(), [b, c].sorted(), "one heartbeat per sibling")
        replica.receive(SyncFrame(account: world.account, schema: replica.store.namespaces.schema, body: .heartbeat).encoded(),
                        from: b, now: 0)
        XCTAssertEqual(replica.drainActions().count, 1, "a repeated sibling is answered once")
        let alone = try Replica(device: a, account: world.account, siblings: [a, a], store: world.store(device: nil))
        XCTAssertEqual(alone.siblings, [])
    }

    // MARK: Finding 3: an error from the namespace's tie-break

    /// The tie-break's error used to read as "does not win" and the apply went on. Now the apply
    /// fails with that error and nothing of it is written, not even the rows merged before it.
    func testAnErrorFromTheNamespaceTieBreakFailsTheApplyAndWritesNothing() throws {
        typealias Refusing = RefusingTieNamespace
        let world = try TestWorld()
        let local = try world.store([Refusing.self], device: 0)
        let remote = try world.store([Refusing.self], device: 1)
        func save(_ row: Refusing.Row, _ store: KernelStore) throws {
            try store.write(Refusing.self) { tx throws(SyncKernelError) in try tx.save(row) }
        }
        try save(Refusing.Row(id: "k", value: "unordered", updatedAt: 1), local)
        try save(Refusing.Row(id: "a", value: "merged first", updatedAt: 1), remote)
        try save(Refusing.Row(id: "k", value: "ok", updatedAt: 1), remote)
        func state() throws -> [String] {
            try local.rows(Refusing.self).map { "\($0.id)=\($0.value)" }
                + [Hex.encode(local.encodedStateDigest()), "\(try local.version(namespace: Refusing.name, key: Array("k".utf8)) as Any)",
                   "\(try local.tombstones(namespace: Refusing.name))"]
        }
        let before = try state()
        let responses = try remote.respond(to: local.reconcileRequest(for: Refusing.name))
        XCTAssertEqual(responses.count, 1)
        XCTAssertEqual(responses.first?.rows.count, 2, "the response holds a row merged before the tie")
        assertCode(.namespaceRefused, "the tie-break's own error") { try local.apply(responses[0]) }
        XCTAssertEqual(try state(), before, "nothing of the failed apply is written")
        XCTAssertNoThrow(try local.verifyStructures())
        try save(Refusing.Row(id: "k", value: "plain", updatedAt: 2), local)
        let outcome = try local.apply(try XCTUnwrap(try remote.respond(to: local.reconcileRequest(for: Refusing.name)).first))
        XCTAssertEqual(outcome.rowsApplied, 1, "with an orderable pair the same response applies")
        XCTAssertEqual(try local.rows(Refusing.self).map(\.id), ["a", "k"])
    }

    // MARK: Other peer values on the receive path

    /// A peer's change counters size the first sketch: an estimate near `Int.max` used to trap in
    /// `sketchStart` (`2 * expected`) and `sketchSymbols` (`expected * 3`). It now asks for the
    /// whole namespace (or a full sketch), through the replica's receive path.
    func testAHostileChangeCounterSizesTheSketchWithoutTrapping() throws {
        for expected in [Int.max, Int.max / 2 + 1, Int.max / 3 + 1, RatelessSketch.standardCapacity + 1] {
            XCTAssertEqual(KernelStore.sketchSymbols(forExpectedItems: expected), RatelessSketch.standardCapacity, "\(expected)")
        }
        XCTAssertEqual(KernelStore.sketchSymbols(forExpectedItems: 100), 170, "an honest estimate is sized as before")
        let world = try TestWorld()
        let store = try world.store(device: nil)
        let replica = try Replica(device: a, account: world.account, siblings: [b], store: store)
        for index in 0..<3 { try save(Row(id: "r\(index)", value: "v", updatedAt: 1), store) }
        let before = try snapshot(store)
        XCTAssertEqual(try store.sketchStart(for: RecordNamespace.name, expectedItems: Int.max).kind, "reconcile_req")
        XCTAssertEqual(try store.sketchStart(for: RecordNamespace.name, expectedItems: 10).kind, "sketch_req")
        func digest(_ roots: [[UInt8]], changes: [UInt64]) -> [UInt8] {
            let body = StateDigest(layout: .setHash, schema: store.namespaces.schema, namespaces: store.namespaces.names, roots: roots).encoded()
            return SyncFrame(account: world.account, schema: store.namespaces.schema,
                             body: .stateDigest(digest: body, probe: false, changes: changes),
                             capabilities: [SyncFrame.sketchCapability]).encoded()
        }
        replica.receive(digest(store.stateDigest().roots, changes: [0]), from: b, now: 0)
        _ = replica.drainActions()
        for (now, changes) in [(Int64(10), UInt64(Int.max)), (20, .max), (30, UInt64(Int.max) - 7)] {
            replica.receive(digest([[UInt8](repeating: 9, count: 32)], changes: [changes]), from: b, now: now * 1_000)
            let kinds = replica.drainActions().compactMap { action -> String? in if case .send(_, let kind, _) = action { kind } else { nil } }
            XCTAssertFalse(kinds.isEmpty, "changes \(changes): the replica answered")
            XCTAssertTrue(kinds.allSatisfy { ["reconcile_req", "sketch_req", "state_digest"].contains($0) }, "changes \(changes): \(kinds)")
            replica.receive(digest(store.stateDigest().roots, changes: [0]), from: b, now: now * 1_000 + 1)
            _ = replica.drainActions()
        }
        try assertUnchanged(store, before, "digests change nothing")
    }

    /// Integers a peer controls in the other frame fields: each is refused with a typed error or
    /// handled harmlessly (wrapping sketch counts, fingerprint counts only compared), and the
    /// store is left as it was.
    func testHostileIntegersInEveryOtherFrameFieldAreRefusedOrHarmless() throws {
        let world = try TestWorld()
        let store = try world.store(device: nil)
        let replica = try Replica(device: a, account: world.account, siblings: [b], store: store)
        for index in 0..<20 { try save(Row(id: "r\(index)", value: "v\(index)", updatedAt: 1), store) }
        let before = try snapshot(store)
        let schema = store.namespaces.schema
        func send(_ body: SyncFrame.Body) -> [ReplicaAction] {
            replica.receive(SyncFrame(account: world.account, schema: schema, body: body).encoded(), from: b, now: 0)
            return replica.drainActions()
        }
        func refusals(_ actions: [ReplicaAction]) -> [SyncKernelError.Code] {
            actions.compactMap { if case .event(.frameRefused(_, let error)) = $0 { error.code } else { nil } }
        }
        let name = RecordNamespace.name
        let root = [UInt8](repeating: 5, count: 32)
        let hostileSymbols = [CodedSymbol(count: .min, keySum: [0xff, 0x80], tagSum: .max), CodedSymbol(count: .max, keySum: [1], tagSum: 1),
                              CodedSymbol(count: -1, keySum: [0x7f], tagSum: 0), CodedSymbol(count: 1)]
        let harmless: [(String, SyncFrame.Body)] = [
            ("bucket count Int.max", .reconcileRequest(ReconcileRequest(namespace: name, buckets: [
                RangeBucket(range: .all, root: root, count: .max)]))),
            ("sketch symbols with extreme counts", .sketch(SketchRequest(namespace: name, root: Array(root.prefix(SketchRequest.rootPrefixBytes)),
                                                                         symbols: hostileSymbols))),
            ("trie fingerprints with extreme counts", .rangeCompare(RangeCompare(namespace: name, nodes: [
                .init(node: PrefixNode.root, fingerprint: RangeFingerprint(count: .min, sum: .max)),
                .init(node: try XCTUnwrap(PrefixNode(nibbles: [UInt8](repeating: 15, count: PrefixNode.maxDepth))),
                      fingerprint: RangeFingerprint(count: .max, sum: 1)),
            ]))),
            ("digest change counters at UInt64.max", .stateDigest(digest: store.encodedStateDigest(), probe: true, changes: [.max])),
        ]
        for (label, body) in harmless {
            XCTAssertEqual(refusals(send(body)), [], label)
            try assertUnchanged(store, before, label)
        }
        XCTAssertEqual(try store.answer(SketchRequest(namespace: name, root: root, symbols: hostileSymbols), mark: .max).kindForTests,
                       "sketch_req", "an undecodable hostile sketch asks for a larger one")
        func bytes(_ kind: String, _ build: (inout MapWriter) -> Void) -> [UInt8] {
            var writer = CanonicalWriter()
            writer.writeMap { map in
                map.entry("type") { $0.write(SyncFrame.payloadType) }
                map.entry("account") { $0.write(bytes: world.account) }
                map.entry("schema") { $0.write(schema.value) }
                map.entry("kind") { $0.write(kind) }
                build(&map)
            }
            return writer.bytes
        }
        let refused: [(String, [UInt8], SyncKernelError.Code)] = [
            ("a negative bucket count", bytes("reconcile_req") { map in
                map.entry("ns") { $0.write(name) }
                map.entry("buckets") { $0.writeArray([0]) { writer, _ in
                    writer.writeArrayHeader(count: 3)
                    writer.write(bytes: [])
                    writer.write(bytes: root)
                    writer.write(Int64(-1))
                } }
            }, .malformedFrame),
            ("a bucket count beyond Int64", bytes("reconcile_req") { map in
                map.entry("ns") { $0.write(name) }
                map.entry("buckets") { $0.writeArray([0]) { writer, _ in
                    writer.writeArrayHeader(count: 3)
                    writer.write(bytes: [])
                    writer.write(bytes: root)
                    writer.write(UInt64.max)
                } }
            }, .unexpectedType),
            ("a sketch symbol count wider than 64 bits", bytes("sketch_req") { map in
                map.entry("ns") { $0.write(name) }
                map.entry("root") { $0.write(bytes: Array(root.prefix(SketchRequest.rootPrefixBytes))) }
                map.entry("symbols") { $0.write(bytes: [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]) }
            }, .malformedFrame),
            ("more symbols than the capacity", bytes("sketch_req") { map in
                map.entry("ns") { $0.write(name) }
                map.entry("root") { $0.write(bytes: Array(root.prefix(SketchRequest.rootPrefixBytes))) }
                map.entry("symbols") { $0.write(bytes: [0x81, 0x40]) }
            }, .malformedFrame),
            ("a key-sum length of 2^62", bytes("sketch_req") { map in
                map.entry("ns") { $0.write(name) }
                map.entry("root") { $0.write(bytes: Array(root.prefix(SketchRequest.rootPrefixBytes))) }
                map.entry("symbols") { $0.write(bytes: [0x01, 0x02, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40]) }
            }, .malformedFrame),
            ("a trie node deeper than the bound", bytes("range_req") { map in
                map.entry("ns") { $0.write(name) }
                map.entry("nodes") { $0.writeArray([0]) { writer, _ in
                    writer.writeArrayHeader(count: 2)
                    writer.write(bytes: [UInt8](repeating: 1, count: PrefixNode.maxDepth + 1))
                    writer.write(bytes: RangeFingerprint.empty.encoded())
                } }
            }, .malformedFrame),
            ("a device table entry of UInt64.max", bytes("reconcile_resp") { map in
                map.entry("ns") { $0.write(name) }
                map.entry("devices") { $0.writeArray([b]) { $0.write(bytes: $1.publicKey) } }
                map.entry("rows") { $0.writeArrayHeader(count: 0) }
                map.entry("tombstones") { $0.writeArray([0]) { writer, _ in
                    writer.writeArrayHeader(count: 2)
                    writer.write(bytes: [1])
                    writer.writeArrayHeader(count: 2)
                    writer.write(UInt64.max)
                    writer.write(UInt64(1))
                } }
            }, .malformedFrame),
        ]
        for (label, frame, code) in refused {
            replica.receive(frame, from: b, now: 0)
            XCTAssertEqual(refusals(replica.drainActions()), [code], label)
            try assertUnchanged(store, before, label)
        }
    }

    /// A register's edit counter saturates at `UInt64.max` rather than trapping on a peer's value.
    func testARegisterAtUInt64MaxSaturates() {
        var register = Register(value: "held", counter: .max)
        register.set("next")
        XCTAssertEqual(register.counter, .max)
        XCTAssertEqual(register.value, "next")
    }

    // MARK: Dates

    /// Dates are bounded to ±100,000,000 days: the reader refuses beyond, the writer clamps to
    /// it, so every date written reads back and re-encodes the same.
    func testRejectDatesBeyondTheBoundAndClampWritesToIt() throws {
        let bound = CanonicalWriter.maxDateSeconds
        for seconds in [-bound, -1, 0, 1_700_000_000, bound] {
            let item = CBORValue.tagged(1, seconds < 0 ? .negative(UInt64(-1 - seconds)) : .unsigned(UInt64(seconds)))
            let date = try item.date()
            XCTAssertEqual(CanonicalWriter.wholeSeconds(date), seconds, "\(seconds) reads back exactly")
        }
        for item in [CBORValue.tagged(1, .unsigned(UInt64(bound) + 1)), .tagged(1, .negative(UInt64(bound))),
                     .tagged(1, .unsigned(UInt64(Int64.max))), .tagged(1, .negative(UInt64(Int64.max)))] {
            assertCode(.limitExceeded, "\(item)") { try item.date() }
        }
        for (date, seconds) in [(Date(timeIntervalSince1970: 1e300), bound), (Date(timeIntervalSince1970: -1e300), -bound),
                                (Date(timeIntervalSince1970: .infinity), 0), (Date.distantFuture, 64_092_211_200)] {
            var writer = CanonicalWriter()
            writer.write(date)
            XCTAssertEqual(CanonicalWriter.wholeSeconds(try CBORReader.decode(writer.bytes).date()), seconds, "\(date)")
        }
        let milliseconds = FieldCodec<Date>.dateMilliseconds
        let msBound = CanonicalWriter.maxDateMilliseconds
        XCTAssertEqual(CanonicalWriter.wholeMilliseconds(Date(timeIntervalSince1970: 1e300)), msBound)
        XCTAssertNoThrow(try milliseconds.decode(.unsigned(UInt64(msBound))))
        for item in [CBORValue.unsigned(UInt64(msBound) + 1), .negative(UInt64(msBound)), .unsigned(UInt64(Int64.max))] {
            assertCode(.limitExceeded, "milliseconds \(item)") { try milliseconds.decode(item) }
        }
    }

    // MARK: Damaged stores

    /// A persisted item count outside 0...2^48 is damage: the structure no longer reads, so the
    /// store rebuilds it from the stored leaves at open, never a trap on a later `count += 1`.
    func testADamagedItemCountIsRebuiltFromTheLeavesAtOpen() throws {
        for count in [Int64.max, Int64.max - 1, -1, Int64.min] {
            let world = try TestWorld()
            let path = world.path()
            let store = try world.store(device: 0, path: path)
            try save(Row(id: "n", value: "v", updatedAt: 1), store)
            let digest = store.stateDigest()
            try store.checkpoint()
            store.close()
            try SQLiteTestHelper.execute("UPDATE sk_structure SET count = \(count) WHERE ns = '\(RecordNamespace.name)'", at: path)
            let reopened = try world.store(device: 0, path: path)
            XCTAssertEqual(reopened.stateDigest(), digest, "count \(count): rebuilt")
            XCTAssertNoThrow(try reopened.verifyStructures(), "count \(count)")
            try save(Row(id: "m", value: "w", updatedAt: 1), reopened)
        }
    }

    /// A stored leaf of the wrong length or a key out of order (a damaged store) used to reach
    /// preconditions in the spec's Merkle digest and `SortedLeaves`; it is `corruptBookkeeping`.
    func testRejectAStoredLeafOfTheWrongLengthOrOrder() throws {
        for damage in ["UPDATE ns_\(RecordNamespace.name) SET leaf = X'0102' WHERE key = X'\(Hex.encode(Array("n".utf8)))'",
                       "UPDATE ns_\(RecordNamespace.name) SET key = 'zzz' WHERE key = X'\(Hex.encode(Array("n".utf8)))'"] {
            let world = try TestWorld()
            let path = world.path()
            let store = try world.store(device: 0, path: path)
            try save(Row(id: "n", value: "v", updatedAt: 1), store)
            try save(Row(id: "m", value: "w", updatedAt: 1), store)
            try store.checkpoint()
            store.close()
            try SQLiteTestHelper.execute(damage, at: path)
            let damaged = try world.store(device: 0, path: path)
            assertCode(.corruptBookkeeping, "\(damage): Merkle digest") { try damaged.merkleDigest() }
            assertCode(.corruptBookkeeping, "\(damage): spec request") { try damaged.reconcileRequest(for: RecordNamespace.name) }
            assertCode(.corruptBookkeeping, "\(damage): spec response") {
                try damaged.respond(to: ReconcileRequest(namespace: RecordNamespace.name, buckets: []))
            }
        }
    }

    /// A stored key longer than a sketch item carries (only a damaged store holds one: every row
    /// written was inspected) used to trap in `SketchItem`; a delete of it and a rebuild of the
    /// structure over it are `corruptBookkeeping`.
    func testAStoredKeyTooLongForTheSketchIsATypedErrorOnDeleteAndRebuild() throws {
        let world = try TestWorld()
        let path = world.path()
        let store = try world.store(device: 0, path: path)
        try save(Row(id: "n", value: "v", updatedAt: 1), store)
        try store.checkpoint()
        store.close()
        let long = [UInt8](repeating: 0x6e, count: SketchItem.maxKeyBytes + 1)
        try SQLiteTestHelper.execute("UPDATE ns_\(RecordNamespace.name) SET key = X'\(Hex.encode(long))'", at: path)
        let damaged = try world.store(device: 0, path: path)
        assertCode(.corruptBookkeeping, "delete") {
            try damaged.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: long) }
        }
        XCTAssertEqual(try SQLiteTestHelper.integer("SELECT COUNT(*) FROM ns_\(RecordNamespace.name)", at: path), 1,
                       "the delete rolled back")
        damaged.close()
        try SQLiteTestHelper.execute("DELETE FROM sk_structure", at: path)
        assertCode(.corruptBookkeeping, "rebuild at open") { try world.store(device: 0, path: path) }
    }
}

private extension SketchAnswer {
    /// The frame kind this answer sends.
    var kindForTests: String {
        switch self {
        case .responses: "reconcile_resp"
        case .sketch: "sketch_req"
        case .ranges: "range_req"
        case .whole: "reconcile_req"
        }
    }
}
