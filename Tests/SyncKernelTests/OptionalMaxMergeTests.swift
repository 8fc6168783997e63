import Foundation
import SyncKernel
import SyncKernelSimulator
import XCTest

/// `.max` on optional dates and integers under `.join()`: an absent value is below every value,
/// so a device that set the field wins over one that never did, and two set values go to the
/// greater, on both devices alike.
final class OptionalMaxMergeTests: XCTestCase {
    enum LastOpened: SyncNamespace {
        struct Row: Sendable, Hashable {
            var id: String
            var opened: Date?
            var highest: Int64?
            var counted: UInt64?
        }

        static let name = "last_opened"
        static let schema = RowSchema<Row>(blank: Row(id: ""), key: \.id, [
            .hashed("id", \.id, .text),
            .hashed("opened", \.opened, .optional(.date), merge: .max),
            .hashed("highest", \.highest, .optional(.int64), merge: .max),
            .hashed("counted", \.counted, .optional(.uint64), merge: .max),
        ])
        static let mergeRule = MergeRule<Row>.join()
    }

    private typealias Row = LastOpened.Row

    func testAnAbsentValueLosesToAnySetOneAndTwoSetValuesGoToTheGreater() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2, namespaces: [LastOpened.self])
        fleet.announceAll()
        let early = Date(timeIntervalSince1970: 1_000)
        let late = Date(timeIntervalSince1970: 2_000)
        fleet.partition([[0], [1]])
        try fleet.write(on: 0, LastOpened.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "a", opened: nil, highest: 5, counted: nil))
            try tx.save(Row(id: "b", opened: late, highest: nil, counted: 3))
        }
        try fleet.write(on: 1, LastOpened.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "a", opened: early, highest: nil, counted: 7))
            try tx.save(Row(id: "b", opened: early, highest: -2, counted: 9))
        }
        fleet.heal()
        fleet.announceAll()
        fleet.run(until: 60_000)
        XCTAssertTrue(fleet.allRootsMatch)
        for index in 0..<2 {
            let rows = try fleet.replicas[index].store.rows(LastOpened.self)
            XCTAssertEqual(rows, [Row(id: "a", opened: early, highest: 5, counted: 7), Row(id: "b", opened: late, highest: -2, counted: 9)],
                           "device \(index)")
        }
    }
}
