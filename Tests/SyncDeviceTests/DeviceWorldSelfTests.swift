import Foundation
import NotebookNamespace
import SyncDevice
import SyncEnvelope
import SyncKernel
import XCTest

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
        XCTAssertEqual(configuration.relay.servers, ["nats://127.0.0.1:4222"])
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
