import SyncKernel
import SyncKernelSimulator
import XCTest

/// Pushes of local writes: a device in step with a sibling sends what it wrote as a `push` and
/// the sibling answers with one `push_ack`, instead of a digest and an exchange; whatever goes
/// wrong (a lost frame, writes on both sides, too many keys, a restart, a sibling that does not
/// read pushes) falls back to digests and converges to the same state.
final class PushTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    /// A fleet of `count` devices over the store files `paths` (made when nil) that met and hold
    /// equal stores of `rows` records, recording frames from then on.
    private func syncedFleet(_ world: TestWorld, count: Int = 2, rows: Int = 20, conditions: RelayConditions = RelayConditions(),
                             seed: UInt64 = 7, modes: [ReconcileMode]? = nil, paths: [String]? = nil,
                             timing: LoopTiming = LoopTiming()) throws -> Fleet {
        let devices = (0..<count).map(TestWorld.device)
        let files = paths ?? (0..<count).map { _ in world.path() }
        let replicas = try (0..<count).map { index in
            try Replica(device: devices[index], account: world.account, siblings: devices,
                        store: world.store(device: nil, path: files[index]), timing: timing, mode: modes?[index] ?? .sketch)
        }
        let fleet = Fleet(replicas: replicas, conditions: conditions, seed: seed)
        fleet.announceAll()
        for index in 0..<rows { try fleet.save(Row(id: "r\(index)", value: "base", updatedAt: 1), on: index % count) }
        fleet.run(until: 60_000)
        XCTAssertTrue(fleet.allRootsMatch, "the fleet starts in step")
        fleet.recordsFrames = true
        return fleet
    }

    /// A new replica of device `index` of `fleet` over the store file `path` (a restart's).
    private func reopened(_ index: Int, of fleet: Fleet, _ world: TestWorld, path: String) throws -> Replica {
        try Replica(device: TestWorld.device(index), account: world.account, siblings: fleet.replicas.map(\.device),
                    store: world.store(device: nil, path: path))
    }

    /// Makes device 0 of `fleet` take device 1 for a sketch build of before pushes: a set-hash
    /// digest from it announcing sketch, compact and wide but not `push1`.
    private func makeSiblingAnOlderBuild(_ fleet: Fleet, _ world: TestWorld) {
        let store = fleet.replicas[1].store
        let frame = SyncFrame(account: world.account, schema: store.namespaces.schema,
                              body: .stateDigest(digest: store.encodedStateDigest(), probe: false, changes: store.changeCounters()),
                              capabilities: [SyncFrame.sketchCapability, SyncFrame.compactCapability, SyncFrame.wideCapability],
                              sender: TestWorld.device(1))
        fleet.inject(frame.encoded(), into: 0, from: TestWorld.device(1))
        fleet.run(until: fleet.now + 10_000)
    }

    /// The kinds of the frames recorded so far, in order, with their senders' indexes.
    private func kinds(_ fleet: Fleet) -> [(from: Int, kind: String)] {
        fleet.sentFrames.compactMap { record in
            var budget = DecodeBudget(inputBytes: record.frame.count)
            guard let from = fleet.replicas.firstIndex(where: { $0.device == record.from }),
                  let frame = try? SyncFrame(decoding: record.frame, sender: record.from, positions: fleet.replicas[from].positions,
                                             receiver: record.to, budget: &budget) else { return nil }
            return (from, frame.body.kind)
        }
    }

    /// Writes six rows of 1 MiB each on device 0 in one transaction: more than one frame holds.
    private func writeSixMegabytes(on fleet: Fleet, filledWith character: Character) throws {
        let large = String(repeating: character, count: 1 << 20)
        try fleet.write(on: 0, RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<6 { try tx.save(Row(id: "large\(index)", value: large, updatedAt: 2)) }
        }
    }

    private func rows(_ fleet: Fleet, _ index: Int) throws -> [Row] {
        try fleet.replicas[index].store.rows(RecordNamespace.self)
    }

    private func assertSameRows(_ fleet: Fleet, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertTrue(fleet.allRootsMatch, "roots match", file: file, line: line)
        for index in fleet.replicas.indices.dropFirst() {
            XCTAssertEqual(try rows(fleet, index), try rows(fleet, 0), "device \(index)", file: file, line: line)
        }
    }

    func testOneWriteToASiblingInStepIsOnePushAndOneAcknowledgement() throws {
        let world = try TestWorld()
        let fleet = try syncedFleet(world)
        try fleet.save(Row(id: "r3", value: "edited", updatedAt: 2), on: 0)
        fleet.run(until: 120_000)
        let sent = kinds(fleet)
        XCTAssertEqual(sent.map(\.kind), ["push", "push_ack"], "\(sent)")
        XCTAssertEqual(sent.map(\.from), [0, 1])
        try assertSameRows(fleet)
        XCTAssertEqual(try rows(fleet, 1).first { $0.id == "r3" }?.value, "edited")

        let before = fleet.sentFrames.count
        try fleet.write(on: 1, RecordNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: Array("r4".utf8)) }
        fleet.run(until: 240_000)
        XCTAssertEqual(kinds(fleet).dropFirst(before).map(\.kind), ["push", "push_ack"], "a delete travels the same way")
        try assertSameRows(fleet)
        XCTAssertFalse(try rows(fleet, 0).contains { $0.id == "r4" })
    }

    func testAPushIsSmallerThanTheDigestExchangeItReplaces() throws {
        let world = try TestWorld()
        let pushed = try syncedFleet(world)
        let digested = try syncedFleet(world)
        makeSiblingAnOlderBuild(digested, world)
        let skip = digested.sentFrames.count
        for fleet in [pushed, digested] {
            try fleet.save(Row(id: "r3", value: "edited", updatedAt: 2), on: 0)
            fleet.run(until: fleet.now + 60_000)
            try assertSameRows(fleet)
        }
        let pushBytes = pushed.sentFrames.reduce(0) { $0 + $1.frame.count }
        let digestBytes = digested.sentFrames.dropFirst(skip).reduce(0) { $0 + $1.frame.count }
        XCTAssertTrue(kinds(digested).dropFirst(skip).contains { $0.kind == "state_digest" })
        XCTAssertEqual(kinds(pushed).map(\.kind), ["push", "push_ack"])
        XCTAssertLessThan(pushBytes, digestBytes, "push \(pushBytes) B, digest exchange \(digestBytes) B")
    }

    func testWritesOnBothSidesAtOnceConvergeThroughPushesAlone() throws {
        let world = try TestWorld()
        let fleet = try syncedFleet(world)
        try fleet.save(Row(id: "new-a", value: "a", updatedAt: 2), on: 0)
        try fleet.save(Row(id: "new-b", value: "b", updatedAt: 2), on: 1)
        fleet.run(until: 120_000)
        try assertSameRows(fleet)
        let sent = kinds(fleet).map(\.kind)
        XCTAssertEqual(sent.filter { $0 == "push" }.count, 2, "\(sent)")
        XCTAssertEqual(sent.filter { $0 == "push_ack" }.count, 2, "\(sent)")
        XCTAssertFalse(sent.contains("sketch_req"), "\(sent)")
    }

    func testAPushArrivingBeforeTheReceiversOwnPushIsAnsweredByThatPushWithoutWaitingForARetry() throws {
        let world = try TestWorld()
        for offset in [Int64(50), 100, 250] {
            let fleet = try syncedFleet(world)
            let start = fleet.now
            try fleet.save(Row(id: "new-a", value: "a", updatedAt: 2), on: 0)
            fleet.run(until: start + offset)
            try fleet.save(Row(id: "new-b", value: "b", updatedAt: 2), on: 1)
            fleet.run(until: start + 120_000)
            try assertSameRows(fleet)
            let sent = kinds(fleet)
            XCTAssertEqual(sent.map(\.kind), ["push", "push_ack", "push", "push_ack"], "offset \(offset): \(sent)")
            let converged = try XCTUnwrap(fleet.convergedAt)
            XCTAssertLessThan(converged - start, offset + LoopTiming().retryMillis, "offset \(offset): settled before any retry")
        }
    }

    func testConcurrentEditsOfOneKeyEndInOneWinnerOnBothSides() throws {
        let world = try TestWorld()
        for seed in UInt64(1)...6 {
            let fleet = try syncedFleet(world, conditions: RelayConditions(latencyMillis: 10 * Int64(seed)), seed: seed)
            try fleet.save(Row(id: "r1", value: "phone", updatedAt: 5), on: 0)
            fleet.run(until: fleet.now + Int64(seed) * 20)
            try fleet.save(Row(id: "r1", value: "laptop", updatedAt: 4), on: 1)
            fleet.run(until: fleet.now + 120_000)
            try assertSameRows(fleet)
            XCTAssertTrue(kinds(fleet).contains { $0.kind == "push" }, "seed \(seed)")
        }
    }

    func testAPushLostToAPartitionIsRecoveredAfterTheHeal() throws {
        let world = try TestWorld()
        let fleet = try syncedFleet(world)
        fleet.partition([[0], [1]])
        try fleet.save(Row(id: "r2", value: "while cut off", updatedAt: 3), on: 0)
        fleet.run(until: fleet.now + 2_000)
        XCTAssertTrue(kinds(fleet).contains { $0.kind == "push" }, "the push went out and was lost")
        XCTAssertFalse(fleet.allRootsMatch)
        fleet.heal()
        fleet.run(until: fleet.now + 300_000)
        try assertSameRows(fleet)
    }

    func testLossDuplicationAndReorderingNeverKeepPushedWritesApart() throws {
        let world = try TestWorld()
        let lossy = RelayConditions(latencyMillis: 20, lossRate: 0.25, duplicationRate: 0.15, reorderJitterMillis: 120)
        for seed in UInt64(11)...16 {
            let fleet = try syncedFleet(world, count: 3, conditions: lossy, seed: seed)
            var random = SeededGenerator(seed: seed)
            for step in 0..<60 {
                fleet.run(until: fleet.now + Int64(random.next() % 900))
                try fleet.randomWrite(&random, step: step, devices: 3, keys: 30, deleteChance: 0.2)
            }
            fleet.run(until: fleet.now + 900_000)
            try assertSameRows(fleet)
            XCTAssertTrue(kinds(fleet).contains { $0.kind == "push" }, "seed \(seed): pushes were used")
            XCTAssertFalse(fleet.events.contains { if case .stormSuspected = $0.event { true } else { false } }, "seed \(seed)")
        }
    }

    func testOneWriteAmongThreeDevicesPushesToEachAndNothingElseMovesARow() throws {
        let world = try TestWorld()
        let fleet = try syncedFleet(world, count: 3)
        try fleet.save(Row(id: "r5", value: "three", updatedAt: 2), on: 2)
        fleet.run(until: 120_000)
        try assertSameRows(fleet)
        let sent = kinds(fleet)
        XCTAssertEqual(sent.filter { $0.kind == "push" }.map(\.from), [2, 2], "\(sent)")
        XCTAssertEqual(sent.filter { $0.kind == "push_ack" }.map(\.from).sorted(), [0, 1], "\(sent)")
        // The two that took the push cannot know the other did: one digest each way shows it.
        let others = sent.filter { $0.kind != "push" && $0.kind != "push_ack" }
        XCTAssertEqual(others.map(\.kind), ["state_digest", "state_digest"], "\(sent)")
        XCTAssertEqual(Set(others.map(\.from)), [0, 1])
    }

    func testMoreKeysThanAPushCarriesGoOutAsADigest() throws {
        let world = try TestWorld()
        let fleet = try syncedFleet(world)
        // The limit lowered so a debug run reaches it in little time; the store's own list of a
        // transaction's keys (`RowWriter.movedKeyLimit`) is the same limit in a release build.
        let limit = 300
        fleet.replicas[0].pushKeyLimit = limit
        try fleet.write(on: 0, RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0...limit { try tx.save(Row(id: "bulk\(index)", value: "b", updatedAt: 2)) }
        }
        fleet.run(until: fleet.now + 120_000)
        try assertSameRows(fleet)
        var sent = kinds(fleet).map(\.kind)
        XCTAssertFalse(sent.contains("push"), "one transaction past the limit")
        XCTAssertTrue(sent.contains("state_digest"))

        let skip = sent.count
        try fleet.write(on: 0, RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<(limit - 10) { try tx.save(Row(id: "bulk\(index)", value: "c", updatedAt: 3)) }
        }
        try fleet.write(on: 0, RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<20 { try tx.save(Row(id: "more\(index)", value: "c", updatedAt: 3)) }
        }
        fleet.run(until: fleet.now + 120_000)
        try assertSameRows(fleet)
        sent = kinds(fleet).map(\.kind)
        XCTAssertFalse(sent.dropFirst(skip).contains("push"), "two transactions adding up past the limit")
    }

    func testAPushOfMoreRowsThanOneFrameHoldsGoesInPartsAndIsAcknowledgedOnce() throws {
        let world = try TestWorld()
        let fleet = try syncedFleet(world)
        try writeSixMegabytes(on: fleet, filledWith: "x")
        fleet.run(until: fleet.now + 120_000)
        try assertSameRows(fleet)
        let sent = kinds(fleet)
        XCTAssertEqual(sent.map(\.kind), ["push", "push", "push_ack"], "6 MB of rows in two parts, one acknowledgement: \(sent)")
        XCTAssertEqual(sent.map(\.from), [0, 0, 1])
        XCTAssertTrue(fleet.sentFrames.allSatisfy { $0.frame.count <= SyncFrame.maxFrameBytes })
    }

    func testWritesWhileAPushIsOnItsWayArePushedOnceEachAndSettledByTheLastAcknowledgement() throws {
        let world = try TestWorld()
        let fleet = try syncedFleet(world, conditions: RelayConditions(latencyMillis: 1_000))
        try fleet.write(on: 0, RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<30 { try tx.save(Row(id: "first\(index)", value: "a", updatedAt: 2)) }
        }
        fleet.run(until: fleet.now + 500)
        XCTAssertEqual(kinds(fleet).map(\.kind), ["push"], "the first push is on its way")
        try fleet.write(on: 0, RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<20 { try tx.save(Row(id: "second\(index)", value: "b", updatedAt: 2)) }
        }
        fleet.run(until: fleet.now + 120_000)
        try assertSameRows(fleet)
        let sent = kinds(fleet)
        XCTAssertEqual(sent.map(\.kind), ["push", "push", "push_ack", "push_ack"], "\(sent)")
        let pushedRows = fleet.sentFrames.compactMap { record -> Int? in
            var budget = DecodeBudget(inputBytes: record.frame.count)
            guard case .push(let response, _, _)? = try? SyncFrame(decoding: record.frame, sender: record.from,
                                                                   positions: fleet.replicas[0].positions, receiver: record.to,
                                                                   budget: &budget).body
            else { return nil }
            return response.rows.count
        }
        XCTAssertEqual(pushedRows, [30, 20], "each written key pushed once")
    }

    func testCrossingPushesOfTwoTransactionsEachSettleWithoutADigest() throws {
        let world = try TestWorld()
        let fleet = try syncedFleet(world, conditions: RelayConditions(latencyMillis: 5))
        for side in 0..<2 {
            try fleet.write(on: side, RecordNamespace.self) { tx throws(SyncKernelError) in
                for index in 0..<4 { try tx.save(Row(id: "new\(side)-\(index)", value: "a", updatedAt: 2)) }
            }
            try fleet.write(on: side, RecordNamespace.self) { tx throws(SyncKernelError) in
                try tx.save(Row(id: "r\(side)", value: "edited", updatedAt: 2))
            }
        }
        fleet.run(until: fleet.now + 120_000)
        try assertSameRows(fleet)
        let sent = kinds(fleet).map(\.kind)
        XCTAssertEqual(sent.sorted(), ["push", "push", "push_ack", "push_ack"], "each side's acknowledgement settles it: \(sent)")
    }

    func testASiblingsDigestFromBeforeThePushArrivedStartsNoExchangeWhileThePushIsOnItsWay() throws {
        let world = try TestWorld()
        let fleet = try syncedFleet(world, conditions: RelayConditions(latencyMillis: 1_000))
        try fleet.save(Row(id: "r2", value: "pushed", updatedAt: 3), on: 0)
        fleet.run(until: fleet.now + 500)
        XCTAssertEqual(kinds(fleet).map(\.kind), ["push"])
        // Device 1's digest as it stands before the push reaches it (a broadcast of its own).
        let store = fleet.replicas[1].store
        let digest = SyncFrame(account: world.account, schema: store.namespaces.schema,
                               body: .stateDigest(digest: store.encodedStateDigest(), probe: false, changes: store.changeCounters()),
                               compactVectors: true, compactHeader: true, sender: TestWorld.device(1))
        fleet.inject(digest.encoded(), into: 0, from: TestWorld.device(1))
        fleet.run(until: fleet.now + 120_000)
        try assertSameRows(fleet)
        let sent = kinds(fleet)
        XCTAssertFalse(sent.contains { $0.kind == "sketch_req" || $0.kind == "reconcile_req" }, "\(sent)")
        XCTAssertEqual(sent.filter { $0.kind == "push_ack" }.count, 1, "\(sent)")
    }

    func testPushesLostWhileApartAreSettledByTheAnnouncementAfterwardsWithoutWaitingForARetry() throws {
        let world = try TestWorld()
        // Retries effectively off: only the announcements can bring the two together again.
        var timing = LoopTiming()
        timing.retryMillis = 600_000
        timing.maxRetryMillis = 600_000
        let fleet = try syncedFleet(world, timing: timing)
        fleet.partition([[0], [1]])
        try fleet.save(Row(id: "apart-a", value: "a", updatedAt: 3), on: 0)
        try fleet.save(Row(id: "apart-b", value: "b", updatedAt: 3), on: 1)
        fleet.run(until: fleet.now + 2_000)
        XCTAssertEqual(kinds(fleet).filter { $0.kind == "push" }.count, 2, "both pushes went out and were lost")
        fleet.heal()
        fleet.announceAll()
        fleet.run(until: fleet.now + 60_000)
        try assertSameRows(fleet)
    }

    func testALostPartOfAPushIsFoundByTheDigestExchange() throws {
        let world = try TestWorld()
        let fleet = try syncedFleet(world)
        try writeSixMegabytes(on: fleet, filledWith: "y")
        // Both parts are lost to a partition; then only the second one arrives.
        fleet.partition([[0], [1]])
        fleet.run(until: fleet.now + 500)
        XCTAssertEqual(kinds(fleet).map(\.kind), ["push", "push"], "both parts sent within the debounce")
        let second = try XCTUnwrap(fleet.sentFrames.last)
        fleet.heal()
        fleet.inject(second.frame, into: 1, from: TestWorld.device(0))
        fleet.run(until: fleet.now + 240_000)
        try assertSameRows(fleet)
        let sent = kinds(fleet).dropFirst(2).map(\.kind)
        XCTAssertEqual(sent.first, "push_ack", "the last part is acknowledged with the receiver's root: \(sent)")
        XCTAssertTrue(sent.contains("state_digest"), "the pusher asks with its digest: \(sent)")
    }

    func testASiblingThatNeverAnnouncedPushesIsSentDigests() throws {
        let world = try TestWorld()
        let fleet = try syncedFleet(world, modes: [.sketch, .spec])
        try fleet.save(Row(id: "r1", value: "to spec", updatedAt: 2), on: 0)
        fleet.run(until: 120_000)
        try assertSameRows(fleet)
        XCTAssertFalse(kinds(fleet).contains { $0.kind == "push" || $0.kind == "push_ack" })

        let older = try syncedFleet(world)
        makeSiblingAnOlderBuild(older, world)
        let skip = older.sentFrames.count
        try older.save(Row(id: "r1", value: "to an older build", updatedAt: 2), on: 0)
        older.run(until: older.now + 120_000)
        try assertSameRows(older)
        let sent = kinds(older).dropFirst(skip)
        XCTAssertFalse(sent.contains { $0.kind == "push" }, "\(sent)")
        XCTAssertTrue(sent.contains { $0.kind == "state_digest" && $0.from == 0 })
    }

    func testARestartedDeviceSendsADigestUntilItSeesEqualRootsThenPushesAgain() throws {
        let world = try TestWorld()
        let paths = [world.path(), world.path()]
        let fleet = try syncedFleet(world, paths: paths)
        fleet.crash(0)
        try fleet.save(Row(id: "r7", value: "while the phone was off", updatedAt: 2), on: 1)
        let replacement = try reopened(0, of: fleet, world, path: paths[0])
        let restartedAt = fleet.sentFrames.count
        fleet.restart(0, with: replacement)
        try fleet.save(Row(id: "r8", value: "right after the restart", updatedAt: 2), on: 0)
        fleet.run(until: fleet.now + 120_000)
        try assertSameRows(fleet)
        XCTAssertEqual(try rows(fleet, 0).first { $0.id == "r7" }?.value, "while the phone was off")
        XCTAssertEqual(try rows(fleet, 1).first { $0.id == "r8" }?.value, "right after the restart")
        XCTAssertFalse(kinds(fleet).contains { $0.from == 0 && $0.kind == "push" }, "nothing known of the sibling after a restart")

        // The sibling answers the restarted device's announcement with the push it lost (r7),
        // then its digest, announcing itself, so the new replica learns again that it reads
        // pushes (and wide sketches).
        let answers = fleet.sentFrames.dropFirst(restartedAt).filter { $0.from == TestWorld.device(1) }
        let positions = NamespacePositions(schema: replacement.store.namespaces.schema, names: replacement.store.namespaces.names)
        let decoded = try answers.prefix(2).map {
            try SyncFrame(decoding: $0.frame, account: world.account, sender: $0.from, positions: positions, receiver: TestWorld.device(0))
        }
        XCTAssertEqual(decoded.map(\.body.kind), ["push", "state_digest"], "the lost push again, then the digest")
        let capabilities = try XCTUnwrap(decoded.last).capabilities
        XCTAssertTrue(capabilities.contains(SyncFrame.pushCapability) && capabilities.contains(SyncFrame.wideCapability), "\(capabilities)")
        let skip = fleet.sentFrames.count
        try fleet.save(Row(id: "r9", value: "in step again", updatedAt: 3), on: 0)
        fleet.run(until: fleet.now + 120_000)
        try assertSameRows(fleet)
        XCTAssertEqual(kinds(fleet).dropFirst(skip).map(\.kind), ["push", "push_ack"])
    }

    /// A device that quits while apart from its sibling keeps what it wrote since they were
    /// equal; started again, both push what the other lacks (the sibling's lost push again, then
    /// the restarted device's writes), and no sketch goes either way.
    func testAfterACleanStopBothDevicesPushWhatTheyWroteApartInsteadOfSketching() throws {
        let world = try TestWorld()
        let paths = [world.path(), world.path()]
        let fleet = try syncedFleet(world, paths: paths)
        fleet.partition([[0], [1]])
        try fleet.save(Row(id: "r7", value: "written away", updatedAt: 2), on: 0)
        try fleet.save(Row(id: "r8", value: "written meanwhile", updatedAt: 2), on: 1)
        try fleet.save(Row(id: "r3", value: "edited meanwhile", updatedAt: 3), on: 1)
        fleet.run(until: fleet.now + 2_000)
        fleet.stop(0)
        fleet.heal()
        let replacement = try reopened(0, of: fleet, world, path: paths[0])
        XCTAssertEqual(replacement.writtenSinceEqual(of: TestWorld.device(1)), [RecordNamespace.name: [Array("r7".utf8)]], "kept across the stop")
        let skip = fleet.sentFrames.count
        fleet.restart(0, with: replacement)
        fleet.run(until: fleet.now + 60_000)
        try assertSameRows(fleet)
        let after = kinds(fleet).dropFirst(skip)
        XCTAssertTrue(after.contains { $0.from == 1 && $0.kind == "push" }, "the sibling's lost push goes again: \(after)")
        XCTAssertEqual(after.filter { $0.from == 0 }.prefix(2).map(\.kind), ["heartbeat", "push"],
                       "the restarted device pushes with its announcement, before any digest: \(after)")
        XCTAssertFalse(after.contains { $0.kind == "sketch_req" || $0.kind == "range_req" || $0.kind == "reconcile_resp" },
                       "no exchange: \(after.map(\.kind))")
        XCTAssertEqual(try world.store(device: nil, path: world.path()).takePushBases(limit: 10), [:])
    }

    /// A sibling that keeps announcing gets the pushes of what this device wrote since their
    /// equal roots at most once per retry interval: each heartbeat is answered with a digest, and
    /// pushes only when the last pushes for a heartbeat are that old.
    func testHeartbeatsInQuickSuccessionAreAnsweredWithPushesOnlyOncePerRetryInterval() throws {
        let world = try TestWorld()
        let fleet = try syncedFleet(world)
        fleet.partition([[0], [1]])
        try fleet.save(Row(id: "r7", value: "not taken in", updatedAt: 2), on: 0)
        fleet.run(until: fleet.now + 100)
        fleet.heal()
        let heartbeat = SyncFrame(account: world.account, schema: fleet.replicas[1].store.namespaces.schema, body: .heartbeat,
                                  capabilities: SyncFrame.kernelCapabilities).encoded()
        let skip = fleet.sentFrames.count
        for _ in 0..<5 { fleet.inject(heartbeat, into: 0, from: TestWorld.device(1)) }
        let answers = kinds(fleet).dropFirst(skip).filter { $0.from == 0 }.map(\.kind)
        XCTAssertEqual(answers.filter { $0 == "push" }.count, 1, "one push for five heartbeats: \(answers)")
        XCTAssertEqual(answers.filter { $0 == "state_digest" }.count, 5, "every heartbeat gets a digest: \(answers)")
    }

    /// A restarted sibling that announces again while the push that answered its first heartbeat
    /// is still on its way (a slow link: the push takes longer to arrive than the announcement's
    /// retry), in one part or in several, gets each row once: its repeated heartbeat (which lists
    /// its capabilities again, as a start's does) takes nothing as lost, and it announces no more
    /// while the parts arrive.
    func testAnnouncementRepeatedWhileTheAnsweringPushTravelsGetsEachRowOnce() throws {
        // (rows, bytes per row, link bytes per millisecond): one part of 3 s; two parts of 6 s in all.
        for (count, size, rate) in [(600, 1_000, 200), (12, 512 << 10, 1_000)] as [(Int, Int, Int64)] {
            let world = try TestWorld()
            let paths = [world.path(), world.path()]
            let fleet = try syncedFleet(world, conditions: RelayConditions(bytesPerMillisecond: rate), paths: paths)
            fleet.stop(1)
            let value = String(repeating: "w", count: size)
            try fleet.write(on: 0, RecordNamespace.self) { tx throws(SyncKernelError) in
                for index in 0..<count { try tx.save(Row(id: "away\(index)", value: value, updatedAt: 2)) }
            }
            fleet.run(until: fleet.now + 30_000)
            let skip = fleet.sentFrames.count
            fleet.restart(1, with: try reopened(1, of: fleet, world, path: paths[1]))
            fleet.run(until: fleet.now + 120_000)
            try assertSameRows(fleet)
            let pushed = fleet.sentFrames.dropFirst(skip).filter { $0.from == TestWorld.device(0) }.compactMap { record -> Int? in
                var budget = DecodeBudget(inputBytes: record.frame.count)
                guard let frame = try? SyncFrame(decoding: record.frame, sender: record.from, positions: fleet.replicas[0].positions,
                                                 receiver: record.to, budget: &budget),
                      case .push(let response, _, _) = frame.body else { return nil }
                return response.rows.count
            }
            let after = kinds(fleet).dropFirst(skip)
            let heartbeats = after.filter { $0.from == 1 && $0.kind == "heartbeat" }.count
            XCTAssertEqual(pushed.reduce(0, +), count, "each row pushed once: \(pushed) after \(heartbeats) heartbeats")
            XCTAssertGreaterThan(heartbeats, 1, "the announcement was repeated while the push travelled")
            XCTAssertFalse(after.contains { $0.kind == "reconcile_resp" || $0.kind == "sketch_req" }, "no exchange: \(after.map(\.kind))")
        }
    }

    /// A restarted device whose announcement is answered with a push and the sibling's digest
    /// acknowledges the push with equal roots and sends no digest after it: the sibling's digest
    /// already equals its state and the acknowledgement told the sibling so.
    func testAnAcknowledgementWithEqualRootsIsNotFollowedByADigestTheSiblingAlreadyHas() throws {
        let world = try TestWorld()
        let paths = [world.path(), world.path()]
        let fleet = try syncedFleet(world, paths: paths)
        fleet.stop(1)
        try fleet.save(Row(id: "r3", value: "written while the sibling was away", updatedAt: 2), on: 0)
        fleet.run(until: fleet.now + 30_000)
        let skip = fleet.sentFrames.count
        fleet.restart(1, with: try reopened(1, of: fleet, world, path: paths[1]))
        fleet.run(until: fleet.now + 60_000)
        try assertSameRows(fleet)
        let after = kinds(fleet).dropFirst(skip)
        XCTAssertEqual(after.filter { $0.from == 0 }.map(\.kind), ["push", "state_digest"], "the answer to the announcement: \(after)")
        XCTAssertEqual(after.filter { $0.from == 1 }.map(\.kind), ["heartbeat", "push_ack"], "nothing after the acknowledgement: \(after)")
    }

    /// Writes on both sides while one device was away: the restarted device acknowledges the
    /// sibling's push saying its own follows, pushes, and the sibling's acknowledgement with
    /// equal roots ends it; neither sends a digest after the two acknowledgements.
    func testCrossingPushesAfterARestartEndWithTheirAcknowledgements() throws {
        let world = try TestWorld()
        let paths = [world.path(), world.path()]
        let fleet = try syncedFleet(world, paths: paths)
        fleet.stop(1)
        try fleet.save(Row(id: "r3", value: "written while the sibling was away", updatedAt: 2), on: 0)
        let away = try reopened(1, of: fleet, world, path: paths[1])
        try away.write(RecordNamespace.self, now: fleet.now) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "r4", value: "written away", updatedAt: 2))
        }
        away.keepPushBases()
        away.store.close()
        fleet.run(until: fleet.now + 30_000)
        let skip = fleet.sentFrames.count
        fleet.restart(1, with: try reopened(1, of: fleet, world, path: paths[1]))
        fleet.run(until: fleet.now + 60_000)
        try assertSameRows(fleet)
        let after = kinds(fleet).dropFirst(skip)
        XCTAssertEqual(after.filter { $0.kind == "push" }.count, 2, "one push each way: \(after)")
        XCTAssertEqual(after.last?.kind, "push_ack", "the last frame is an acknowledgement: \(after)")
        XCTAssertFalse(after.contains { $0.kind == "reconcile_req" || $0.kind == "sketch_req" }, "no exchange: \(after)")
    }

    /// What a clean stop kept is taken once: a crash after the next start leaves nothing of it,
    /// so the run after that sends a digest, as after any crash.
    func testKeptPushBasesAreTakenOnceSoACrashAfterwardsLeavesNothing() throws {
        let world = try TestWorld()
        let paths = [world.path(), world.path()]
        let fleet = try syncedFleet(world, paths: paths)
        try fleet.save(Row(id: "r7", value: "pushed", updatedAt: 2), on: 0)
        fleet.stop(0)
        let first = try reopened(0, of: fleet, world, path: paths[0])
        XCTAssertEqual(first.writtenSinceEqual(of: TestWorld.device(1)).keys.sorted(), [RecordNamespace.name], "kept across the stop")
        first.store.close()
        let second = try reopened(0, of: fleet, world, path: paths[0])
        XCTAssertEqual(second.writtenSinceEqual(of: TestWorld.device(1)), [:], "taken by the first start: a crash kept nothing")
    }

    func testDevicesStartedOneAfterTheOtherOnEqualStoresPushTheirFirstWrite() throws {
        let world = try TestWorld()
        let paths = [world.path(), world.path()]
        let devices = (0..<2).map(TestWorld.device)
        let first = try syncedFleet(world, paths: paths)
        first.crash(0)
        first.crash(1)
        let replicas = try (0..<2).map { index in
            try Replica(device: devices[index], account: world.account, siblings: devices, store: world.store(device: nil, path: paths[index]))
        }
        // The first device announces while the second is not running yet (its heartbeat is lost);
        // the second announces when it starts, and is asked for its digest in the answer.
        let fleet = Fleet(replicas: replicas, conditions: RelayConditions(), seed: 3)
        fleet.recordsFrames = true
        fleet.disconnect(1)
        fleet.reconnect(0)
        fleet.run(until: 500)
        fleet.reconnect(1)
        fleet.run(until: 1_000)
        XCTAssertTrue(fleet.allRootsMatch)
        let skip = fleet.sentFrames.count
        try fleet.save(Row(id: "first", value: "written a second after the start", updatedAt: 2), on: 0)
        fleet.run(until: 120_000)
        try assertSameRows(fleet)
        XCTAssertEqual(kinds(fleet).dropFirst(skip).map(\.kind), ["push", "push_ack"])
    }
}
