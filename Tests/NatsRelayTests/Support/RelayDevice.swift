import Foundation
import NatsRelay
import NotebookNamespace
import Synchronization
import SyncKernel

/// One device of a test fleet over NATS: a SQLite store in a temporary file, a replica running
/// in a `ReplicaHost` on the real clock, and a `NatsFrameTransport` feeding it.
///
/// Invariants: every replica event is recorded in `fleetEvents` with the device's index;
/// `stop()` ends both loops and closes the connection, after which the store file can be
/// opened again.
final class RelayDevice: Sendable {
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
    private let tasks = Mutex<[Task<Void, Never>]>([])

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

    /// Starts the timer loop and the relay pump (which announces the device once connected).
    func start() {
        let host = host
        let transport = transport
        let index = index
        let events = fleetEvents
        tasks.withLock { tasks in
            tasks = [
                Task { await host.run() },
                Task { await transport.serve(host) { events.append(FleetEvent(device: index, .relay($0))) } },
            ]
        }
    }

    /// Stops both loops and closes the connection.
    func stop() async {
        let running = tasks.withLock { tasks in
            defer { tasks.removeAll() }
            return tasks
        }
        for task in running { task.cancel() }
        transport.connection.close()
        for task in running { await task.value }
    }

    /// Saves notes `ids` (titles name the device and the id).
    func writeNotes(_ ids: [Int]) async throws {
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

    /// The note numbers stored at `path` (read after the device stopped).
    static func notes(at path: String) throws -> Set<Int> {
        let store = try KernelStore(path: path, namespaces: NamespaceSet([NotebookNamespace.self]))
        defer { store.close() }
        return Set(try store.rows(NotebookNamespace.self).compactMap { Int(String(decoding: $0.id.dropFirst(5), as: UTF8.self)) })
    }
}
