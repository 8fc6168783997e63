import ContactsNamespace
import Foundation
import MemoryNamespace
import MessagesNamespace
import OtherNamespaces
import SettingsNamespace
import SyncKernel
import XCTest

/// Two devices of one account, each with a store of every namespace, reconciled by hand.
final class TwoDevices {
    static let all: [any SyncNamespace.Type] = [
        SettingsNamespace.self, MessagesNamespace.self, MemoryNamespace.self, ContactsNamespace.self,
        PeerDevicesNamespace.self, SagaNamespace.self, PlansNamespace.self, FileIndexNamespace.self,
        KTIdentityLedgerNamespace.self, BlocksNamespace.self, PostsNamespace.self, AgentConversationsNamespace.self,
    ]

    let directory: String
    let a: KernelStore
    let b: KernelStore
    let deviceA: DeviceID
    let deviceB: DeviceID

    init() throws {
        directory = NSTemporaryDirectory() + "namespaces-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let namespaces = try NamespaceSet(TwoDevices.all)
        deviceA = try DeviceKeyPair(seed: [UInt8](repeating: 0xa, count: 32)).deviceID
        deviceB = try DeviceKeyPair(seed: [UInt8](repeating: 0xb, count: 32)).deviceID
        a = try KernelStore(path: directory + "/a.sqlite", namespaces: namespaces)
        b = try KernelStore(path: directory + "/b.sqlite", namespaces: namespaces)
        try a.configureDevice(deviceA)
        try b.configureDevice(deviceB)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `puller` pulls namespace `N` from `responder`; returns the outcome (nil when the responder was silent).
    @discardableResult
    func pull<N: SyncNamespace>(_ namespace: N.Type, into puller: KernelStore, from responder: KernelStore) throws -> ApplyOutcome? {
        var outcome: ApplyOutcome?
        for response in try responder.respond(to: puller.reconcileRequest(for: N.name)) {
            let applied = try puller.apply(response)
            outcome = outcome.map { $0.combined(with: applied) } ?? applied
        }
        return outcome
    }

    /// Both devices pull `N` from each other.
    func sync<N: SyncNamespace>(_ namespace: N.Type) throws {
        try pull(namespace, into: a, from: b)
        try pull(namespace, into: b, from: a)
    }

    /// The root of namespace `N` on `store`.
    func root<N: SyncNamespace>(_ namespace: N.Type, _ store: KernelStore) -> [UInt8] {
        let digest = store.stateDigest()
        guard let index = digest.namespaces.firstIndex(of: N.name) else { return [] }
        return digest.roots[index]
    }

    /// Whether both devices hold the same root for `N`.
    func agree<N: SyncNamespace>(_ namespace: N.Type) -> Bool {
        root(namespace, a) == root(namespace, b)
    }

    static func id(_ byte: UInt8) -> [UInt8] { [UInt8](repeating: byte, count: 16) }
    static func key32(_ byte: UInt8) -> [UInt8] { [UInt8](repeating: byte, count: 32) }
    static func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }
}

/// The harness the namespace tests stand on: check it registers what it claims and starts level.
final class TwoDevicesSelfTests: XCTestCase {
    func testEveryNamespaceButTheNotebookIsRegisteredOnceAndFreshDevicesAgree() throws {
        let names = TwoDevices.all.map { $0.name }
        XCTAssertEqual(Set(names).count, 12, "\(names)")
        XCTAssertFalse(names.contains("notebook"), "the notebook has its own test target")
        let pair = try TwoDevices()
        XCTAssertNotEqual(pair.deviceA, pair.deviceB)
        XCTAssertEqual(pair.a.stateDigest(), pair.b.stateDigest())
        XCTAssertEqual(pair.a.stateDigest().namespaces, names.sorted())
        XCTAssertNil(try pair.pull(SettingsNamespace.self, into: pair.a, from: pair.b), "nothing to give: the responder is silent")
    }
}
