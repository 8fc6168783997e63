import Foundation
import SyncKernel
import SyncKernelSimulator
import XCTest

/// A causal key/value namespace for kernel tests: `value` is hashed, `observedBy` is per-device.
enum RecordNamespace: SyncNamespace {
    struct Row: Sendable, Hashable {
        var id: String
        var value: String
        var updatedAt: Int64
        var observedBy: String = ""
    }

    static let name = "records"
    static let schema = RowSchema<Row>(blank: Row(id: "", value: "", updatedAt: 0), key: \.id, [
        .hashed("id", \.id, .text),
        .hashed("value", \.value, .text),
        .hashed("updatedAt", \.updatedAt, .int64),
        .excluded("observedBy", \.observedBy, .text, .perDevice, reason: "which device saw it first"),
    ])
    static let mergeRule = MergeRule<Row>.causal(changeStamp: \.updatedAt)
}

/// A deliberately broken namespace: append-only, but it hashes a per-device field the merge never converges.
enum StormyNamespace: SyncNamespace {
    struct Row: Sendable, Hashable {
        var id: String
        var seenOnDevice: String
    }

    static let name = "stormy"
    static let schema = RowSchema<Row>(blank: Row(id: "", seenOnDevice: ""), key: \.id, [
        .hashed("id", \.id, .text),
        .hashed("seenOnDevice", \.seenOnDevice, .text),
    ])
    static let mergeRule = MergeRule<Row>.insertIfAbsent
}

/// Creates stores, devices and fleets in a private temporary folder.
final class TestWorld {
    let directory: String
    let account = SHA256.hash(domain: Array("test.account".utf8), [1])
    /// The nonces of every store's device epochs and leases: one seeded stream for the world,
    /// so runs repeat and no two stores draw the same nonce.
    let entropy = EntropySource.seeded(11)
    private var counter = 0

    init() throws {
        directory = NSTemporaryDirectory() + "synckernel-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The stable identity of test device `index`.
    static func device(_ index: Int) -> DeviceID {
        // Key derivation from a fixed seed cannot fail for a 32-byte seed.
        try! DeviceKeyPair(seed: [UInt8](repeating: UInt8(index + 1), count: 32)).deviceID
    }

    /// A fresh store file path.
    func path(_ name: String? = nil) -> String {
        counter += 1
        return "\(directory)/\(name ?? "store-\(counter)").sqlite"
    }

    /// A store with `namespaces`, configured as device `index` unless `configure` is false.
    func store(_ namespaces: [any SyncNamespace.Type] = [RecordNamespace.self], device index: Int? = 0,
               path: String? = nil) throws -> KernelStore {
        let store = try KernelStore(path: path ?? self.path(), namespaces: NamespaceSet(namespaces), entropy: entropy)
        if let index { try store.configureDevice(TestWorld.device(index)) }
        return store
    }

    /// `count` replicas over fresh stores, joined in a fleet; `modes` gives each device's
    /// reconcile mode in device order (nil: every device `.sketch`), `hostCapabilities` each
    /// device's host capabilities (nil: none).
    func fleet(_ count: Int, namespaces: [any SyncNamespace.Type] = [RecordNamespace.self],
               conditions: RelayConditions = RelayConditions(), seed: UInt64 = 7,
               timing: LoopTiming = LoopTiming(), modes: [ReconcileMode]? = nil,
               hostCapabilities: [[String]]? = nil, paths: [String]? = nil) throws -> Fleet {
        precondition(modes.map { $0.count == count } ?? true, "one mode per device")
        precondition(hostCapabilities.map { $0.count == count } ?? true, "one list per device")
        precondition(paths.map { $0.count == count } ?? true, "one path per device")
        let devices = (0..<count).map(TestWorld.device)
        let replicas = try (0..<count).map { index in
            try Replica(device: devices[index], account: account, siblings: devices,
                        store: store(namespaces, device: nil, path: paths?[index]), timing: timing, mode: modes?[index] ?? .sketch,
                        hostCapabilities: hostCapabilities?[index] ?? [])
        }
        return Fleet(replicas: replicas, conditions: conditions, seed: seed)
    }
}

extension Fleet {
    /// Saves a record on replica `index`.
    func save(_ row: RecordNamespace.Row, on index: Int) throws {
        try write(on: index, RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(row) }
    }

    /// One seeded write on a random device of the first `devices`: with probability
    /// `deleteChance` a delete of a random key `r0` to `r<keys - 1>`, else a save of it whose value
    /// names `step` and the device.
    func randomWrite(_ random: inout SeededGenerator, step: Int, devices: Int, keys: Int, deleteChance: Double) throws {
        let device = Int(random.next() % UInt64(devices))
        let id = "r\(random.next() % UInt64(keys))"
        if random.chance(deleteChance) {
            try write(on: device, RecordNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: Array(id.utf8)) }
        } else {
            try save(RecordNamespace.Row(id: id, value: "v\(step)-\(device)", updatedAt: Int64(step)), on: device)
        }
    }

    /// Frames sent so far, by kind, across all links.
    func frames(kind: String) -> Int {
        relay.traffic.values.reduce(0) { $0 + ($1.framesByKind[kind] ?? 0) }
    }

    /// Events of one replica.
    func events(of index: Int) -> [ReplicaEvent] {
        events.filter { $0.device == replicas[index].device }.map(\.event)
    }
}

/// The fixtures are what the other tests stand on: check they are what they claim to be.
final class FixtureSelfTests: XCTestCase {
    func testRecordFixtureRoundTripsAndExcludesOnlyObservedBy() throws {
        let row = RecordNamespace.Row(id: "a", value: "v", updatedAt: 3, observedBy: "phone")
        XCTAssertEqual(try RecordNamespace.decodeRow(bytes: RecordNamespace.rowEncoding(of: row)), row)
        var elsewhere = row
        elsewhere.observedBy = "laptop"
        XCTAssertEqual(RecordNamespace.leaf(of: elsewhere), RecordNamespace.leaf(of: row), "observedBy is excluded")
        elsewhere.value = "w"
        XCTAssertNotEqual(RecordNamespace.leaf(of: elsewhere), RecordNamespace.leaf(of: row), "value is hashed")
        XCTAssertEqual(RecordNamespace.adopt(elsewhere, over: row).observedBy, "phone", "adoption keeps the local device's field")
    }

    func testStormyFixtureHashesItsPerDeviceFieldAndNeverMergesIt() throws {
        let mine = StormyNamespace.Row(id: "s", seenOnDevice: "a")
        let theirs = StormyNamespace.Row(id: "s", seenOnDevice: "b")
        XCTAssertNotEqual(StormyNamespace.leaf(of: mine), StormyNamespace.leaf(of: theirs), "the storm needs a hashed per-device field")
        XCTAssertEqual(StormyNamespace.mergeRule.name, "insertIfAbsent", "the storm needs a rule that keeps the local row")
        XCTAssertEqual(try StormyNamespace.decodeRow(bytes: StormyNamespace.rowEncoding(of: mine)), mine)
    }

    func testFlipFlopFixtureTakesTheIncomingValueSoCrossedPullsSwap() throws {
        let mine = FlipFlopNamespace.Row(id: "f", state: "a")
        let theirs = FlipFlopNamespace.Row(id: "f", state: "b")
        XCTAssertNotEqual(FlipFlopNamespace.leaf(of: mine), FlipFlopNamespace.leaf(of: theirs), "the state is hashed")
        XCTAssertEqual(FlipFlopNamespace.joined(mine, theirs), theirs, "each side takes the other's value")
        XCTAssertEqual(FlipFlopNamespace.joined(theirs, mine), mine, "so the join is not commutative: two crossed pulls swap")
        XCTAssertEqual(try FlipFlopNamespace.decodeRow(bytes: FlipFlopNamespace.rowEncoding(of: mine)), mine)
    }

    func testTestWorldMintsDistinctStableDevicesAndFreshStores() throws {
        XCTAssertEqual(TestWorld.device(3), TestWorld.device(3))
        XCTAssertEqual(Set((0..<5).map(TestWorld.device)).count, 5)
        let world = try TestWorld()
        XCTAssertNotEqual(world.path(), world.path())
        let store = try world.store()
        XCTAssertEqual(store.device, TestWorld.device(0))
        XCTAssertEqual(store.stateDigest().roots, [Array(MerkleTree.emptyRoot.prefix(StateDigest.setHashRootBytes))])
    }
}

/// A deliberately broken namespace: a join whose custom merge takes the incoming value, so two
/// devices that pull from each other at once swap their values and keep swapping (a flip-flop).
enum FlipFlopNamespace: SyncNamespace {
    struct Row: Sendable, Hashable {
        var id: String
        var state: String
    }

    static let name = "flipflop"
    static let schema = RowSchema<Row>(blank: Row(id: "", state: ""), key: \.id, [
        .hashed("id", \.id, .text),
        .hashed("state", \.state, .text, merge: .custom("incomingWins") { _, incoming in incoming }),
    ])
    static let mergeRule = MergeRule<Row>.join()
}
