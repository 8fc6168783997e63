import SyncKernel
import SyncKernelSimulator
import XCTest

final class ReplicaLoopTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    private func digests(_ fleet: Fleet, from index: Int) -> [Int64] {
        fleet.sent.filter { $0.from == fleet.replicas[index].device && $0.kind == "state_digest" }.map(\.time)
    }

    func testLocalWritesEmitOneDigestAfterTheDebounce() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2)
        for index in 0..<40 {
            fleet.run(until: Int64(index * 5))
            try fleet.save(Row(id: "r\(index)", value: "v", updatedAt: 1), on: 0)
        }
        fleet.run(until: 399)
        XCTAssertEqual(digests(fleet, from: 0), [], "nothing before the 400 ms window closes")
        fleet.run(until: 400)
        XCTAssertEqual(digests(fleet, from: 0), [400], "forty writes, one advertisement")
        fleet.run(until: 60_000)
        XCTAssertTrue(fleet.allRootsMatch)
    }

    func testApplyingAResponseEmitsTheDigestToThatSiblingAtOnce() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2)
        try fleet.save(Row(id: "a", value: "v", updatedAt: 1), on: 0)
        fleet.run(until: 60_000)
        let applied = try XCTUnwrap(fleet.events.first { event in
            if case .applied = event.event, event.device == fleet.replicas[1].device { return true }
            return false
        })
        XCTAssertTrue(digests(fleet, from: 1).contains(applied.time), "digest at the apply instant, no debounce")
        XCTAssertTrue(fleet.allRootsMatch)
    }

    func testAnAnswerInPartsIsMergedAsItComesAndAnsweredWithOneDigestAfterItsLastPart() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2)
        let count = DeviceTable.maxDevices + 1_500
        try fleet.replicas[0].store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<count { try tx.save(Row(id: "r\(index)", value: "first", updatedAt: 1)) }
        }
        fleet.replicas[0].markStateDirty(now: fleet.now)
        fleet.run(until: 30_000)
        XCTAssertTrue(fleet.allRootsMatch)
        let phone = fleet.replicas[0]
        try phone.store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<count { try tx.save(Row(id: "r\(index)", value: "edited", updatedAt: 2)) }
        }
        let parts = try phone.store.respond(toKeys: try phone.store.leaves(namespace: RecordNamespace.name).map(\.key),
                                            namespace: RecordNamespace.name)
        XCTAssertGreaterThanOrEqual(parts.count, 2, "each edited row names its own creation: the answer comes in parts")
        XCTAssertEqual(parts.map(\.remaining), Array((0..<parts.count).reversed()))
        let laptop = fleet.replicas[1]
        func digestsFromLaptop(after mark: Int) -> Int {
            fleet.sent[mark...].filter { $0.from == laptop.device && $0.kind == "state_digest" }.count
        }
        let mark = fleet.sent.count
        for part in parts {
            let frame = SyncFrame(account: world.account, schema: phone.store.namespaces.schema, body: .reconcileResponse(part),
                                  compactVectors: true, sender: phone.device)
            fleet.inject(frame.encoded(), into: 1, from: phone.device)
            if part.remaining > 0 {
                fleet.run(until: fleet.now + 1_000)
                XCTAssertEqual(digestsFromLaptop(after: mark), 0, "no digest while parts follow, not even the debounced one")
            }
        }
        fleet.run(until: fleet.now + 1)
        XCTAssertEqual(digestsFromLaptop(after: mark), 1, "one digest, after the last part")
        XCTAssertEqual(laptop.store.stateDigest(), phone.store.stateDigest())
    }

    func testChangeMarksAreKeptInTheStoreAndOutliveARestart() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2)
        try fleet.save(Row(id: "a", value: "v", updatedAt: 1), on: 0)
        fleet.run(until: 30_000)
        XCTAssertTrue(fleet.allRootsMatch)
        let (phone, laptop) = (fleet.replicas[0], fleet.replicas[1])
        let held = try XCTUnwrap(laptop.changeMarks(of: phone.device))
        XCTAssertFalse(held.marks.isEmpty, "equal roots leave a mark")
        XCTAssertEqual(try laptop.store.changeMarks(with: phone.device), held, "kept in the store as held")
        let restarted = try Replica(device: laptop.device, account: world.account, siblings: [phone.device], store: laptop.store)
        XCTAssertEqual(restarted.changeMarks(of: phone.device), held, "a restarted replica starts from the kept marks")
        XCTAssertEqual(try laptop.store.changeMarks(with: TestWorld.device(7)), ChangeMarks(), "none of a device never met")
    }

    func testANoOpRoundStillReadvertisesSoTheOtherSidePulls() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2)
        try fleet.save(Row(id: "x", value: "v1", updatedAt: 1), on: 1)
        fleet.run(until: 10_000)
        XCTAssertTrue(fleet.allRootsMatch)
        let start = fleet.now
        // The phone (0) edits without advertising; then the iPad (1) advertises its stale digest.
        try fleet.replicas[0].store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "x", value: "reaction", updatedAt: 2))
        }
        let ipad = fleet.replicas[1]
        let stale = SyncFrame(account: world.account, schema: ipad.store.namespaces.schema,
                              body: .stateDigest(digest: ipad.store.stateDigest().encoded(), probe: false))
        fleet.inject(stale.encoded(), into: 0, from: ipad.device)
        fleet.run(until: start + 1_000)
        let phoneApplied = fleet.events(of: 0).compactMap { event -> ApplyOutcome? in
            if case .applied(_, let outcome) = event { return outcome } else { return nil }
        }
        XCTAssertEqual(phoneApplied.last?.rowsApplied, 0, "the phone's pull changed nothing")
        XCTAssertTrue(fleet.allRootsMatch, "the re-advertisement after the no-op round let the iPad pull")
        XCTAssertEqual(try fleet.replicas[1].store.row(RecordNamespace.self, key: Array("x".utf8))?.value, "reaction")
    }

    func testConvergedFleetGoesQuietAndAnEqualEmitIsSkipped() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(3)
        try fleet.save(Row(id: "a", value: "1", updatedAt: 1), on: 0)
        try fleet.save(Row(id: "b", value: "2", updatedAt: 1), on: 1)
        fleet.run(until: 60_000)
        XCTAssertTrue(fleet.allRootsMatch)
        let quiet = fleet.sent.count
        fleet.run(until: 600_000)
        XCTAssertEqual(fleet.sent.count, quiet, "settled devices do not ping-pong")

        try fleet.save(Row(id: "a", value: "changed", updatedAt: 2), on: 0)
        try fleet.save(Row(id: "a", value: "1", updatedAt: 1), on: 0)
        let before = digests(fleet, from: 0).count
        fleet.run(until: fleet.now + 1_000)
        XCTAssertEqual(digests(fleet, from: 0).count, before, "a digest equal to the last broadcast is skipped")
    }

    func testReachingMatchingRootsReturnsTheDigestExactlyOnce() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2)
        try fleet.save(Row(id: "a", value: "1", updatedAt: 1), on: 0)
        fleet.run(until: 60_000)
        let converged = (0..<2).flatMap { fleet.events(of: $0) }.filter { if case .converged = $0 { return true } else { return false } }
        XCTAssertEqual(converged.count, 1, "the device that started the round reports it once")
        let digestFrames = fleet.sent.filter { $0.kind == "state_digest" }
        // 0 broadcasts (a Merkle digest: it does not know 1 yet), 1 answers with its set-hash digest
        // as a probe, 0 sends its sketch, 1 answers with what it wants, 0 ships it back, 1 applies
        // and emits its digest, 0 answers once (it was reconciling), and the pair stops.
        XCTAssertLessThanOrEqual(digestFrames.count, 4, "\(digestFrames.map { ($0.time, $0.kind) })")
    }

    func testStormGuardFiresOnANonMergeableHashedField() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2, namespaces: [StormyNamespace.self])
        for index in 0..<2 {
            try fleet.write(on: index, StormyNamespace.self) { tx throws(SyncKernelError) in
                try tx.save(.init(id: "s", seenOnDevice: "device-\(index)"))
            }
        }
        fleet.run(until: 10_000)
        let storms = fleet.events.compactMap { event -> [String]? in
            if case .stormSuspected(_, let namespaces, _) = event.event { return namespaces } else { return nil }
        }
        XCTAssertFalse(storms.isEmpty, "the guard must trip inside the 10 s window")
        XCTAssertEqual(storms.first, ["stormy"])
        XCTAssertFalse(fleet.allRootsMatch)
        let tripTime = try XCTUnwrap(fleet.events.first { if case .stormSuspected = $0.event { return true } else { return false } }?.time)
        let during = fleet.sent.filter { $0.time > tripTime + 1_000 && $0.time < tripTime + 29_000 && $0.kind == "reconcile_req" }
        fleet.run(until: tripTime + 29_000)
        XCTAssertLessThanOrEqual(during.count, 2, "the pair backs off")
    }

    /// An announcement due while the guard backs off a sibling waits for the back-off to end: the
    /// replica's next deadline is always later than a tick at it (a deadline that stayed due spun
    /// the host's loop at one instant).
    func testAnAnnouncementDuringAStormBackOffWaitsAndNeverLeavesADeadlineDue() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2, namespaces: [StormyNamespace.self])
        for index in 0..<2 {
            try fleet.write(on: index, StormyNamespace.self) { tx throws(SyncKernelError) in
                try tx.save(.init(id: "s", seenOnDevice: "device-\(index)"))
            }
        }
        fleet.run(until: 10_000)
        let trip = try XCTUnwrap(fleet.events.first { if case .stormSuspected = $0.event { return true } else { return false } })
        let replica = try XCTUnwrap(fleet.replicas.first { $0.device == trip.device })
        let now = fleet.now
        replica.announce()
        _ = replica.drainActions()
        for step in 0..<3 {
            replica.tick(now: now)
            _ = replica.drainActions()
            let deadline = try XCTUnwrap(replica.nextDeadline, "step \(step)")
            XCTAssertGreaterThan(deadline, now, "step \(step): nothing may stay due after a tick")
        }
    }

    func testWrongSchemaFramesAreRefusedSurfacedAndWriteNothing() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2)
        let other = try NamespaceSet([RecordNamespace.self, StormyNamespace.self]).schema
        let row = RecordNamespace.rowEncoding(of: Row(id: "evil", value: "x", updatedAt: 1))
        let response = SyncFrame(account: world.account, schema: other,
                                 body: .reconcileResponse(ReconcileResponse(namespace: "records",
                                                                            rows: [ShippedRow(row: row, vector: nil)],
                                                                            tombstones: [])))
        fleet.inject(response.encoded(), into: 0, from: fleet.replicas[1].device)
        fleet.inject(response.encoded(), into: 0, from: fleet.replicas[1].device)
        XCTAssertEqual(try fleet.replicas[0].store.rows(RecordNamespace.self), [])
        let mismatches = fleet.events(of: 0).filter { if case .peerSchemaMismatch = $0 { return true } else { return false } }
        XCTAssertEqual(mismatches, [.peerSchemaMismatch(peer: fleet.replicas[1].device,
                                                        local: fleet.replicas[0].store.namespaces.schema, remote: other)],
                       "surfaced once per sibling and schema, not silently")
    }

    func testMalformedForeignAndUnknownFramesAreRefusedWithoutCrashOrWrite() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2)
        let sibling = fleet.replicas[1].device
        let schema = fleet.replicas[0].store.namespaces.schema
        fleet.inject([0xff, 0x00, 0x13], into: 0, from: sibling)
        fleet.inject(SyncFrame(account: [UInt8](repeating: 9, count: 32), schema: schema, body: .heartbeat).encoded(),
                     into: 0, from: sibling)
        fleet.inject(SyncFrame(account: world.account, schema: schema, body: .heartbeat).encoded(),
                     into: 0, from: TestWorld.device(9))
        let badRow = SyncFrame(account: world.account, schema: schema, body: .reconcileResponse(ReconcileResponse(
            namespace: "records",
            rows: [ShippedRow(row: RecordNamespace.rowEncoding(of: Row(id: "ok", value: "1", updatedAt: 1)), vector: nil),
                   ShippedRow(row: [0x80], vector: nil)], tombstones: [])))
        fleet.inject(badRow.encoded(), into: 0, from: sibling)
        let codes = fleet.events(of: 0).compactMap { event -> SyncKernelError.Code? in
            switch event {
            case .frameRefused(_, let error), .applyFailed(_, _, let error): return error.code
            default: return nil
            }
        }
        XCTAssertEqual(codes, [.unsupportedEncoding, .foreignAccount, .unknownSibling, .malformedFrame])
        XCTAssertEqual(try fleet.replicas[0].store.rows(RecordNamespace.self), [])
    }

    func testRejectAForeignAccountBeforeReadingTheBody() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2)
        let sibling = fleet.replicas[1].device
        let schema = fleet.replicas[0].store.namespaces.schema
        var writer = CanonicalWriter(reservingCapacity: 128)
        writer.writeMap { map in
            map.entry("type") { $0.write(SyncFrame.payloadType) }
            map.entry("kind") { $0.write("reconcile_resp") }
            map.entry("account") { $0.write(bytes: [UInt8](repeating: 9, count: 32)) }
            map.entry("schema") { $0.write(schema.value) }
            map.entry("ns") { $0.write("records") }
            map.entry("rows") { $0.write("not an array of rows") }
        }
        let foreign = writer.bytes
        XCTAssertThrowsError(try SyncFrame(decoding: foreign, account: world.account)) {
            XCTAssertEqual($0 as? SyncKernelError, SyncKernelError(.foreignAccount), "refused before the rows are read")
        }
        XCTAssertThrowsError(try SyncFrame(decoding: foreign)) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .unexpectedType, "the body itself is unreadable")
        }
        fleet.inject(foreign, into: 0, from: sibling)
        XCTAssertEqual(fleet.events(of: 0), [.frameRefused(from: sibling, error: SyncKernelError(.foreignAccount))])
        XCTAssertEqual(try fleet.replicas[0].store.rows(RecordNamespace.self), [])
    }

    func testTheRelayHasNoMailboxAndAReconnectCatchesUp() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2)
        fleet.disconnect(1)
        try fleet.save(Row(id: "a", value: "1", updatedAt: 1), on: 0)
        fleet.run(until: 1_000)
        XCTAssertFalse(fleet.allRootsMatch)
        XCTAssertGreaterThan(fleet.relay.traffic[InProcessRelay.Link(from: fleet.replicas[0].device,
                                                                     to: fleet.replicas[1].device)]?.lost ?? 0, 0)
        fleet.reconnect(1)
        fleet.run(until: 2_000)
        XCTAssertTrue(fleet.allRootsMatch)
    }

    func testConvergesUnderLossDuplicationReorderingAndConcurrentEdits() throws {
        for seed: UInt64 in [1, 2, 3] {
            let world = try TestWorld()
            let fleet = try world.fleet(4, conditions: RelayConditions(latencyMillis: 20, lossRate: 0.2,
                                                                       duplicationRate: 0.1, reorderJitterMillis: 80),
                                        seed: seed)
            var random = SeededGenerator(seed: seed)
            for step in 0..<120 {
                fleet.run(until: Int64(step * 25))
                try fleet.randomWrite(&random, step: step, devices: 4, keys: 40, deleteChance: 0.15)
            }
            fleet.run(until: 600_000)
            XCTAssertTrue(fleet.allRootsMatch, "seed \(seed)")
            XCTAssertTrue(fleet.events.allSatisfy { if case .stormSuspected = $0.event { return false } else { return true } },
                          "seed \(seed): no storm on a mergeable namespace")
        }
    }

    func testConcurrentEditsResolveToTheSameWinnerOnEveryDevice() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(3)
        try fleet.save(Row(id: "c", value: "base", updatedAt: 1), on: 0)
        fleet.run(until: 10_000)
        for index in 0..<3 {
            try fleet.replicas[index].store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
                try tx.save(Row(id: "c", value: "edit-\(index)", updatedAt: 100 - Int64(index)))
            }
        }
        for replica in fleet.replicas { replica.markStateDirty(now: fleet.now) }
        fleet.run(until: 60_000)
        XCTAssertTrue(fleet.allRootsMatch)
        let values = try fleet.replicas.map { try $0.store.row(RecordNamespace.self, key: Array("c".utf8))?.value }
        let expected = (0..<3).map { Row(id: "c", value: "edit-\($0)", updatedAt: 100 - Int64($0)) }
            .max { RecordNamespace.leafEncoding(of: $0).lexicographicallyPrecedes(RecordNamespace.leafEncoding(of: $1)) }
        XCTAssertEqual(Set(values), [expected?.value])
    }
}

extension ReplicaLoopTests {
    func testTheRelayCountsRequestsAndResponsesUnderTheNamespaceTheirFrameNames() throws {
        let (from, to) = (TestWorld.device(0), TestWorld.device(1))
        let account = [UInt8](repeating: 1, count: 32)
        let schema = SchemaFingerprint(value: 1)
        let request = SyncFrame(account: account, schema: schema,
                                body: .reconcileRequest(ReconcileRequest(namespace: "records", buckets: []))).encoded()
        let response = SyncFrame(account: account, schema: schema,
                                 body: .reconcileResponse(ReconcileResponse(namespace: "notes", rows: [], tombstones: []))).encoded()
        let digest = SyncFrame(account: account, schema: schema, body: .stateDigest(digest: [1], probe: false)).encoded()
        var relay = InProcessRelay(conditions: RelayConditions(), seed: 1)
        relay.publish(from: from, to: to, kind: "reconcile_req", frame: request, now: 0)
        relay.publish(from: from, to: to, kind: "reconcile_resp", frame: response, now: 0)
        relay.publish(from: from, to: to, kind: "state_digest", frame: digest, now: 0)
        relay.publish(from: from, to: to, kind: "reconcile_resp", frame: [0xff], now: 0)
        let traffic = try XCTUnwrap(relay.traffic[InProcessRelay.Link(from: from, to: to)])
        XCTAssertEqual(traffic.bytesByNamespace, ["records": request.count, "notes": response.count],
                       "digests and bytes that are not a frame count under no namespace")
        XCTAssertEqual(traffic.bytes, request.count + response.count + digest.count + 1)
    }
}
