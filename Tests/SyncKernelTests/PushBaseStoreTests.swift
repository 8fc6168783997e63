@testable import SyncKernel
import XCTest

/// What a clean stop keeps for the next run's pushes (`KernelStore.keepPushBases` and
/// `takePushBases`): taken once, bounded, and only of this store's namespaces.
final class PushBaseStoreTests: XCTestCase {
    func testKeptBasesAreTakenOnceWithKnownEmptyNamespacesKept() throws {
        let world = try TestWorld()
        let path = world.path()
        let store = try world.store(device: nil, path: path)
        let (b, c) = (TestWorld.device(1), TestWorld.device(2))
        let bases: [DeviceID: [String: Set<[UInt8]>]] = [b: [RecordNamespace.name: [[1], [2, 3]]], c: [RecordNamespace.name: []]]
        try store.keepPushBases(bases)
        store.close()
        let reopened = try world.store(device: nil, path: path)
        XCTAssertEqual(try reopened.takePushBases(limit: 10), bases, "a known namespace with nothing written is kept as known")
        XCTAssertEqual(try reopened.takePushBases(limit: 10), [:], "taken once")
    }

    func testANamespaceWithMoreKeysThanTheLimitOrNotOfThisStoreIsLeftOut() throws {
        let world = try TestWorld()
        let store = try world.store(device: nil, path: world.path())
        let b = TestWorld.device(1)
        try store.keepPushBases([b: [RecordNamespace.name: Set((0..<5).map { [UInt8($0)] }), "elsewhere": [[9]]]])
        XCTAssertEqual(try store.takePushBases(limit: 4), [b: [:]], "five keys past a limit of four: unknown; a foreign namespace: dropped")
        try store.keepPushBases([b: [RecordNamespace.name: Set((0..<4).map { [UInt8($0)] })]])
        XCTAssertEqual(try store.takePushBases(limit: 4)[b]?[RecordNamespace.name]?.count, 4, "at the limit: kept")
    }

    func testKeepingReplacesWhatWasKept() throws {
        let world = try TestWorld()
        let store = try world.store(device: nil, path: world.path())
        let (b, c) = (TestWorld.device(1), TestWorld.device(2))
        try store.keepPushBases([b: [RecordNamespace.name: [[1]]]])
        try store.keepPushBases([c: [RecordNamespace.name: [[2]]]])
        XCTAssertEqual(try store.takePushBases(limit: 10), [c: [RecordNamespace.name: [[2]]]])
    }
}
