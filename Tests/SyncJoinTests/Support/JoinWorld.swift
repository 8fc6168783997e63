import Foundation
@testable import SyncEnvelope
@testable import SyncJoin
import SyncKernel
import Synchronization
import TestServerSupport
import XCTest

/// An account with a sign-in key and two devices (`laptop`, which answers sign-in requests, and
/// `desktop`), every key drawn from one seeded source, a settable clock, an in-memory relay and a
/// private temporary folder for account directories and seen sets.
///
/// Invariants: the same seed makes the same account, devices and sign-in key; the folder exists
/// for the world's life and is removed with it; the sibling's directory is `folder/laptop-account`
/// and a new device's is under `folder` too, so every file either side writes is in the folder.
final class JoinWorld {
    /// The wall-clock time every test starts at (milliseconds since 1970).
    static let now: Int64 = 1_700_000_000_000
    /// Device certificates made here expire a year after `now`.
    static let expiry: Int64 = now / 1_000 + 365 * 86_400

    let folder: String
    let entropy: EntropySource
    let clock: ManualJoinClock
    let relay = JoinRelay()
    /// The answering sibling's account directory (holding every device of the account).
    let sibling: AccountDirectory

    init(seed: UInt64 = 11) throws {
        folder = NSTemporaryDirectory() + "synckernel-join-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        entropy = EntropySource.seeded(seed)
        clock = ManualJoinClock(Self.now)
        sibling = AccountDirectory(path: folder + "/laptop-account")
        try sibling.createWithSignInKey(entropy: entropy)
        try sibling.addDevice(name: "laptop", expiresAt: Self.expiry, entropy: entropy)
        try sibling.addDevice(name: "desktop", expiresAt: Self.expiry, entropy: entropy)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A path in the world's folder.
    func path(_ name: String) -> String { "\(folder)/\(name)" }

    /// A sign-in credential of the account valid `seconds` from the clock's time.
    func credential(validFor seconds: Int64 = 600) throws -> SignInCredential {
        try sibling.signInCredential(expiresAt: clock.millisecondsSince1970 / 1_000 + seconds)
    }

    /// The sibling's discovery keys.
    func discovery() throws -> DiscoveryKeys {
        try DiscoveryKeys(accountSeed: sibling.account().seed)
    }

    /// The seen set file of the answering sibling.
    var seenPath: String { path("laptop-signin-seen.sqlite") }

    /// The answering sibling's responder, recording into `events`, publishing through `carrier`
    /// (the world's relay unless given).
    func responder(events: Recorder<JoinResponderEvent>, maxPending: Int = 8, maxPendingPerCredential: Int = 2,
                   carrier: (any JoinCarrier)? = nil) throws -> JoinResponder {
        try JoinResponder(directory: sibling, name: "laptop", replay: ReplayGuard(path: seenPath, window: SignInGate.replayWindow),
                          carrier: carrier ?? relay,
                          family: DeviceFamily("Linux laptop") ?? .thisMachine, clock: clock, maxPending: maxPending,
                          maxPendingPerCredential: maxPendingPerCredential,
                          entropy: EntropySource.seeded(99), onEvent: { events.append($0) })
    }

    /// A second sibling named `name` with its own copy of the account directory as it is now
    /// (`folder/<name>-account`: what it knows from here on is only what it hears), its own
    /// seen set, publishing on the world's relay.
    func otherSibling(_ name: String, events: Recorder<JoinResponderEvent>, maxPendingPerCredential: Int = 2) throws -> JoinResponder {
        let copy = path("\(name)-account")
        try FileManager.default.copyItem(atPath: sibling.path, toPath: copy)
        for file in files(under: copy) {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: copy + "/" + file, isDirectory: &isFolder)
            try FileManager.default.setAttributes([.posixPermissions: isFolder.boolValue ? 0o700 : 0o600],
                                                  ofItemAtPath: copy + "/" + file)
        }
        return try JoinResponder(directory: AccountDirectory(path: copy), name: name,
                                 replay: ReplayGuard(path: path("\(name)-signin-seen.sqlite"), window: SignInGate.replayWindow),
                                 carrier: relay, family: DeviceFamily("Linux desktop") ?? .thisMachine, clock: clock,
                                 maxPendingPerCredential: maxPendingPerCredential, entropy: EntropySource.seeded(98),
                                 onEvent: { events.append($0) })
    }

    /// A new device named `name` asking to join with `credential` into `folder/<directory>`.
    func requester(_ credential: SignInCredential, name: String = "phone", directory: String = "phone-account",
                   policy: JoinPolicy = JoinPolicy(), seed: UInt64 = 5,
                   events: Recorder<JoinRequesterEvent>) throws -> JoinRequester {
        try JoinRequester(credential: credential, directory: AccountDirectory(path: path(directory)), name: name, carrier: relay,
                          clock: clock, policy: policy, entropy: EntropySource.seeded(seed), onEvent: { events.append($0) })
    }

    /// Every file under `path`, relative, sorted (empty when it does not exist).
    func files(under path: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: path) else { return [] }
        return walker.compactMap { $0 as? String }.sorted()
    }
}

/// A settable clock for the join protocol; `sleep(untilMillis:)` jumps to the deadline.
final class ManualJoinClock: JoinClock {
    private let state: Mutex<Int64>

    init(_ start: Int64) {
        state = Mutex(start)
    }

    var millisecondsSince1970: Int64 { state.withLock { $0 } }

    /// Moves the clock to `time` (never backwards).
    func advance(to time: Int64) {
        state.withLock { $0 = max($0, time) }
    }

    /// Moves the clock by `millis`.
    func advance(by millis: Int64) {
        state.withLock { $0 += max(0, millis) }
    }

    func sleep(untilMillis deadline: Int64) async throws {
        advance(to: deadline)
    }
}

/// An in-memory relay: keeps each published message under its subject until the test takes it,
/// and records every subject and message it was shown.
actor JoinRelay: JoinCarrier {
    private var queues: [String: [[UInt8]]] = [:]
    private(set) var shown: [(subject: JoinSubject, bytes: [UInt8])] = []

    func publish(_ bytes: [UInt8], to subject: JoinSubject) async {
        shown.append((subject, bytes))
        queues[subject.value, default: []].append(bytes)
    }

    /// The messages waiting under `subject`, removed.
    func take(_ subject: JoinSubject) -> [[UInt8]] {
        defer { queues[subject.value] = nil }
        return queues[subject.value] ?? []
    }

    /// Whether nothing waits.
    var isEmpty: Bool { queues.values.allSatisfy(\.isEmpty) }
}

/// The join tests stand on this world: check it is as seeded and that its clock and relay
/// keep what they are given.
final class JoinWorldSelfTests: XCTestCase {
    func testTheSameSeedMakesTheSameAccountInItsOwnFolder() throws {
        let first = try JoinWorld(seed: 3)
        let again = try JoinWorld(seed: 3)
        let other = try JoinWorld(seed: 4)
        XCTAssertEqual(try first.sibling.account().userIDHash, try again.sibling.account().userIDHash)
        XCTAssertEqual(try first.sibling.signInKey().verifierPublicKey, try again.sibling.signInKey().verifierPublicKey)
        XCTAssertNotEqual(try first.sibling.account().userIDHash, try other.sibling.account().userIDHash)
        XCTAssertEqual(try first.sibling.deviceNames(), ["desktop", "laptop"])
        XCTAssertNotEqual(first.folder, again.folder)
    }

    func testTheFolderLivesAndGoesWithTheWorld() throws {
        var world: JoinWorld? = try JoinWorld()
        let folder = try XCTUnwrap(world?.folder)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/laptop-account/sign-in.key"))
        world = nil
        XCTAssertNil(world)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder))
    }

    func testTheClockMovesOnlyForwardAndTheRelayKeepsMessagesBySubject() async throws {
        let clock = ManualJoinClock(1_000)
        clock.advance(to: 500)
        XCTAssertEqual(clock.millisecondsSince1970, 1_000)
        clock.advance(by: -5)
        XCTAssertEqual(clock.millisecondsSince1970, 1_000)
        try await clock.sleep(untilMillis: 4_000)
        XCTAssertEqual(clock.millisecondsSince1970, 4_000)
        let relay = JoinRelay()
        let subject = try XCTUnwrap(JoinSubject.reply(token: [UInt8](repeating: 1, count: 16)))
        let otherSubject = try XCTUnwrap(JoinSubject.reply(token: [UInt8](repeating: 2, count: 16)))
        await relay.publish([1], to: subject)
        await relay.publish([2], to: subject)
        await relay.publish([3], to: otherSubject)
        let taken = await relay.take(subject)
        XCTAssertEqual(taken, [[1], [2]])
        let left = await relay.take(subject)
        XCTAssertEqual(left, [])
        let isEmpty = await relay.isEmpty
        XCTAssertFalse(isEmpty)
        let shown = await relay.shown
        XCTAssertEqual(shown.count, 3)
    }
}
