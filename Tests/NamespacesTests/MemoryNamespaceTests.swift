import Foundation
import MemoryNamespace
import SyncKernel
import XCTest

final class MemoryNamespaceTests: XCTestCase {
    private func event(_ byte: UInt8, _ text: String, origin: MemoryEvent.Origin = .synced) -> MemoryEvent {
        MemoryEvent(id: TwoDevices.id(byte), kind: .observation, text: text, occurredAt: TwoDevices.at(Double(byte)), origin: origin)
    }

    func testAppendOnlyInsertIfAbsentAndRefusesRewrites() throws {
        let pair = try TwoDevices()
        try pair.a.write(MemoryNamespace.self) { tx throws(SyncKernelError) in try tx.append(self.event(1, "one")) }
        try pair.b.write(MemoryNamespace.self) { tx throws(SyncKernelError) in try tx.append(self.event(2, "two")) }
        try pair.sync(MemoryNamespace.self)
        XCTAssertTrue(pair.agree(MemoryNamespace.self))
        XCTAssertEqual(try pair.a.rows(MemoryNamespace.self).count, 2)
        XCTAssertThrowsError(try pair.a.write(MemoryNamespace.self) { tx throws(SyncKernelError) in try tx.append(self.event(1, "rewritten")) })
        XCTAssertThrowsError(try pair.a.write(MemoryNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: TwoDevices.id(1)) }) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .operationNotSupportedByRule, "deletion travels as an event")
        }
    }

    func testBuryingIsAnEventThatHidesAConversationEverywhere() throws {
        let pair = try TwoDevices()
        let conversation = TwoDevices.id(0x40)
        try pair.a.write(MemoryNamespace.self) { tx throws(SyncKernelError) in
            try tx.append(MemoryEvent(id: TwoDevices.id(3), kind: .summary(conversation: conversation), text: "sum",
                                      occurredAt: TwoDevices.at(3)))
        }
        try pair.sync(MemoryNamespace.self)
        try pair.b.write(MemoryNamespace.self) { tx throws(SyncKernelError) in
            try tx.append(MemoryEvent(id: TwoDevices.id(4), kind: .buried(conversation: conversation), text: "",
                                      occurredAt: TwoDevices.at(4)))
        }
        try pair.sync(MemoryNamespace.self)
        XCTAssertEqual(MemoryNamespace.visible(try pair.a.rows(MemoryNamespace.self)), [])
        XCTAssertTrue(pair.agree(MemoryNamespace.self))
    }

    func testCalendarStyleEventsAreNeverHashedShippedOrResurrected() throws {
        let pair = try TwoDevices()
        try pair.a.write(MemoryNamespace.self) { tx throws(SyncKernelError) in try tx.append(self.event(1, "synced")) }
        try pair.sync(MemoryNamespace.self)
        let settled = pair.root(MemoryNamespace.self, pair.a)
        // Each device ingests its own calendar window, re-minting ids on every pass.
        for pass in 0..<3 {
            for (index, store) in [pair.a, pair.b].enumerated() {
                let outcome = try store.write(MemoryNamespace.self) { tx throws(SyncKernelError) in
                    try tx.replaceDerived(source: "calendar", with: [
                        self.event(UInt8(0x80 + pass * 8 + index * 4), "standup"),
                        self.event(UInt8(0x81 + pass * 8 + index * 4), "dentist"),
                    ])
                }
                XCTAssertTrue(outcome.changedNamespaces.isEmpty, "device-derived rows never dirty the state")
            }
        }
        XCTAssertEqual(pair.root(MemoryNamespace.self, pair.a), settled)
        XCTAssertEqual(pair.root(MemoryNamespace.self, pair.b), settled)
        XCTAssertEqual(try pair.b.respond(to: pair.a.reconcileRequest(for: MemoryNamespace.name)), [], "nothing to ship")

        // A stale sibling on an old build ships calendar rows anyway: they are dropped on apply.
        let stale = MemoryNamespace.rowEncoding(of: event(0x99, "old calendar row", origin: .deviceDerived(source: "calendar")))
        let outcome = try pair.a.apply(ReconcileResponse(namespace: MemoryNamespace.name,
                                                         rows: [ShippedRow(row: stale, vector: nil)], tombstones: []))
        XCTAssertEqual(outcome.rowsApplied, 0)
        XCTAssertNil(try pair.a.row(MemoryNamespace.self, key: TwoDevices.id(0x99)))
        XCTAssertEqual(try pair.a.rows(MemoryNamespace.self).filter { $0.origin != .synced }.count, 2,
                       "only this device's own derived rows remain")
    }

    func testTheKernelRefusesAnInPlaceEditOfAnAppendOnlyRowWithNothingWritten() throws {
        let pair = try TwoDevices()
        try pair.a.write(MemoryNamespace.self) { tx throws(SyncKernelError) in try tx.append(self.event(1, "one")) }
        let digest = pair.a.stateDigest()
        XCTAssertThrowsError(try pair.a.write(MemoryNamespace.self) { tx throws(SyncKernelError) in
            try tx.append(self.event(2, "two"))
            try tx.save(self.event(1, "rewritten in place"))
        }) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .operationNotSupportedByRule)
        }
        XCTAssertEqual(try pair.a.rows(MemoryNamespace.self).map(\.text), ["one"], "the whole write rolled back")
        XCTAssertEqual(pair.a.stateDigest(), digest)
    }

    func testTheKernelRefusesTurningASyncedRowDeviceDerivedOrBack() throws {
        let pair = try TwoDevices()
        try pair.a.write(MemoryNamespace.self) { tx throws(SyncKernelError) in
            try tx.append(self.event(1, "synced"))
            try tx.save(self.event(2, "derived", origin: .deviceDerived(source: "calendar")))
        }
        for flipped in [event(1, "synced", origin: .deviceDerived(source: "calendar")), event(2, "derived")] {
            XCTAssertThrowsError(try pair.a.write(MemoryNamespace.self) { tx throws(SyncKernelError) in try tx.save(flipped) }) {
                XCTAssertEqual(($0 as? SyncKernelError)?.code, .operationNotSupportedByRule)
            }
        }
        XCTAssertEqual(try pair.a.rows(MemoryNamespace.self).map(\.origin), [.synced, .deviceDerived(source: "calendar")])
    }
}
