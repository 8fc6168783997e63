import SyncKernel
import SyncKernelSimulator
import XCTest

/// `Replica.pendingChanges`: what each sibling has not seen of this device's writes: unknown
/// before the two met in step, the keys written while apart (pushed or not), none once in step.
final class PendingChangesTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    func testPendingChangesAreUnknownBeforeAMeetingThenTheKeysWrittenApartThenNone() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2)
        let sibling = TestWorld.device(1)
        XCTAssertEqual(fleet.replicas[0].pendingChanges(namespace: RecordNamespace.name), [sibling: .unknown], "never met")
        fleet.announceAll()
        try fleet.save(Row(id: "a", value: "1", updatedAt: 1), on: 0)
        fleet.run(until: 30_000)
        XCTAssertTrue(fleet.allRootsMatch)
        XCTAssertEqual(fleet.replicas[0].pendingChanges(namespace: RecordNamespace.name), [sibling: .keys([])], "in step")
        fleet.partition([[0], [1]])
        try fleet.save(Row(id: "b", value: "1", updatedAt: 2), on: 0)
        try fleet.save(Row(id: "a", value: "2", updatedAt: 3), on: 0)
        fleet.run(until: fleet.now + 5_000)
        XCTAssertEqual(fleet.replicas[0].pendingChanges(namespace: RecordNamespace.name),
                       [sibling: .keys([Array("a".utf8), Array("b".utf8)])], "pushed while apart, never acknowledged")
        XCTAssertEqual(fleet.replicas[1].pendingChanges(namespace: RecordNamespace.name), [TestWorld.device(0): .keys([])],
                       "the other side wrote nothing")
        fleet.heal()
        fleet.run(until: fleet.now + 60_000)
        XCTAssertTrue(fleet.allRootsMatch)
        XCTAssertEqual(fleet.replicas[0].pendingChanges(namespace: RecordNamespace.name), [sibling: .keys([])], "seen")
    }
}
