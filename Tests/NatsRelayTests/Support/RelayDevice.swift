import TestServerSupport
import Foundation
import NatsRelay
import NotebookNamespace
import Synchronization
import SyncKernel
import XCTest

/// One device of a test fleet over NATS: a SQLite store in a temporary file, a replica running
/// in a `ReplicaHost` on the real clock, and a `NatsFrameTransport` feeding it.
///
/// Invariants: every replica event is recorded in `fleetEvents` with the device's index; a
/// device starts once (`start()`), and `stop()` (any number of times) ends both loops and closes
/// the connection, after which the store file can be opened again; a setup that did not happen
/// throws `SetupError` instead of leaving a test to time out: a second `start()`, a `start()`
/// after `stop()`, notes written to a device whose loops are not running, a stored note id that
/// is not one `noteID` makes.
final class RelayDevice: Sendable {
    /// A test asked a device for something its setup did not provide.
    struct SetupError: Error, CustomStringConvertible {
        /// What did not happen.
        let description: String
    }

    /// Where a device is in its life.
    private enum Phase {
        /// Made, loops not started.
        case ready
        /// The timer loop and the relay pump, running.
        case running([Task<Void, Never>])
        /// Stopped for good.
        case stopped
    }

    /// Fast loop timings, so a test converges in seconds.
    static var fastTiming: LoopTiming {
        var timing = LoopTiming()
        timing.debounceMillis = 50
        timing.requestTimeoutMillis = 500
        timing.retryMillis = 200
        timing.maxRetryMillis = 1_000
        timing.stormBackoffMillis = 2_000
        return timing
    }

    /// The account every test device belongs to.
    static let account = [UInt8](repeating: 0xA5, count: 32)

    /// The stable identity of test device `index`.
    static func id(_ index: Int) throws -> DeviceID {
        try DeviceKeyPair(seed: [UInt8](repeating: UInt8(index + 1), count: 32)).deviceID
    }

    /// Index in the fleet.
    let index: Int
    /// The device's identity.
    let id: DeviceID
    /// The host running the replica.
    let host: ReplicaHost
    /// The relay transport.
    let transport: NatsFrameTransport
    private let fleetEvents: Recorder<FleetEvent>
    private let phase = Mutex(Phase.ready)

    /// Opens the store at `path` and connects to `servers`; the loops start with `start()`.
    init(index: Int, of count: Int, path: String, servers: [String], timing: LoopTiming = RelayDevice.fastTiming,
         fleetEvents: Recorder<FleetEvent>) throws {
        self.index = index
        id = try Self.id(index)
        let siblings = try (0..<count).map(Self.id)
        let store = try KernelStore(path: path, namespaces: NamespaceSet([NotebookNamespace.self]))
        let replica = try Replica(device: id, account: Self.account, siblings: siblings, store: store, timing: timing)
        var options = NatsRelayOptions(servers: servers)
        options.reconnectWaitMillis = 100
        options.reconnectJitterMillis = 0
        transport = try NatsFrameTransport(device: id, options: options)
        self.fleetEvents = fleetEvents
        host = ReplicaHost(replica: replica, transport: TappedTransport(inner: transport, device: index, events: fleetEvents),
                           clock: ContinuousLoopClock(), onEvent: { fleetEvents.append(FleetEvent(device: index, .replica($0))) })
    }

    /// Starts the timer loop and the relay pump (which announces the device once connected);
    /// throws on a device that already started.
    func start() throws(SetupError) {
        let host = host
        let transport = transport
        let index = index
        let events = fleetEvents
        try phase.withLock { phase throws(SetupError) in
            guard case .ready = phase else {
                throw SetupError(description: "device \(index) was started before: a device starts once (make a new one on its store)")
            }
            phase = .running([
                Task { await host.run() },
                Task { await transport.serve(host) { events.append(FleetEvent(device: index, .relay($0))) } },
            ])
        }
    }

    /// Stops both loops, closes the connection and closes the store (so the next opener of its
    /// file, one writer at a time, can take it); again, nothing more.
    func stop() async {
        let running = phase.withLock { phase in
            defer { phase = .stopped }
            guard case .running(let tasks) = phase else { return [Task<Void, Never>]() }
            return tasks
        }
        for task in running { task.cancel() }
        transport.connection.close()
        for task in running { await task.value }
        await host.closeStore()
    }

    /// Saves notes `ids` (titles name the device and the id); throws on a device whose loops are
    /// not running, since the notes would never reach the relay.
    func writeNotes(_ ids: [Int]) async throws {
        let running = phase.withLock { phase in
            guard case .running = phase else { return false }
            return true
        }
        guard running else { throw SetupError(description: "device \(index) is not running: start it before writing notes") }
        try await host.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            for id in ids { try tx.save(RelayDevice.note(id, by: index)) }
        }
    }

    /// A note with a stable id, written by device `writer`.
    static func note(_ id: Int, by writer: Int) -> Note {
        let date = Date(timeIntervalSince1970: 1_700_000_000 + Double(id))
        return Note(id: noteID(id), title: "note \(id) from device \(writer)", body: "body \(id)",
                    createdAt: date, updatedAt: date)
    }

    /// The 16-byte id of note `id`: "note-" and the number, zero-padded.
    static func noteID(_ id: Int) -> [UInt8] {
        let digits = String(id)
        return Array(("note-" + String(repeating: "0", count: max(0, 11 - digits.count)) + digits).utf8)
    }

    /// The note numbers stored at `path` (read after the device stopped); throws on a note whose
    /// id `noteID` did not make.
    static func notes(at path: String) throws -> Set<Int> {
        let store = try KernelStore(path: path, namespaces: NamespaceSet([NotebookNamespace.self]))
        defer { store.close() }
        return Set(try store.rows(NotebookNamespace.self).map { note in
            guard let number = Int(String(decoding: note.id.dropFirst(5), as: UTF8.self)), noteID(number) == note.id else {
                throw SetupError(description: "a stored note id is not one a test device writes: \(Hex.encode(note.id))")
            }
            return number
        })
    }
}

/// The relay tests stand on these devices: check their ids and notes are what they claim, and
/// that a setup that did not happen throws rather than times out.
final class RelayDeviceSelfTests: XCTestCase {
    /// A store path in a folder of this test's own, removed after the test's other teardowns.
    private func storePath() throws -> String {
        let directory = NSTemporaryDirectory() + "synckernel-relaydevice-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        return directory + "/device.sqlite"
    }

    func testIdsAreStableAndDistinctAndNoteIdsHaveSixteenBytes() throws {
        XCTAssertEqual(try RelayDevice.id(2), try RelayDevice.id(2))
        XCTAssertEqual(Set(try (0..<5).map(RelayDevice.id)).count, 5)
        XCTAssertEqual(RelayDevice.noteID(42), Array("note-00000000042".utf8))
        XCTAssertEqual(RelayDevice.noteID(12_345_678_901), Array("note-12345678901".utf8))
        XCTAssertEqual(RelayDevice.note(7, by: 1).title, "note 7 from device 1")
    }

    func testWrittenNotesReadBackAndALifecycleOutOfOrderThrows() async throws {
        let server = try await startNatsServer()
        let path = try storePath()
        let device = try RelayDevice(index: 0, of: 1, path: path, servers: [server.url], fleetEvents: Recorder())
        addTeardownBlock { await device.stop() }
        await assertSetupError { try await device.writeNotes([1]) }
        try device.start()
        XCTAssertThrowsError(try device.start()) { XCTAssertTrue($0 is RelayDevice.SetupError, "\($0)") }
        try await device.writeNotes([1, 20, 300])
        await device.stop()
        await device.stop()
        XCTAssertThrowsError(try device.start()) { XCTAssertTrue($0 is RelayDevice.SetupError, "\($0)") }
        await assertSetupError { try await device.writeNotes([2]) }
        XCTAssertEqual(try RelayDevice.notes(at: path), [1, 20, 300])
    }

    func testRejectAStoredNoteIdNoTestDeviceWrites() async throws {
        let server = try await startNatsServer()
        let path = try storePath()
        let device = try RelayDevice(index: 0, of: 1, path: path, servers: [server.url], fleetEvents: Recorder())
        addTeardownBlock { await device.stop() }
        try device.start()
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        try await device.host.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Note(id: Array("note-0000000001x".utf8), title: "t", body: "b", createdAt: date, updatedAt: date))
        }
        await device.stop()
        XCTAssertThrowsError(try RelayDevice.notes(at: path)) { XCTAssertTrue($0 is RelayDevice.SetupError, "\($0)") }
    }

    private func assertSetupError(_ body: () async throws -> Void, file: StaticString = #filePath,
                                  line: UInt = #line) async {
        do {
            try await body()
            XCTFail("no SetupError", file: file, line: line)
        } catch {
            XCTAssertTrue(error is RelayDevice.SetupError, "\(error)", file: file, line: line)
        }
    }
}
