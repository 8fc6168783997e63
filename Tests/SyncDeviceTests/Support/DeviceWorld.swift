import Foundation
import NatsRelay
import NotebookNamespace
import SyncDevice
import SyncEnvelope
import SyncKernel
import XCTest

/// An account directory with `count` devices in a private temporary folder, and the
/// configuration of each device (notebook only, its store in the folder, fast loop timings).
final class DeviceWorld {
    /// Loop timings that converge in well under a second on loopback.
    static var fastTiming: LoopTiming {
        var timing = LoopTiming()
        timing.debounceMillis = 50
        timing.requestTimeoutMillis = 500
        timing.retryMillis = 200
        timing.maxRetryMillis = 1_000
        timing.stormBackoffMillis = 2_000
        return timing
    }

    let directory: String
    let account: AccountDirectory
    let names: [String]

    init(devices count: Int) throws {
        directory = NSTemporaryDirectory() + "synckernel-device-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        account = AccountDirectory(path: directory + "/account")
        try account.create()
        names = (0..<count).map { "device-\($0)" }
        let expiry = SystemWallClock().millisecondsSince1970 / 1_000 + 86_400
        for name in names { try account.addDevice(name: name, expiresAt: expiry) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The store path of device `index`.
    func store(_ index: Int) -> String { "\(directory)/device-\(index).sqlite" }

    /// The configuration of device `index` on `servers`.
    func configuration(_ index: Int, servers: [String]) throws -> SyncDeviceConfiguration {
        var configuration = SyncDeviceConfiguration(account: account, name: names[index], storePath: store(index),
                                                    namespaces: try NamespaceSet([NotebookNamespace.self]),
                                                    relay: Self.relay(servers))
        configuration.timing = Self.fastTiming
        return configuration
    }

    /// NATS relay options for `servers` that reconnect quickly.
    static func relay(_ servers: [String]) -> NatsRelayOptions {
        var options = NatsRelayOptions(servers: servers)
        options.reconnectWaitMillis = 100
        return options
    }

    /// A note with a title naming `index`.
    static func note(_ index: Int) -> Note {
        let when = Date(timeIntervalSince1970: 1_700_000_000)
        var id = Array("note-".utf8) + Array(String(index).utf8)
        id += [UInt8](repeating: 0, count: max(0, 16 - id.count))
        return Note(id: id, title: "note \(index)", body: "body \(index)", createdAt: when, updatedAt: when)
    }

    /// The indexes of the notes stored at `path` (opened after its device stopped).
    static func notes(at path: String) throws -> Set<Int> {
        let store = try KernelStore(path: path, namespaces: NamespaceSet([NotebookNamespace.self]))
        defer { store.close() }
        return Set(try store.rows(NotebookNamespace.self).compactMap { Int($0.title.dropFirst(5)) })
    }
}

/// `DeviceWorld` sets up every device test: check the account it makes, the configurations it
/// hands out, its notes and their read-back, and that its folder goes with it.
final class DeviceWorldSelfTests: XCTestCase {
    func testTheAccountHoldsEveryDeviceAndEachConfigurationPointsAtItsOwnStore() throws {
        let world = try DeviceWorld(devices: 3)
        XCTAssertEqual(try world.account.deviceNames().sorted(), ["device-0", "device-1", "device-2"])
        XCTAssertEqual(Set((0..<3).map(world.store)).count, 3, "one store per device")
        XCTAssertTrue((0..<3).allSatisfy { world.store($0).hasPrefix(world.directory + "/") })
        let configuration = try world.configuration(1, servers: ["nats://127.0.0.1:4222"])
        XCTAssertEqual(configuration.name, "device-1")
        XCTAssertEqual(configuration.storePath, world.store(1))
        XCTAssertEqual((configuration.relay as? NatsRelayOptions)?.servers, ["nats://127.0.0.1:4222"])
        XCTAssertEqual(configuration.timing, DeviceWorld.fastTiming)
        XCTAssertLessThan(DeviceWorld.fastTiming.debounceMillis, LoopTiming().debounceMillis, "faster than the defaults")
    }

    func testNotesHaveSixteenByteIdsAndReadBackByTheirIndex() throws {
        let world = try DeviceWorld(devices: 1)
        XCTAssertEqual(DeviceWorld.note(7).id.count, 16)
        XCTAssertNotEqual(DeviceWorld.note(1).id, DeviceWorld.note(10).id)
        let store = try KernelStore(path: world.store(0), namespaces: NamespaceSet([NotebookNamespace.self]))
        try store.configureDevice(try world.account.deviceKeys(name: "device-0").device)
        try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            for index in [3, 12, 40] { try tx.save(DeviceWorld.note(index)) }
        }
        store.close()
        XCTAssertEqual(try DeviceWorld.notes(at: world.store(0)), [3, 12, 40])
    }

    func testTheFolderGoesWithTheWorld() throws {
        var world: DeviceWorld? = try DeviceWorld(devices: 1)
        let directory = try XCTUnwrap(world?.directory)
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory))
        world = nil
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory))
    }
}
