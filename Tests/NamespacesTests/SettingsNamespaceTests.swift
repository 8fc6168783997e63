import Foundation
import SettingsNamespace
import SyncKernel
import XCTest

final class SettingsNamespaceTests: XCTestCase {
    func testConcurrentValuesTieBreakToTheLargerStringOnBothDevices() throws {
        let pair = try TwoDevices()
        try pair.a.write(SettingsNamespace.self) { tx throws(SyncKernelError) in try tx.set("theme", to: "dark", now: 500) }
        try pair.b.write(SettingsNamespace.self) { tx throws(SyncKernelError) in try tx.set("theme", to: "light", now: 100) }
        try pair.sync(SettingsNamespace.self)
        XCTAssertEqual(try pair.a.row(SettingsNamespace.self, key: Array("theme".utf8))?.value, "light",
                       "larger string wins; the later clock on A plays no part")
        XCTAssertEqual(try pair.b.row(SettingsNamespace.self, key: Array("theme".utf8))?.value, "light")
        XCTAssertTrue(pair.agree(SettingsNamespace.self))
    }

    func testTheRequestCarriesNoFingerprintsAndTheResponseIsTheWholeDictionary() throws {
        let pair = try TwoDevices()
        try pair.b.write(SettingsNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<300 { try tx.set("k\(index)", to: "v", now: 1) }
            try tx.set("gone", to: "x", now: 1)
            try tx.delete(key: Array("gone".utf8))
        }
        let request = try pair.a.reconcileRequest(for: SettingsNamespace.name)
        XCTAssertEqual(request.buckets, [])
        let responses = try pair.b.respond(to: request)
        XCTAssertEqual(responses.count, 1)
        let response = try XCTUnwrap(responses.first)
        XCTAssertEqual(response.rows.count, 300)
        XCTAssertEqual(response.listings, [])
        XCTAssertEqual(response.tombstones.map(\.key), [Array("gone".utf8)], "tombstoned keys travel")
        XCTAssertTrue(response.rows.allSatisfy { $0.vector != nil }, "per-key version vectors travel")
    }

    func testReadMarksAreFixedWidthSoTheLaterMarkWinsConcurrently() throws {
        XCTAssertEqual(ReadState.encode(seconds: 999), "000000000999")
        XCTAssertEqual(ReadState.decode("000000001000"), 1_000)
        XCTAssertNil(ReadState.decode("1000"))
        XCTAssertTrue(Array(ReadState.encode(seconds: 999).utf8).lexicographicallyPrecedes(Array(ReadState.encode(seconds: 1_000).utf8)))
        let pair = try TwoDevices()
        try pair.a.write(SettingsNamespace.self) { tx throws(SyncKernelError) in try tx.markRead(conversation: "c1", at: 1_000, now: 5) }
        try pair.b.write(SettingsNamespace.self) { tx throws(SyncKernelError) in try tx.markRead(conversation: "c1", at: 999, now: 9_999) }
        try pair.sync(SettingsNamespace.self)
        for store in [pair.a, pair.b] {
            XCTAssertEqual(try store.row(SettingsNamespace.self, key: Array("read.c1".utf8)).flatMap { ReadState.decode($0.value) }, 1_000)
        }
        try pair.a.write(SettingsNamespace.self) { tx throws(SyncKernelError) in try tx.markRead(conversation: "c1", at: 10, now: 6) }
        XCTAssertEqual(try pair.a.row(SettingsNamespace.self, key: Array("read.c1".utf8))?.value, "000000001000",
                       "a mark never moves back")
    }

    /// Soak seed 56, reduced: two devices set one setting to one value concurrently, under other
    /// stamps (not hashed), so their roots agree and they never exchange it; a third store that
    /// merges both writes (the soak's oracle) keeps both, but as no conflict between equal values,
    /// and so agrees with them.
    func testTheSameValueSetConcurrentlyIsNoConflictOnAStoreThatMeetsBoth() throws {
        let pair = try TwoDevices()
        let key = Array("pref.1".utf8)
        let third = try KernelStore(path: pair.directory + "/c.sqlite", namespaces: NamespaceSet(TwoDevices.all))
        try third.configureDevice(DeviceKeyPair(seed: [UInt8](repeating: 0xc, count: 32)).deviceID)
        try pair.a.write(SettingsNamespace.self) { tx throws(SyncKernelError) in try tx.set("pref.1", to: "fold", now: 14) }
        try pair.pull(SettingsNamespace.self, into: pair.b, from: pair.a)
        try pair.a.write(SettingsNamespace.self) { tx throws(SyncKernelError) in try tx.set("pref.1", to: "note", now: 28) }
        try pair.b.write(SettingsNamespace.self) { tx throws(SyncKernelError) in try tx.set("pref.1", to: "bucket", now: 31) }
        try pair.b.write(SettingsNamespace.self) { tx throws(SyncKernelError) in try tx.set("pref.1", to: "note", now: 32) }
        XCTAssertTrue(pair.agree(SettingsNamespace.self), "equal values: equal roots, nothing to exchange")

        try pair.pull(SettingsNamespace.self, into: third, from: pair.a)
        try pair.pull(SettingsNamespace.self, into: third, from: pair.b)
        XCTAssertEqual(try third.conflictedKeys(namespace: SettingsNamespace.name), [])
        XCTAssertEqual(try third.openConflictCounts()[SettingsNamespace.name], 0)
        XCTAssertEqual(try third.conflictVersions(namespace: SettingsNamespace.name, key: key).count, 2, "both writes kept")
        XCTAssertEqual(try third.row(SettingsNamespace.self, key: key)?.value, "note")
        XCTAssertEqual(pair.root(SettingsNamespace.self, third), pair.root(SettingsNamespace.self, pair.a),
                       "the store that met both writes agrees with the devices that met one")
        third.close()
    }
}
