import Synchronization
import SyncKernel
import XCTest

/// A clock tests move by hand; `sleep(until:)` jumps straight to the deadline, and refuses to
/// go past `limit` so a `run()` loop ends deterministically.
final class ManualLoopClock: LoopClock {
    private let state = Mutex<Int64>(0)
    let limit: Int64

    init(limit: Int64) {
        self.limit = limit
    }

    var now: Int64 { state.withLock { $0 } }

    func advance(to time: Int64) {
        state.withLock { $0 = max($0, time) }
    }

    func sleep(until deadline: Int64) async throws {
        guard deadline <= limit else { throw CancellationError() }
        advance(to: deadline)
    }
}

/// Records frames instead of delivering them, so the test decides when each one arrives.
actor MailboxTransport: FrameTransport {
    private(set) var outbox: [(frame: [UInt8], kind: String, to: DeviceID)] = []
    let sender: DeviceID

    init(sender: DeviceID) {
        self.sender = sender
    }

    func send(_ frame: [UInt8], kind: String, to device: DeviceID) async {
        outbox.append((frame, kind, device))
    }

    func take() -> [(frame: [UInt8], kind: String, to: DeviceID)] {
        defer { outbox.removeAll() }
        return outbox
    }
}

/// The events a host reported, in order.
final class EventLog: Sendable {
    private let events = Mutex<[ReplicaEvent]>([])

    func append(_ event: ReplicaEvent) {
        events.withLock { $0.append(event) }
    }

    var all: [ReplicaEvent] { events.withLock { $0 } }
}

final class ReplicaHostTests: XCTestCase {
    private func host(_ index: Int, world: TestWorld, clock: ManualLoopClock) throws -> (ReplicaHost, MailboxTransport) {
        let devices = [TestWorld.device(0), TestWorld.device(1)]
        let transport = MailboxTransport(sender: devices[index])
        let path = world.path()
        let account = world.account
        let store = try KernelStore(path: path, namespaces: NamespaceSet([RecordNamespace.self]))
        let replica = try Replica(device: devices[index], account: account, siblings: devices, store: store)
        return (ReplicaHost(replica: replica, transport: transport, clock: clock, onEvent: { _ in }), transport)
    }

    func testTwoHostsConvergeWhenTheirFramesAreDelivered() async throws {
        let world = try TestWorld()
        let clock = ManualLoopClock(limit: 60_000)
        let (a, mailA) = try host(0, world: world, clock: clock)
        let (b, mailB) = try host(1, world: world, clock: clock)
        try await a.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(.init(id: "x", value: "from a", updatedAt: 1))
        }
        await a.tick()
        let early = await mailA.take()
        XCTAssertTrue(early.isEmpty, "nothing before the debounce")
        clock.advance(to: 400)
        await a.tick()
        let deliveries = await pump((a, mailA), (b, mailB))
        let (digestA, digestB) = (await a.stateDigest, await b.stateDigest)
        XCTAssertEqual(digestA, digestB)
        XCTAssertGreaterThan(deliveries, 1)
        XCTAssertLessThan(deliveries, 50, "the pair went quiet")
    }

    /// Delivers every frame either host sent, in order, until both go quiet (at most 50);
    /// returns how many were delivered.
    private func pump(_ a: (host: ReplicaHost, mail: MailboxTransport), _ b: (host: ReplicaHost, mail: MailboxTransport)) async -> Int {
        var inFlight = await a.mail.take().map { (from: TestWorld.device(0), frame: $0.frame) }
        inFlight += await b.mail.take().map { (from: TestWorld.device(1), frame: $0.frame) }
        var deliveries = 0
        while !inFlight.isEmpty, deliveries < 50 {
            let next = inFlight.removeFirst()
            deliveries += 1
            if next.from == TestWorld.device(0) {
                await b.host.receive(next.frame, from: next.from)
            } else {
                await a.host.receive(next.frame, from: next.from)
            }
            inFlight += await a.mail.take().map { (TestWorld.device(0), $0.frame) }
            inFlight += await b.mail.take().map { (TestWorld.device(1), $0.frame) }
        }
        return deliveries
    }

    /// Two hosts: `a` wrote a row and broadcast its digest, and `b`, importing a snapshot, was
    /// handed that broadcast; returns them and how many frames `b` holds.
    private func pairWithAnImportUnderWay(world: TestWorld, clock: ManualLoopClock) async throws
        -> (a: ReplicaHost, mailA: MailboxTransport, b: ReplicaHost, mailB: MailboxTransport, held: Int) {
        let (a, mailA) = try host(0, world: world, clock: clock)
        let (b, mailB) = try host(1, world: world, clock: clock)
        try await a.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(.init(id: "x", value: "from a", updatedAt: 1)) }
        clock.advance(to: 400)
        await a.tick()
        let fromA = await mailA.take()
        await b.beginImport()
        for sent in fromA { await b.receive(sent.frame, from: TestWorld.device(0)) }
        return (a, mailA, b, mailB, fromA.count)
    }

    func testFramesArrivingDuringAnImportWaitForItsEndAndTheHostStaysQuietMeanwhile() async throws {
        let world = try TestWorld()
        let clock = ManualLoopClock(limit: 60_000)
        let (a, mailA, b, mailB, held) = try await pairWithAnImportUnderWay(world: world, clock: clock)
        XCTAssertGreaterThan(held, 0, "a broadcast its digest")
        try await b.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(.init(id: "y", value: "from b", updatedAt: 1)) }
        clock.advance(to: 5_000)
        await b.tick()
        let quiet = await mailB.take()
        XCTAssertTrue(quiet.isEmpty, "no answer, digest or announcement during the import: \(quiet.map(\.kind))")
        let during = await b.snapshot
        XCTAssertEqual(during.summary.namespaces.map(\.items), [1], "local writes go on during the import")
        XCTAssertEqual(during.siblings.map(\.hasShownDigest), [false], "a's digest waits")

        await b.endImport()
        let after = await b.snapshot
        XCTAssertEqual(after.siblings.map(\.hasShownDigest), [true], "the held digest reached the replica")
        _ = await pump((a, mailA), (b, mailB))
        let (digestA, digestB) = (await a.stateDigest, await b.stateDigest)
        XCTAssertEqual(digestA, digestB, "the pair converges once the import ended")
        let dropped = await b.framesDroppedWhileImporting
        XCTAssertEqual(dropped, 0)
    }

    func testFramesBeyondTheHeldBoundAreDroppedAndCountedAndTheRestHandledAfterTheImport() async throws {
        let world = try TestWorld()
        let clock = ManualLoopClock(limit: 60_000)
        let events = EventLog()
        let devices = [TestWorld.device(0), TestWorld.device(1)]
        let replica = try Replica(device: devices[1], account: world.account, siblings: devices,
                                  store: try KernelStore(path: world.path(), namespaces: NamespaceSet([RecordNamespace.self])))
        let watched = ReplicaHost(replica: replica, transport: MailboxTransport(sender: devices[1]), clock: clock,
                                  onEvent: { event in events.append(event) })
        await watched.beginImport()
        let frame = [UInt8](repeating: 0xAB, count: 1 << 20)
        let sent = ReplicaHost.heldBytesLimit / frame.count + 3
        for _ in 0..<sent { await watched.receive(frame, from: devices[0]) }
        let dropped = await watched.framesDroppedWhileImporting
        XCTAssertEqual(dropped, 3, "the frames beyond the bound are dropped and counted")
        XCTAssertTrue(events.all.isEmpty, "no frame reached the replica during the import")
        await watched.endImport()
        let refused = events.all.filter { if case .frameRefused = $0 { true } else { false } }.count
        XCTAssertEqual(refused, sent - 3, "every held frame reached the replica after the import (and was refused: it is junk)")
    }

    func testAnImportEndedByAStopDropsTheHeldFramesAndAnnouncesNothing() async throws {
        let world = try TestWorld()
        let clock = ManualLoopClock(limit: 60_000)
        let (a, mailA, b, mailB, held) = try await pairWithAnImportUnderWay(world: world, clock: clock)
        XCTAssertGreaterThan(held, 0, "a broadcast its digest")
        await b.endImport(handlingHeld: false)
        let quiet = await mailB.take()
        XCTAssertTrue(quiet.isEmpty, "a stopping device neither answers the held frames nor announces itself")
        let after = await b.snapshot
        XCTAssertEqual(after.siblings.map(\.hasShownDigest), [false], "the held digest was dropped")
        await a.announce()
        _ = await pump((a, mailA), (b, mailB))
        let (digestA, digestB) = (await a.stateDigest, await b.stateDigest)
        XCTAssertEqual(digestA, digestB, "frames after the import reach the replica again, and the pair converges")
    }

    func testTheSnapshotShowsASiblingInSyncOnlyWhileItsLastDigestMatchesOurs() async throws {
        let world = try TestWorld()
        let clock = ManualLoopClock(limit: 60_000)
        let (a, mailA) = try host(0, world: world, clock: clock)
        let (b, mailB) = try host(1, world: world, clock: clock)
        let fresh = await a.snapshot
        XCTAssertEqual(fresh.siblings, [SiblingState(device: TestWorld.device(1), hasShownDigest: false, inSync: false, reconciling: false,
                                                     backoffUntil: nil)], "not heard from yet")
        XCTAssertEqual(fresh.summary.device, TestWorld.device(0))
        try await a.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(.init(id: "x", value: "v", updatedAt: 1)) }
        clock.advance(to: 400)
        await a.tick()
        _ = await pump((a, mailA), (b, mailB))
        let synced = await a.snapshot
        XCTAssertEqual(synced.siblings.map(\.inSync), [true])
        XCTAssertEqual(synced.siblings.map(\.hasShownDigest), [true])
        XCTAssertEqual(synced.summary.namespaces.map(\.items), [1])
        let pulled = await b.snapshot
        XCTAssertGreaterThan(pulled.roundsStarted + synced.roundsStarted, 0, "the write moved in a round")
        XCTAssertEqual(pulled.summary.namespaces, synced.summary.namespaces)

        try await a.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(.init(id: "y", value: "v", updatedAt: 2)) }
        let ahead = await a.snapshot
        XCTAssertEqual(ahead.siblings.map(\.inSync), [false], "a local write b has not seen")

        await a.closeStore()
        await a.closeStore()
        do throws(SyncKernelError) {
            try await a.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(.init(id: "z", value: "v", updatedAt: 3)) }
            XCTFail("a closed store takes no write")
        } catch {
            XCTAssertEqual(error.code, .storeClosed)
        }
    }

    func testRunFiresTheDebouncedBroadcastAndEndsWithItsTask() async throws {
        let world = try TestWorld()
        let clock = ManualLoopClock(limit: 1_000)
        let (a, mailA) = try host(0, world: world, clock: clock)
        try await a.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(.init(id: "x", value: "v", updatedAt: 1))
        }
        await a.run()
        let sent = await mailA.take()
        XCTAssertEqual(sent.map(\.kind), ["state_digest"])
        XCTAssertGreaterThanOrEqual(clock.now, 400)
    }

    func testASiblingAddedAtRuntimeIsAnnouncedToOnceAndTheLoopSleepsNoEarlierThanNow() async throws {
        let world = try TestWorld()
        let clock = ManualLoopClock(limit: 10_000)
        let (a, mailA) = try host(0, world: world, clock: clock)
        clock.advance(to: 5_000)
        let added = await a.addSibling(TestWorld.device(2))
        XCTAssertTrue(added)
        let sent = await mailA.take()
        XCTAssertEqual(sent.map(\.to), [TestWorld.device(2)], "the new sibling is announced to")
        XCTAssertEqual(sent.map(\.kind), ["heartbeat"])
        let again = await a.addSibling(TestWorld.device(2))
        let itself = await a.addSibling(TestWorld.device(0))
        XCTAssertFalse(again)
        XCTAssertFalse(itself)
        let none = await mailA.take()
        XCTAssertTrue(none.isEmpty, "a known sibling or this device itself changes nothing")
        // The announcement is armed at `Int64.min`: the loop asks its clock for no deadline before
        // now (a real clock computes `deadline - now`, which must not overflow).
        let recording = DeadlineRecordingClock(start: 5_000, limit: 10_000)
        let store = try KernelStore(path: world.path(), namespaces: NamespaceSet([RecordNamespace.self]))
        let replica = try Replica(device: TestWorld.device(3), account: world.account, siblings: [TestWorld.device(1)], store: store)
        let b = ReplicaHost(replica: replica, transport: MailboxTransport(sender: TestWorld.device(3)), clock: recording, onEvent: { _ in })
        await b.addSibling(TestWorld.device(2))
        await b.run()
        XCTAssertFalse(recording.asked.isEmpty)
        XCTAssertTrue(recording.asked.allSatisfy { $0.deadline >= $0.now }, "deadlines asked: \(recording.asked.prefix(3))")
        await b.closeStore()
        let siblings = await a.snapshot.siblings.map(\.device)
        XCTAssertEqual(siblings, [TestWorld.device(1), TestWorld.device(2)])
        await a.closeStore()
    }
}

/// A loop clock that records every deadline it is asked to sleep until, with the time it was asked.
final class DeadlineRecordingClock: LoopClock {
    private let state: Mutex<(now: Int64, asked: [(now: Int64, deadline: Int64)])>
    let limit: Int64

    init(start: Int64, limit: Int64) {
        state = Mutex((start, []))
        self.limit = limit
    }

    var now: Int64 { state.withLock { $0.now } }
    var asked: [(now: Int64, deadline: Int64)] { state.withLock { $0.asked } }

    func sleep(until deadline: Int64) async throws {
        try state.withLock { state in
            state.asked.append((state.now, deadline))
            guard deadline <= limit else { throw CancellationError() }
            state.now = max(state.now, deadline)
        }
    }
}
