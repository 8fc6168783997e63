import Foundation
import SyncKernel
import SyncKernelSimulator
import TodoNamespace
import XCTest

/// The list and tree patterns of the app guide (docs/device.md), checked on fleets of real stores:
/// two devices inserting at one spot list both in one order; children of a deleted parent stay,
/// at the root; re-parenting apart into a cycle is cut at the smallest id; and the tree is the
/// same whatever order the rows come in.
final class ListAndTreePatternTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "synckernel-patterns-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private static func device(_ index: Int) throws -> DeviceID {
        try DeviceKeyPair(seed: [UInt8](repeating: UInt8(index + 40), count: 32)).deviceID
    }

    /// Two replicas of `namespaces` over fresh stores that met.
    private func fleet(_ namespaces: [any SyncNamespace.Type]) throws -> Fleet {
        let devices = try (0..<2).map(Self.device)
        let account = SHA256.hash(domain: Array("patterns.account".utf8), [1])
        let replicas = try (0..<2).map { index in
            try Replica(device: devices[index], account: account, siblings: devices,
                        store: KernelStore(path: "\(folder)/device-\(index)-\(UUID().uuidString).sqlite", namespaces: NamespaceSet(namespaces)))
        }
        let fleet = Fleet(replicas: replicas, conditions: RelayConditions(), seed: 3)
        fleet.announceAll()
        return fleet
    }

    private func id(_ byte: UInt8) -> [UInt8] { [UInt8](repeating: byte, count: 16) }

    /// Runs `first` on device 0 and `second` on device 1 while they are apart, then lets them meet
    /// until their roots match.
    private func apart(_ fleet: Fleet, _ first: () throws -> Void, _ second: () throws -> Void,
                       file: StaticString = #filePath, line: UInt = #line) rethrows {
        fleet.partition([[0], [1]])
        try first()
        try second()
        fleet.heal()
        fleet.announceAll()
        fleet.run(until: fleet.now + 60_000)
        XCTAssertTrue(fleet.allRootsMatch, file: file, line: line)
    }
    private let when = Date(timeIntervalSince1970: 1_800_000_000)

    private func tasks(_ fleet: Fleet, _ index: Int) throws -> [String] {
        try fleet.replicas[index].store.rows(TodoNamespace.self).sorted(by: TodoTask.listOrder).map(\.title)
    }

    private func tree(_ fleet: Fleet, _ index: Int) throws -> [String] {
        OutlineTree(try fleet.replicas[index].store.rows(OutlineNamespace.self)).outline
    }

    func testTwoDevicesInsertingAtOneSpotListBothInOneOrder() throws {
        let fleet = try fleet([TodoNamespace.self])
        let first = OrderKey.between(nil, and: nil)
        let last = OrderKey.between(first, and: nil)
        try fleet.write(on: 0, TodoNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(TodoTask(id: id(1), title: "first", position: first, updatedAt: when))
            try tx.save(TodoTask(id: id(9), title: "last", position: last, updatedAt: when))
        }
        fleet.run(until: 10_000)
        let spot = OrderKey.between(first, and: last)
        try apart(fleet, {
            try fleet.write(on: 0, TodoNamespace.self) { tx throws(SyncKernelError) in
                try tx.save(TodoTask(id: id(5), title: "from 0", position: spot, updatedAt: when))
            }
        }, {
            try fleet.write(on: 1, TodoNamespace.self) { tx throws(SyncKernelError) in
                try tx.save(TodoTask(id: id(3), title: "from 1", position: spot, updatedAt: when))
            }
        })
        XCTAssertEqual(try tasks(fleet, 0), ["first", "from 1", "from 0", "last"], "one spot: both, the smaller id first")
        XCTAssertEqual(try tasks(fleet, 1), try tasks(fleet, 0))
    }

    func testChildrenOfADeletedParentStayAndSitAtTheRoot() throws {
        let fleet = try fleet([OutlineNamespace.self])
        let key = OrderKey.between(nil, and: nil)
        try fleet.write(on: 0, OutlineNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(OutlineItem(id: id(1), title: "groceries", position: key, updatedAt: when))
            try tx.save(OutlineItem(id: id(2), title: "milk", parent: id(1), position: key, updatedAt: when))
        }
        fleet.run(until: 10_000)
        XCTAssertEqual(try tree(fleet, 1), ["groceries", "  milk"])
        try apart(fleet, {
            try fleet.write(on: 0, OutlineNamespace.self) { tx throws(SyncKernelError) in
                try tx.save(OutlineItem(id: id(2), title: "oat milk", parent: id(1), position: key, updatedAt: when.addingTimeInterval(1)))
            }
        }, {
            try fleet.write(on: 1, OutlineNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: id(1)) }
        })
        XCTAssertEqual(try tree(fleet, 0), ["oat milk"], "the child stays, edited, at the root")
        XCTAssertEqual(try tree(fleet, 1), try tree(fleet, 0))
    }

    func testReParentingApartIntoACycleIsCutAtTheSmallestIDOnEveryDevice() throws {
        let fleet = try fleet([OutlineNamespace.self])
        let key = OrderKey.between(nil, and: nil)
        try fleet.write(on: 0, OutlineNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(OutlineItem(id: id(4), title: "a", position: key, updatedAt: when))
            try tx.save(OutlineItem(id: id(7), title: "b", position: key, updatedAt: when))
        }
        fleet.run(until: 10_000)
        try apart(fleet, {
            try fleet.write(on: 0, OutlineNamespace.self) { tx throws(SyncKernelError) in
                try tx.save(OutlineItem(id: id(4), title: "a", parent: id(7), position: key, updatedAt: when.addingTimeInterval(1)))
            }
        }, {
            try fleet.write(on: 1, OutlineNamespace.self) { tx throws(SyncKernelError) in
                try tx.save(OutlineItem(id: id(7), title: "b", parent: id(4), position: key, updatedAt: when.addingTimeInterval(1)))
            }
        })
        XCTAssertEqual(try tree(fleet, 0), ["a", "  b"], "a under b and b under a: the cycle is cut at a, the smaller id")
        XCTAssertEqual(try tree(fleet, 1), try tree(fleet, 0))
    }

    func testEveryItemAppearsOnceWithNoCycleWhateverTheLinksAndTheOrder() {
        var generator = SeededGenerator(seed: 41)
        for _ in 0..<300 {
            let count = Int.random(in: 1...12, using: &generator)
            let items = (0..<count).map { index in
                OutlineItem(id: id(UInt8(index + 1)), title: "i\(index)",
                            parent: Bool.random(using: &generator) ? id(UInt8(Int.random(in: 1...15, using: &generator))) : nil,
                            position: OrderKey.between(nil, and: nil), updatedAt: when)
            }.filter { $0.parent != $0.id }
            let tree = OutlineTree(items)
            XCTAssertEqual(tree.outline.map { $0.trimmingCharacters(in: .whitespaces) }.sorted(), items.map(\.title).sorted())
            XCTAssertEqual(OutlineTree(items.shuffled(using: &generator)), tree, "the same rows make the same tree")
        }
    }
}
