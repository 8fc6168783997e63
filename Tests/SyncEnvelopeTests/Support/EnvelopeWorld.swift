import Foundation
import Synchronization
@testable import SyncEnvelope
import SyncKernel
import XCTest

/// An account with `count` devices, every key drawn from one seeded source, and a private
/// temporary folder for seen sets, stores and account directories.
///
/// Invariants: the same seed makes the same account and devices; the folder exists for the
/// world's life and is removed with it; asking for a device the world does not have (a negative
/// count, an index or roster member past its devices) throws `SetupError` rather than trapping.
final class EnvelopeWorld {
    /// A test asked the world for a device its setup did not make.
    struct SetupError: Error, CustomStringConvertible {
        /// What did not happen.
        let description: String
    }

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
        guard count >= 0 else { throw SetupError(description: "a world of \(count) devices") }
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

    /// `index`, checked to name one of the world's devices.
    private func device(_ index: Int) throws(SetupError) -> Int {
        guard devices.indices.contains(index) else {
            throw SetupError(description: "device \(index) is not one of this world's \(devices.count) devices")
        }
        return index
    }

    func id(_ index: Int) throws -> DeviceID { devices[try device(index)].device }

    func keys(_ index: Int) throws -> EnvelopeKeys {
        let index = try device(index)
        return try EnvelopeKeys(account: account, device: devices[index], certificate: certificates[index])
    }

    /// The roster of device `index`: every device of the world, or only `members`.
    func roster(_ index: Int, members: [Int]? = nil) throws -> SiblingRoster {
        let chosen = try members.map { try $0.map { certificates[try device($0)] } } ?? certificates
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

/// The envelope tests stand on this world: check it is as seeded, refuses a device it does not
/// have, and that its clocks and relay keep what they are given (events go to `Recorder`).
final class EnvelopeWorldSelfTests: XCTestCase {
    private func heartbeat(_ world: EnvelopeWorld) -> [UInt8] {
        SyncFrame(account: world.account.userIDHash, schema: SchemaFingerprint(value: 1), body: .heartbeat).encoded()
    }

    func testTheSameSeedMakesTheSameWorldInItsOwnFolder() throws {
        let first = try EnvelopeWorld(seed: 5)
        let again = try EnvelopeWorld(seed: 5)
        let other = try EnvelopeWorld(seed: 6)
        XCTAssertEqual(try (0..<3).map(first.id), try (0..<3).map(again.id))
        XCTAssertEqual(first.account.userIDHash, again.account.userIDHash)
        XCTAssertNotEqual(first.account.userIDHash, other.account.userIDHash)
        XCTAssertEqual(Set(try (0..<3).map(first.id)).count, 3, "distinct devices")
        XCTAssertNotEqual(first.directory, again.directory)
    }

    func testTheFolderLivesAndGoesWithTheWorld() throws {
        var world: EnvelopeWorld? = try EnvelopeWorld(devices: 1)
        let directory = try XCTUnwrap(world?.directory)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory))
        world = nil
        XCTAssertNil(world)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory))
    }

    func testAnAddedDeviceGetsTheNextIndexAndARosterEntry() throws {
        let world = try EnvelopeWorld(devices: 2)
        XCTAssertEqual(try world.addDevice(), 2)
        XCTAssertNotNil(try world.roster(0).certificate(of: try world.id(2)))
        XCTAssertNil(try world.roster(0, members: [0, 1]).certificate(of: try world.id(2)))
    }

    func testRejectADeviceTheWorldDoesNotHave() throws {
        XCTAssertThrowsError(try EnvelopeWorld(devices: -1)) { XCTAssertTrue($0 is EnvelopeWorld.SetupError, "\($0)") }
        let world = try EnvelopeWorld(devices: 2)
        let missing: [(String, () throws -> Void)] = [
            ("id", { _ = try world.id(2) }), ("keys", { _ = try world.keys(-1) }),
            ("roster member", { _ = try world.roster(0, members: [0, 5]) }), ("sealer", { _ = try world.sealer(3) }),
            ("gate", { _ = try world.gate(2) }),
        ]
        for (name, ask) in missing {
            XCTAssertThrowsError(try ask(), name) { XCTAssertTrue($0 is EnvelopeWorld.SetupError, "\(name): \($0)") }
        }
    }

    func testTheClocksMoveOnlyAsTold() async throws {
        let wall = ManualWallClock()
        XCTAssertEqual(wall.millisecondsSince1970, EnvelopeWorld.now)
        wall.set(5)
        XCTAssertEqual(wall.millisecondsSince1970, 5)
        let loop = ManualLoopClock()
        XCTAssertEqual(loop.now, 0)
        try await loop.sleep(until: 1_000)
        XCTAssertEqual(loop.now, 1_000, "a sleep jumps to its deadline")
        loop.advance(to: 10)
        XCTAssertEqual(loop.now, 1_000, "never backwards")
    }

    func testTheInboxRelayKeepsEnvelopesBySubjectUntilTakenAndTheLogInOrder() async throws {
        let world = try EnvelopeWorld()
        let relay = InboxRelay()
        let toOne = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: EnvelopeWorld.now)
        let toTwo = try world.sealer(0).seal(heartbeat(world), to: world.id(2), now: EnvelopeWorld.now)
        await relay.publish(toOne)
        await relay.publish(toTwo)
        let shown = await relay.shown.map(\.bytes)
        XCTAssertEqual(shown, [toOne.bytes, toTwo.bytes])
        let taken = await relay.take(toOne.subject)
        XCTAssertEqual(taken, [toOne.bytes])
        let again = await relay.take(toOne.subject)
        XCTAssertEqual(again, [])
        let waiting = await relay.isEmpty
        XCTAssertFalse(waiting, "the envelope to device 2 still waits")
        _ = await relay.take(toTwo.subject)
        let empty = await relay.isEmpty
        XCTAssertTrue(empty)
    }
}
