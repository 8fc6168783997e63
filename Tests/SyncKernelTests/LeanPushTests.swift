@testable import SyncKernel
import SyncKernelSimulator
import XCTest

/// The lean forms between two builds that read `SyncFrame.leanCapability`: a push names the
/// pusher's epoch by a one-byte reference once announced, writes an edited row's vector as its
/// changed entry over a check of the history the receiver holds (`DeltaVector`), and leaves out
/// the account tag to a replica whose transport proves the account. Whatever the receiver cannot
/// read against its own state (a concurrent write, an epoch it never heard or heard twice) is
/// left unmerged, and the fleet still converges to the vectors a whole push would give.
final class LeanPushTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    /// Two devices over fresh stores that met and hold `rows` records written alternately on each,
    /// recording frames from then on; `authenticated` says each replica's transport proves the
    /// account, `lean` whether each announces the lean capability (false: it is made to look like
    /// a build of before, by a digest that lists everything else).
    private func syncedPair(_ world: TestWorld, rows: Int = 20, authenticated: [Bool] = [false, false],
                            conditions: RelayConditions = RelayConditions()) throws -> Fleet {
        let devices = (0..<2).map(TestWorld.device)
        let replicas = try (0..<2).map { index in
            try Replica(device: devices[index], account: world.account, siblings: devices, store: world.store(device: nil),
                        transportAuthenticatesAccount: authenticated[index])
        }
        let fleet = Fleet(replicas: replicas, conditions: conditions, seed: 7)
        fleet.announceAll()
        for index in 0..<rows { try fleet.save(Row(id: "r\(index)", value: "base", updatedAt: 1), on: index % 2) }
        fleet.run(until: 60_000)
        XCTAssertTrue(fleet.allRootsMatch, "the pair starts in step")
        fleet.recordsFrames = true
        return fleet
    }

    /// Makes each device of `fleet` in `devices` take the other for a build of before the lean forms.
    private func makeSiblingAnOlderBuild(_ fleet: Fleet, _ world: TestWorld, devices: [Int] = [0]) {
        for index in devices {
            let other = 1 - index
            let store = fleet.replicas[other].store
            let frame = SyncFrame(account: world.account, schema: store.namespaces.schema,
                                  body: .stateDigest(digest: store.encodedStateDigest(), probe: false, changes: store.changeCounters()),
                                  capabilities: SyncFrame.kernelCapabilities.filter { $0 != SyncFrame.leanCapability },
                                  sender: TestWorld.device(other))
            fleet.inject(frame.encoded(), into: index, from: TestWorld.device(other))
        }
        fleet.run(until: fleet.now + 10_000)
    }

    /// The frames recorded since `skip`, decoded as their receivers read them, with their senders' indexes.
    private func frames(_ fleet: Fleet, _ world: TestWorld, from skip: Int = 0) throws -> [(from: Int, frame: SyncFrame, bytes: Int)] {
        try fleet.sentFrames.dropFirst(skip).map { record in
            let from = try XCTUnwrap(fleet.replicas.firstIndex { $0.device == record.from })
            let frame = try SyncFrame(decoding: record.frame, account: world.account, sender: record.from,
                                      positions: fleet.replicas[from].positions, receiver: record.to,
                                      impliedAccount: true)
            return (from, frame, record.frame.count)
        }
    }

    private func pushes(_ frames: [(from: Int, frame: SyncFrame, bytes: Int)]) -> [(from: Int, frame: SyncFrame, response: ReconcileResponse)] {
        frames.compactMap { item in
            guard case .push(let response, _, _) = item.frame.body else { return nil }
            return (item.from, item.frame, response)
        }
    }

    private func version(_ fleet: Fleet, _ index: Int, _ id: String) throws -> RowVersion? {
        try fleet.replicas[index].store.version(namespace: RecordNamespace.name, key: Array(id.utf8))
    }

    private func assertSameRows(_ fleet: Fleet, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertTrue(fleet.allRootsMatch, "roots match", file: file, line: line)
        XCTAssertEqual(try fleet.replicas[1].store.rows(RecordNamespace.self), try fleet.replicas[0].store.rows(RecordNamespace.self),
                       file: file, line: line)
        for index in 0..<20 {
            XCTAssertEqual(try version(fleet, 1, "r\(index)")?.vector, try version(fleet, 0, "r\(index)")?.vector, "r\(index)",
                           file: file, line: line)
        }
    }

    private func unresolvedKeys(_ fleet: Fleet, on index: Int) -> [[UInt8]] {
        fleet.events.filter { $0.device == fleet.replicas[index].device }.flatMap { record -> [[UInt8]] in
            guard case .applied(_, let outcome) = record.event else { return [] }
            return outcome.unresolvedKeys
        }
    }

    func testAnEditOfARowCreatedElsewhereShipsOnlyItsChangedEntryAndEndsInTheSameVector() throws {
        let world = try TestWorld()
        let fleet = try syncedPair(world)
        try fleet.save(Row(id: "r1", value: "edited", updatedAt: 2), on: 0)
        fleet.run(until: 120_000)
        let sent = pushes(try frames(fleet, world))
        XCTAssertEqual(sent.count, 1)
        let push = try XCTUnwrap(sent.first)
        XCTAssertEqual(push.response.rows.count, 1)
        let row = try XCTUnwrap(push.response.rows.first)
        XCTAssertEqual(row.base?.count, DeltaVector.checkBytes, "r1 was created on device 1: its history goes as a check")
        XCTAssertEqual(row.vector?.counters.count, 1, "only the pusher's own entry is on the wire")
        XCTAssertNil(push.frame.epochAnnouncement, "epoch 0 is the device itself and needs no announcement")
        try assertSameRows(fleet)
        XCTAssertEqual(try fleet.replicas[1].store.rows(RecordNamespace.self).first { $0.id == "r1" }?.value, "edited")
        XCTAssertTrue(unresolvedKeys(fleet, on: 1).isEmpty)
    }

    func testALeanPushIsSmallerThanTheWholeOneAnOlderBuildIsSent() throws {
        let world = try TestWorld()
        let lean = try syncedPair(world)
        let whole = try syncedPair(world)
        makeSiblingAnOlderBuild(whole, world)
        let skip = whole.sentFrames.count
        for fleet in [lean, whole] {
            for index in 0..<2 { _ = try fleet.replicas[index].store.markRestored() }
            try fleet.write(on: 0, RecordNamespace.self) { tx throws(SyncKernelError) in
                for index in [1, 3, 5, 7] { try tx.save(Row(id: "r\(index)", value: "edited", updatedAt: 2)) }
            }
            fleet.run(until: fleet.now + 60_000)
            try assertSameRows(fleet)
        }
        let leanPush = try XCTUnwrap(pushes(try frames(lean, world)).first)
        let wholePush = try XCTUnwrap(pushes(try frames(whole, world, from: skip)).first)
        XCTAssertNotNil(leanPush.frame.epochAnnouncement, "a push no digest announced the epoch before announces it itself")
        XCTAssertNil(wholePush.frame.epochAnnouncement)
        XCTAssertTrue(leanPush.response.rows.allSatisfy { $0.base != nil })
        XCTAssertTrue(wholePush.response.rows.allSatisfy { $0.base == nil })
        let leanBytes = try XCTUnwrap(lean.sentFrames.first { $0.from == TestWorld.device(0) }).frame.count
        let wholeBytes = try XCTUnwrap(whole.sentFrames.dropFirst(skip).first { $0.from == TestWorld.device(0) }).frame.count
        XCTAssertLessThan(leanBytes + 4 * 32 - 40, wholeBytes,
                          "lean \(leanBytes) B, whole \(wholeBytes) B: four creation entries and the epoch's are gone, the announcement is paid")
    }

    func testAnEpochAnnouncedOnADigestIsNamedByReferenceAndNotAnnouncedAgainOnceEchoed() throws {
        let world = try TestWorld()
        let fleet = try syncedPair(world)
        let epoch = try fleet.replicas[0].store.markRestored()
        // A heartbeat makes both sides announce and answer with digests: device 0's carries its epoch.
        fleet.announceAll()
        fleet.run(until: fleet.now + 30_000)
        let skip = fleet.sentFrames.count
        let announcing = try frames(fleet, world).filter { $0.from == 0 && $0.frame.epochAnnouncement != nil }
        XCTAssertFalse(announcing.isEmpty, "device 0 announced its new epoch")
        XCTAssertTrue(try frames(fleet, world).contains { $0.from == 1 && $0.frame.epochEcho == EpochAnnouncement.echo(of: epoch.dimension) },
                      "device 1 echoed it")
        try fleet.save(Row(id: "r1", value: "edited", updatedAt: 2), on: 0)
        fleet.run(until: fleet.now + 60_000)
        let later = try frames(fleet, world, from: skip)
        XCTAssertTrue(later.allSatisfy { $0.frame.epochAnnouncement == nil && $0.frame.epochEcho == nil }, "nothing announced or echoed again")
        let push = try XCTUnwrap(pushes(later).first)
        XCTAssertEqual(push.response.rows.first?.vector?[DeviceID.unresolvedEpoch], 1,
                       "read with no epoch held, the push shows it named the epoch by reference")
        try assertSameRows(fleet)
        XCTAssertEqual(try version(fleet, 1, "r1")?.vector[epoch.dimension], 1)
    }

    func testConcurrentEditsOfOneRowLeaveTheDeltaUnmergedAndConvergeAsWholePushesWould() throws {
        let world = try TestWorld()
        let lean = try syncedPair(world)
        let whole = try syncedPair(world)
        makeSiblingAnOlderBuild(whole, world, devices: [0, 1])
        for fleet in [lean, whole] {
            try fleet.save(Row(id: "r4", value: "from 0", updatedAt: 2), on: 0)
            try fleet.save(Row(id: "r4", value: "from 1", updatedAt: 3), on: 1)
            fleet.run(until: fleet.now + 120_000)
            try assertSameRows(fleet)
        }
        XCTAssertFalse(unresolvedKeys(lean, on: 0).isEmpty && unresolvedKeys(lean, on: 1).isEmpty,
                       "each side held its own write, so the other's delta did not match its base")
        XCTAssertEqual(try lean.replicas[0].store.rows(RecordNamespace.self), try whole.replicas[0].store.rows(RecordNamespace.self))
        XCTAssertEqual(try version(lean, 0, "r4")?.vector, try version(whole, 0, "r4")?.vector)
        XCTAssertEqual(try lean.replicas[0].store.conflictVersions(namespace: RecordNamespace.name, key: Array("r4".utf8)).count,
                       try whole.replicas[0].store.conflictVersions(namespace: RecordNamespace.name, key: Array("r4".utf8)).count)
    }

    func testAPushWhoseEpochTheReceiverNeverHeardIsLeftUnmergedAndTheNextPushAnnouncesAgain() throws {
        let world = try TestWorld()
        let fleet = try syncedPair(world)
        let epoch = try fleet.replicas[0].store.markRestored()
        // A push that names the epoch by reference without any announcement having arrived.
        let store = fleet.replicas[0].store
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "r1", value: "sneaked", updatedAt: 2))
        }
        let response = try XCTUnwrap(try store.respond(toKeys: [Array("r1".utf8)], namespace: RecordNamespace.name).first)
        let root = try XCTUnwrap(store.stateDigest().roots.first)
        let frame = SyncFrame(account: world.account, schema: store.namespaces.schema,
                              body: .push(response, root: root, change: store.changeCounters()[0]), compactHeader: true,
                              sender: TestWorld.device(0), positions: fleet.replicas[0].positions, receiver: TestWorld.device(1),
                              senderEpoch: epoch.dimension, deltaDimension: epoch.dimension)
        fleet.inject(frame.encoded(), into: 1, from: TestWorld.device(0))
        XCTAssertEqual(unresolvedKeys(fleet, on: 1), [Array("r1".utf8)], "the reference reads as no epoch: r1 stays unmerged")
        XCTAssertNotEqual(try fleet.replicas[1].store.rows(RecordNamespace.self).first { $0.id == "r1" }?.value, "sneaked")
        fleet.run(until: fleet.now + 120_000)
        let sent = try frames(fleet, world)
        XCTAssertTrue(sent.contains { $0.from == 1 && $0.frame.epochEcho == [] }, "device 1 said it holds no epoch of device 0")
        try assertSameRows(fleet)
        XCTAssertEqual(try fleet.replicas[1].store.rows(RecordNamespace.self).first { $0.id == "r1" }?.value, "sneaked")

        let skip = fleet.sentFrames.count
        try fleet.save(Row(id: "r3", value: "edited", updatedAt: 2), on: 0)
        fleet.run(until: fleet.now + 120_000)
        XCTAssertFalse(pushes(try frames(fleet, world, from: skip)).isEmpty)
        XCTAssertEqual(fleet.replicas[1].epochLinks[TestWorld.device(0)]?.epochs, [epoch.dimension],
                       "after the empty echo device 0 announced its epoch again")
        XCTAssertEqual(unresolvedKeys(fleet, on: 1).count, 1, "the next push was read whole")
        try assertSameRows(fleet)
    }

    func testTwoEpochsAnnouncedForOneDeviceMakeItsReferencesReadAsNone() throws {
        let world = try TestWorld()
        let fleet = try syncedPair(world)
        let schema = fleet.replicas[0].store.namespaces.schema
        for fill in [UInt8(1), 2] {
            let nonce = [UInt8](repeating: fill, count: DeviceEpoch.nonceBytes)
            let epoch = try XCTUnwrap(EpochAnnouncement(DeviceEpoch(device: TestWorld.device(0), number: 1, nonce: nonce)))
            let heartbeat = SyncFrame(account: world.account, schema: schema, body: .stateDigest(
                digest: fleet.replicas[0].store.encodedStateDigest(), probe: false, changes: fleet.replicas[0].store.changeCounters()),
                compactHeader: true, sender: TestWorld.device(0), epochAnnouncement: epoch)
            fleet.inject(heartbeat.encoded(), into: 1, from: TestWorld.device(0))
        }
        XCTAssertEqual(fleet.replicas[1].epochLinks[TestWorld.device(0)]?.epochs.count, 2, "two copies of device 0 announced")
        XCTAssertEqual(fleet.replicas[1].epochLinks[TestWorld.device(0)]?.echoDue, [], "neither is echoed")
    }

    func testFramesLeaveTheAccountTagOutOnlyToAReplicaWhoseTransportProvesTheAccount() throws {
        let world = try TestWorld()
        let fleet = try syncedPair(world, authenticated: [false, true])
        try fleet.save(Row(id: "r1", value: "edited", updatedAt: 2), on: 0)
        try fleet.save(Row(id: "r2", value: "edited", updatedAt: 2), on: 1)
        fleet.run(until: 120_000)
        let sent = try frames(fleet, world)
        XCTAssertTrue(sent.contains { $0.from == 0 })
        XCTAssertTrue(sent.filter { $0.from == 0 }.allSatisfy { $0.frame.omitsAccount }, "device 1 proves the account")
        XCTAssertTrue(sent.filter { $0.from == 1 }.allSatisfy { !$0.frame.omitsAccount }, "device 0 does not")
        try assertSameRows(fleet)

        let store = fleet.replicas[1].store
        let untagged = SyncFrame(account: world.account, schema: store.namespaces.schema,
                                 body: .stateDigest(digest: store.encodedStateDigest(), probe: true, changes: store.changeCounters()),
                                 compactHeader: true, sender: TestWorld.device(1), omitsAccount: true)
        let before = fleet.events.count
        fleet.inject(untagged.encoded(), into: 0, from: TestWorld.device(1))
        let refused = fleet.events.dropFirst(before).contains { record in
            if case .frameRefused(_, let error) = record.event { return error.code == .missingField }
            return false
        }
        XCTAssertTrue(refused, "a replica whose transport does not prove the account refuses a frame without its tag")
    }
}
