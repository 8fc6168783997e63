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
        var inFlight = await mailA.take().map { (from: TestWorld.device(0), frame: $0.frame) }
        XCTAssertEqual(inFlight.count, 1)
        var deliveries = 0
        while !inFlight.isEmpty, deliveries < 50 {
            let next = inFlight.removeFirst()
            deliveries += 1
            if next.from == TestWorld.device(0) {
                await b.receive(next.frame, from: next.from)
            } else {
                await a.receive(next.frame, from: next.from)
            }
            inFlight += await mailA.take().map { (TestWorld.device(0), $0.frame) }
            inFlight += await mailB.take().map { (TestWorld.device(1), $0.frame) }
        }
        let (digestA, digestB) = (await a.stateDigest, await b.stateDigest)
        XCTAssertEqual(digestA, digestB)
        XCTAssertLessThan(deliveries, 50, "the pair went quiet")
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
}
