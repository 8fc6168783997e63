import Foundation
import Synchronization
@testable import SyncEnvelope
import SyncKernel

/// An account with `count` devices, every key drawn from one seeded source, and a private
/// temporary folder for seen sets, stores and account directories.
final class EnvelopeWorld {
    /// The wall-clock time every test starts at (milliseconds since 1970).
    static let now: Int64 = 1_700_000_000_000
    /// Certificates issued by `init` expire a year after `now`.
    static let expiry: Int64 = now / 1_000 + 365 * 86_400

    let directory: String
    let entropy: EntropySource
    let account: AccountMaterial
    private(set) var devices: [DeviceKeys] = []
    private(set) var certificates: [SenderCertificate] = []

    init(devices count: Int = 3, seed: UInt64 = 7) throws {
        directory = NSTemporaryDirectory() + "synckernel-envelope-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        entropy = EntropySource.seeded(seed)
        account = try AccountMaterial.generate(entropy: entropy)
        for _ in 0..<count { try addDevice() }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Adds a device of the account with a certificate expiring at `expiresAt`; returns its index.
    @discardableResult
    func addDevice(expiresAt: Int64 = EnvelopeWorld.expiry) throws -> Int {
        let keys = try DeviceKeys.generate(entropy: entropy)
        devices.append(keys)
        certificates.append(try account.issue(for: keys, expiresAt: expiresAt))
        return devices.count - 1
    }

    func id(_ index: Int) -> DeviceID { devices[index].device }

    func keys(_ index: Int) throws -> EnvelopeKeys {
        try EnvelopeKeys(account: account, device: devices[index], certificate: certificates[index])
    }

    /// The roster of device `index`: every device of the world, or only `members`.
    func roster(_ index: Int, members: [Int]? = nil) throws -> SiblingRoster {
        let chosen = members.map { $0.map { certificates[$0] } } ?? certificates
        return try SiblingRoster(chosen, for: keys(index))
    }

    func sealer(_ index: Int) throws -> EnvelopeSealer {
        EnvelopeSealer(keys: try keys(index), roster: try roster(index), entropy: entropy)
    }

    func replayPath(_ index: Int) -> String { "\(directory)/seen-\(index).sqlite" }

    func gate(_ index: Int, members: [Int]? = nil, window: ReplayWindow = ReplayWindow()) throws -> EnvelopeGate {
        EnvelopeGate(keys: try keys(index), roster: try roster(index, members: members),
                     replay: try ReplayGuard(path: replayPath(index), window: window))
    }

    /// A path in the world's folder.
    func path(_ name: String) -> String { "\(directory)/\(name)" }
}

/// A settable wall clock.
final class ManualWallClock: WallClock {
    private let state: Mutex<Int64>

    init(_ start: Int64 = EnvelopeWorld.now) {
        state = Mutex(start)
    }

    var millisecondsSince1970: Int64 { state.withLock { $0 } }

    func set(_ time: Int64) {
        state.withLock { $0 = time }
    }
}

/// A loop clock tests move by hand; `sleep(until:)` jumps to the deadline.
final class ManualLoopClock: LoopClock {
    private let state = Mutex<Int64>(0)

    var now: Int64 { state.withLock { $0 } }

    func advance(to time: Int64) {
        state.withLock { $0 = max($0, time) }
    }

    func sleep(until deadline: Int64) async throws {
        advance(to: deadline)
    }
}

/// An in-memory relay: keeps each published envelope under its subject until the test takes it,
/// and records everything it was shown.
actor InboxRelay: EnvelopeCarrier {
    private var queues: [String: [[UInt8]]] = [:]
    private(set) var shown: [SealedEnvelope] = []

    func publish(_ envelope: SealedEnvelope) async {
        shown.append(envelope)
        queues[envelope.subject.value, default: []].append(envelope.bytes)
    }

    /// The envelopes waiting under `subject`, removed.
    func take(_ subject: RecipientSubject) -> [[UInt8]] {
        defer { queues[subject.value] = nil }
        return queues[subject.value] ?? []
    }

    /// Whether anything waits.
    var isEmpty: Bool { queues.values.allSatisfy(\.isEmpty) }
}

/// Collects events from `@Sendable` callbacks.
final class EventLog<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])

    func record(_ event: Event) {
        events.withLock { $0.append(event) }
    }

    var all: [Event] { events.withLock { $0 } }
}
